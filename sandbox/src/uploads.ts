/**
 * Upload preparation, signed storage URLs, refresh and cancel (spec "Uploads", "Shown effects of operations").
 * A preparation lasts 24 hours (sandbox clock); each signed URL 600 seconds.
 */
import { createHmac } from 'node:crypto';
import { unzipSync } from 'fflate';
import type { Ctx } from './context';
import { HOUR } from './clock';
import { conflict, notFound, unprocessable } from './errors';
import { newId } from './store';
import type { ReportRecord, UploadDescriptor, Workspace } from './types';
import { PDF_MIME, type ParsedJobRef, type ParsedUploadInput } from './validation';

export const UPLOAD_URL_SECONDS = 600;
export const PREPARATION_MS = 24 * HOUR;
export const REPORT_SYSTEM_VERSION = 'rs-2026.1';

export function preparationLive(ctx: Ctx, r: ReportRecord): boolean {
	return (
		!r.admitted &&
		!!r.preparation &&
		!r.preparation.cancelled &&
		r.preparation.expiresAt > ctx.clock.now()
	);
}

export function pendingPreparations(ctx: Ctx, workspaceId: string): number {
	return Object.values(ctx.store.reports).filter(
		(r) => r.workspaceId === workspaceId && preparationLive(ctx, r),
	).length;
}

/** Whether stored bytes are the declared type: a PDF starts `%PDF-`; a DOCX is a ZIP holding word/document.xml. */
export function contentMatchesType(bytes: Buffer, mimeType: string): boolean {
	if (mimeType === PDF_MIME) return bytes.subarray(0, 5).toString('latin1') === '%PDF-';
	if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) return false;
	try {
		const files = unzipSync(new Uint8Array(bytes), {
			filter: (f) => f.name === 'word/document.xml',
		});
		return !!files['word/document.xml'];
	} catch {
		return false;
	}
}

/** HMAC over what the URL grants: the report, the expiry and the declared Content-Type. */
export function storageSignature(
	ctx: Ctx,
	r: Pick<ReportRecord, 'id' | 'mimeType'>,
	expires: number,
): string {
	return createHmac('sha256', ctx.store.signingKey)
		.update(`storage:${r.id}:${expires}:${r.mimeType}`)
		.digest('hex');
}

export function signedUpload(ctx: Ctx, r: ReportRecord): UploadDescriptor {
	const expires = ctx.clock.now() + UPLOAD_URL_SECONDS * 1000;
	const url = `${ctx.baseUrl}/_storage/uploads/${encodeURIComponent(r.id)}?expires=${expires}&signature=${storageSignature(ctx, r, expires)}`;
	return {
		url,
		method: 'PUT',
		mimeType: r.mimeType,
		sizeBytes: r.fileSize,
		expiresInSeconds: UPLOAD_URL_SECONDS,
	};
}

export function resolveJob(ctx: Ctx, ws: Workspace, ref: ParsedJobRef) {
	if (ref.kind === 'text') {
		return {
			jobDescription: { id: null, title: null, company: null, revision: null },
			jobText: ref.text ?? '',
		};
	}
	const job = ctx.store.jobs[ref.id ?? ''];
	if (!job || job.workspaceId !== ws.id) throw notFound('Job description');
	if (job.status !== 'ACTIVE') {
		throw unprocessable(
			'JOB_DESCRIPTION_INACTIVE',
			`Job description ${job.id} is ${job.status}; only ACTIVE jobs accept new reports.`,
		);
	}
	if (ref.expectedRevision !== undefined && ref.expectedRevision.toLowerCase() !== job.revision) {
		throw conflict(
			'JD_REVISION_CHANGED',
			'The job description was revised; review the new revision before retrying.',
		);
	}
	return {
		jobDescription: {
			id: job.id,
			title: job.title,
			company: job.company,
			revision: ref.expectedRevision ? job.revision : null,
		},
		jobText: job.description,
	};
}

