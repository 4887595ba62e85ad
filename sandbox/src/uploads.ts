/**
 * Upload preparation, signed storage URLs, refresh and cancel (spec "Uploads", "Shown effects of operations").
 * A preparation lasts 24 hours (sandbox clock); each signed URL 600 seconds.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Ctx } from './context';
import { HOUR } from './clock';
import { ApiError, conflict, notFound, unprocessable } from './errors';
import { newId } from './store';
import type { ReportRecord, UploadDescriptor, Workspace } from './types';
import type { ParsedJobRef, ParsedUploadInput } from './validation';

export const UPLOAD_URL_SECONDS = 600;
export const PREPARATION_MS = 24 * HOUR;
export const REPORT_SYSTEM_VERSION = 'rs-2026.1';

export function preparationLive(ctx: Ctx, r: ReportRecord): boolean {
	return !r.admitted && !!r.preparation && !r.preparation.cancelled && r.preparation.expiresAt > ctx.clock.now();
}

export function pendingPreparations(ctx: Ctx, workspaceId: string): number {
	return Object.values(ctx.store.reports).filter((r) => r.workspaceId === workspaceId && preparationLive(ctx, r)).length;
}

function sign(ctx: Ctx, reportId: string, expires: number): string {
	return createHmac('sha256', ctx.store.signingKey).update(`storage:${reportId}:${expires}`).digest('hex');
}

export function signedUpload(ctx: Ctx, r: ReportRecord): UploadDescriptor {
	const expires = ctx.clock.now() + UPLOAD_URL_SECONDS * 1000;
	const url = `${ctx.baseUrl}/_storage/uploads/${encodeURIComponent(r.id)}?expires=${expires}&signature=${sign(ctx, r.id, expires)}`;
	return { url, method: 'PUT', mimeType: r.mimeType, sizeBytes: r.fileSize, expiresInSeconds: UPLOAD_URL_SECONDS };
}

export function checkSignature(ctx: Ctx, reportId: string, expires: unknown, signature: unknown): void {
	const bad = new ApiError(403, 'The storage URL signature is invalid.', 'SIGNATURE_INVALID');
	if (typeof expires !== 'string' || !/^\d{1,16}$/.test(expires) || typeof signature !== 'string') throw bad;
	const expected = Buffer.from(sign(ctx, reportId, Number(expires)));
	const given = Buffer.from(signature);
	if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw bad;
	if (Number(expires) <= ctx.clock.now()) {
		throw new ApiError(403, 'The storage URL has expired; refresh it with POST /api/v1/uploads/{id}/url.', 'URL_EXPIRED');
	}
}

export function resolveJob(ctx: Ctx, ws: Workspace, ref: ParsedJobRef) {
	if (ref.kind === 'text') {
		return { jobDescription: { id: null, title: null, company: null, revision: null }, jobText: ref.text ?? '' };
	}
	const job = ctx.store.jobs[ref.id ?? ''];
	if (!job || job.workspaceId !== ws.id) throw notFound('Job description');
	if (job.status !== 'ACTIVE') {
		throw unprocessable('JOB_DESCRIPTION_INACTIVE', `Job description ${job.id} is ${job.status}; only ACTIVE jobs accept new reports.`);
	}
	if (ref.expectedRevision !== undefined && ref.expectedRevision.toLowerCase() !== job.revision) {
		throw conflict('JD_REVISION_CHANGED', 'The job description was revised; review the new revision before retrying.');
	}
	return {
		jobDescription: { id: job.id, title: job.title, company: job.company, revision: ref.expectedRevision ? job.revision : null },
		jobText: job.description,
	};
}

/** Creates a report and its 24-hour preparation, or throws the preparation's error conditions. */
export function prepareUpload(ctx: Ctx, ws: Workspace, input: ParsedUploadInput, job: ParsedJobRef): { reportId: string; upload: UploadDescriptor } {
	const resolved = resolveJob(ctx, ws, job);
	const er = input.externalReference;
	if (er) {
		const used = Object.values(ctx.store.reports).some(
			(r) => r.workspaceId === ws.id && r.externalReference?.source === er.source && r.externalReference.id === er.id,
		);
		if (used) {
			throw conflict('EXTERNAL_REFERENCE_CONFLICT', 'This external reference (source, id) is already used by another report in the workspace.');
		}
	}
	if (pendingPreparations(ctx, ws.id) >= ws.pendingUploadLimit) {
		throw conflict('PENDING_UPLOAD_LIMIT', 'Too many pending upload preparations; cancel unused ones or wait for them to expire.');
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
	ctx.markDirty();
	return { reportId: report.id, upload: signedUpload(ctx, report) };
}

export function ownReport(ctx: Ctx, ws: Workspace, id: string): ReportRecord {
	const r = ctx.store.reports[id];
	if (!r || r.workspaceId !== ws.id) throw notFound('Report');
	return r;
}

export function refreshUpload(ctx: Ctx, ws: Workspace, id: string) {
	const r = ownReport(ctx, ws, id);
	if (r.admitted) throw conflict('ALREADY_ADMITTED', 'An analysis was already admitted for this report; its file is frozen.');
	if (!preparationLive(ctx, r)) {
		throw notFound('Upload preparation', 'PREPARATION_EXPIRED');
	}
	return { reportId: r.id, upload: signedUpload(ctx, r) };
}

export function cancelUpload(ctx: Ctx, ws: Workspace, id: string): void {
	const r = ctx.store.reports[id];
	if (!r || r.workspaceId !== ws.id) return; // an absent preparation: repeating is safe
	if (r.admitted) throw conflict('ALREADY_ADMITTED', 'An analysis was already admitted; an accepted analysis is not cancelled.');
	if (r.preparation && !r.preparation.cancelled) {
		r.preparation.cancelled = true;
		ctx.markDirty();
	}
}