/** Creates a report and its 24-hour preparation, or throws the preparation's error conditions. */
export function prepareUpload(
	ctx: Ctx,
	ws: Workspace,
	input: ParsedUploadInput,
	job: ParsedJobRef,
): { reportId: string; upload: UploadDescriptor } {
	const resolved = resolveJob(ctx, ws, job);
	const er = input.externalReference;
	if (er) {
		const used = Object.values(ctx.store.reports).some(
			(r) =>
				r.workspaceId === ws.id &&
				r.externalReference?.source === er.source &&
				r.externalReference.id === er.id,
		);
		if (used) {
			throw conflict(
				'EXTERNAL_REFERENCE_CONFLICT',
				'This external reference (source, id) is already used by another report in the workspace.',
			);
		}
	}
	if (pendingPreparations(ctx, ws.id) >= ws.pendingUploadLimit) {
		throw conflict(
			'PENDING_UPLOAD_LIMIT',
			'Too many pending upload preparations; cancel unused ones or wait for them to expire.',
		);
	}
	const now = ctx.clock.now();
	const report: ReportRecord = {
		id: newId('rpt_'),
		seq: ctx.store.nextSeq(),
		workspaceId: ws.id,
		createdAt: now,
		reportSystemVersion: REPORT_SYSTEM_VERSION,
		status: 'queued',
		attemptId: null,
		code: null,
		fileName: input.fileName,
		fileSize: input.fileSize,
		mimeType: input.mimeType,
		fileSha256: null,
		admitted: false,
		admissions: 0,
		preparation: { createdAt: now, expiresAt: now + PREPARATION_MS, cancelled: false },
		jobDescription: resolved.jobDescription,
		jobText: resolved.jobText,
		externalReference: er,
		candidate: { name: null, currentRole: null },
		result: null,
		resultRevision: null,
		publishedAt: null,
		run: null,
	};
	ctx.store.reports[report.id] = report;
	const counters = ctx.store.countersOf(ws.id);
	counters.reportsCreated += 1;
	counters.preparationsCreated += 1;
	counters.preparedAheadOfSubmissionMax = Math.max(
		counters.preparedAheadOfSubmissionMax ?? 0,
		preparedAheadOfSubmission(ctx, ws.id),
	);
	ctx.markDirty();
	return { reportId: report.id, upload: signedUpload(ctx, report) };
}

/** Reports of the workspace with a live preparation, never admitted and in no analysis batch. */
function preparedAheadOfSubmission(ctx: Ctx, workspaceId: string): number {
	const inAnalysisBatches = new Set<unknown>();
	for (const b of Object.values(ctx.store.batches))
		if (b.workspaceId === workspaceId && b.kind === 'analyses')
			for (const item of b.items) inAnalysisBatches.add(item.input.reportId);
	let count = 0;
	for (const r of Object.values(ctx.store.reports))
		if (
			r.workspaceId === workspaceId &&
			r.admissions === 0 &&
			r.preparation !== null &&
			!r.preparation.cancelled &&
			!inAnalysisBatches.has(r.id)
		)
			count++;
	return count;
}

export function ownReport(ctx: Ctx, ws: Workspace, id: string): ReportRecord {
	const r = ctx.store.reports[id];
	if (!r || r.workspaceId !== ws.id) throw notFound('Report');
	return r;
}

export function refreshUpload(ctx: Ctx, ws: Workspace, id: string) {
	const r = ownReport(ctx, ws, id);
	if (r.admitted)
		throw conflict(
			'ALREADY_ADMITTED',
			'An analysis was already admitted for this report; its file is frozen.',
		);
	if (!preparationLive(ctx, r)) {
		throw notFound('Upload preparation', 'PREPARATION_EXPIRED');
	}
	return { reportId: r.id, upload: signedUpload(ctx, r) };
}

export function cancelUpload(ctx: Ctx, ws: Workspace, id: string): void {
	const r = ctx.store.reports[id];
	if (!r || r.workspaceId !== ws.id) return; // an absent preparation: repeating is safe
	if (r.admitted)
		throw conflict(
			'ALREADY_ADMITTED',
			'An analysis was already admitted; an accepted analysis is not cancelled.',
		);
	if (r.preparation && !r.preparation.cancelled) {
		r.preparation.cancelled = true;
		ctx.markDirty();
	}
}
