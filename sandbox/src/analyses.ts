/**
 * Analysis quotes, admission and the asynchronous worker (spec "Analyses", "Report status").
 * queued -> processing -> completed | requires_action | failed, chosen by the file's marker line.
 * A worker retry (`retry_then_completed`) goes back to queued and keeps the attemptId.
 */
import type { Ctx } from './context';
import { canonicalHash, sha256Hex } from './canonical';
import { conflict, notFound, unprocessable } from './errors';
import { publish } from './events';
import { analysisResult, readDocument } from './results';
import { newId } from './store';
import { isTerminal, type ReportRecord, type Workspace } from './types';
import { contentMatchesType, ownReport, preparationLive } from './uploads';
import { onAnalysisTerminal } from './batchCompletion';
import { CREDIT_SCALE, noteQuoteIssued, quoteTooOld } from './quotes';

export const ANALYSIS_CREDIT_UNITS = 100;

/** The workspace's price of an analysis in credit units. */
export const analysisCreditUnits = (ws: Workspace) =>
	ws.analysisCreditUnits ?? ANALYSIS_CREDIT_UNITS;

export interface AnalysisQuote {
	reportId: string;
	reportSystemVersion: string;
	creditUnits: number;
	creditScale: number;
	fingerprint: string;
}

function alreadyStarted(r: ReportRecord): boolean {
	// A failed attempt may be retried deliberately with a new key and a current quote.
	return r.admitted && r.status !== 'failed';
}

/** The fingerprint is the SHA-256 of everything the quote depends on, so any change makes it stale. */
export function analysisFingerprint(ws: Workspace, r: ReportRecord): string {
	return canonicalHash({
		kind: 'analysis',
		workspaceId: ws.id,
		reportId: r.id,
		file: r.fileSha256,
		reportSystemVersion: r.reportSystemVersion,
		priceVersion: ws.priceVersion,
		creditUnits: analysisCreditUnits(ws),
		admissions: r.admissions,
		jobRevision: r.jobDescription.revision,
	});
}

export function quoteAnalysis(ctx: Ctx, ws: Workspace, reportId: string): AnalysisQuote {
	const r = ownReport(ctx, ws, reportId);
	if (alreadyStarted(r))
		throw conflict('ANALYSIS_ALREADY_STARTED', 'An analysis was already admitted for this report.');
	const fingerprint = analysisFingerprint(ws, r);
	noteQuoteIssued(ctx, ws, fingerprint);
	return {
		reportId: r.id,
		reportSystemVersion: r.reportSystemVersion,
		creditUnits: analysisCreditUnits(ws),
		creditScale: CREDIT_SCALE,
		fingerprint,
	};
}

export function activeAnalyses(ctx: Ctx, workspaceId: string): number {
	return Object.values(ctx.store.reports).filter(
		(r) => r.workspaceId === workspaceId && r.run && !isTerminal(r),
	).length;
}

/** Checks every admission condition in the spec's order, then admits (202 semantics). */
export function startAnalysis(
	ctx: Ctx,
	ws: Workspace,
	reportId: string,
	quoteFingerprint: string,
): { reportId: string; attemptId: string } {
	const r = ownReport(ctx, ws, reportId);
	if (alreadyStarted(r))
		throw conflict(
			'ANALYSIS_ALREADY_STARTED',
			'An analysis was already admitted for this report; completed analyses cannot be restarted.',
		);
	if (!r.admitted && !preparationLive(ctx, r))
		throw notFound('Upload preparation', 'PREPARATION_EXPIRED');
	const bytes = r.fileSha256 ? ctx.store.files.get(r.id) : undefined;
	if (!bytes) {
		throw unprocessable(
			'INVALID_UPLOAD',
			'No valid file was uploaded for this report; PUT the file to the upload URL first.',
		);
	}
	if (!contentMatchesType(bytes, r.mimeType)) {
		// Storage keeps any bytes; the service reads them at admission.
		throw unprocessable(
			'INVALID_UPLOAD',
			'The uploaded file is not the declared type (a PDF starts %PDF-; a DOCX is a ZIP holding word/document.xml); PUT a corrected file.',
		);
	}
	if (quoteFingerprint !== analysisFingerprint(ws, r)) {
		throw unprocessable(
			'QUOTE_STALE',
			'The quote is not current; request a new quote and use a new Idempotency-Key.',
		);
	}
	if (quoteTooOld(ctx, ws, quoteFingerprint)) {
		throw unprocessable(
			'QUOTE_STALE',
			'The quote is older than the workspace accepts; request a new quote and use a new Idempotency-Key.',
		);
	}
	if (r.jobDescription.id && r.jobDescription.revision) {
		const job = ctx.store.jobs[r.jobDescription.id];
		if (job && job.revision !== r.jobDescription.revision) {
			throw conflict(
				'JD_REVISION_CHANGED',
				'The job description was revised after preparation; review before retrying.',
			);
		}
	}
	if (activeAnalyses(ctx, ws.id) >= ws.activeAnalysisLimit) {
		throw unprocessable(
			'ACTIVE_ANALYSIS_LIMIT',
			'The workspace has reached its active analysis limit; wait for capacity.',
		);
	}
	if (ws.analysisAllowance < 1) {
		throw unprocessable('INSUFFICIENT_ALLOWANCE', 'The workspace has no analysis allowance left.');
	}
	return admit(ctx, ws, r);
}

function admit(ctx: Ctx, ws: Workspace, r: ReportRecord): { reportId: string; attemptId: string } {
	const attemptId = newId('att_');
	ws.analysisAllowance -= 1;
	r.admitted = true;
	r.admissions += 1;
	r.preparation = null; // consumed: the accepted file is frozen for this attempt
	r.status = 'queued';
	r.code = null;
	r.attemptId = attemptId;
	r.result = null;
	r.resultRevision = null;
	r.publishedAt = null;
	r.run = { attemptId, step: 0, retried: false };
	ctx.store.countersOf(ws.id).attemptsCreated += 1;
	ctx.markDirty();
	scheduleStep(ctx, r);
	return { reportId: r.id, attemptId };
}

/** Picks up an analysis in flight (after a restart from `--data`). */
export function resumeAnalysis(ctx: Ctx, r: ReportRecord): void {
	scheduleStep(ctx, r);
}

function scheduleStep(ctx: Ctx, r: ReportRecord): void {
	const attemptId = r.attemptId;
	// An analysis is two steps (queued -> processing -> outcome); a workspace's analysisDurationMs sets their length.
	const duration = ctx.store.workspaces[r.workspaceId]?.analysisDurationMs;
	const delay = duration ? duration / 2 : ctx.opts.workerDelayMs;
	ctx.timers.schedule(r.workspaceId, delay, () => step(ctx, r.id, attemptId));
}

function step(ctx: Ctx, reportId: string, attemptId: string | null): void {
	const r = ctx.store.reports[reportId];
	if (!r || !r.run || r.attemptId !== attemptId || isTerminal(r)) return;
	const bytes = ctx.store.files.get(r.id);
	const reading = bytes ? readDocument(bytes, r.mimeType) : null;
	if (r.status === 'queued') {
		r.status = 'processing';
		ctx.markDirty();
		scheduleStep(ctx, r);
		return;
	}
	// processing -> outcome
	const outcome = reading?.outcome ?? 'failed';
	if (outcome === 'retry_then_completed' && !r.run.retried) {
		r.run.retried = true; // a worker retry keeps the attemptId
		r.status = 'queued';
		ctx.markDirty();
		scheduleStep(ctx, r);
		return;
	}
	const ws = ctx.store.workspaces[r.workspaceId];
	const assoc = { reportId: r.id };
	if (outcome === 'failed' || !reading) {
		r.status = 'failed';
		r.code = reading ? 'DOCUMENT_UNREADABLE' : 'UPLOAD_MISSING';
		publish(
			ctx,
			ws.id,
			'report.failed',
			{ reportId: r.id, attemptId, status: r.status, code: r.code },
			assoc,
		);
	} else if (outcome === 'requires_action') {
		r.status = 'requires_action';
		r.code = 'HUMAN_REVIEW_REQUIRED';
		r.candidate = { name: reading.candidateName, currentRole: reading.currentRole };
		publish(
			ctx,
			ws.id,
			'report.requires_action',
			{ reportId: r.id, attemptId, status: r.status, code: r.code },
			assoc,
		);
	} else {
		r.status = 'completed';
		r.code = null;
		r.candidate = { name: reading.candidateName, currentRole: reading.currentRole };
		r.result = analysisResult(reading, r.jobDescription.title);
		r.publishedAt = ctx.clock.now();
		r.resultRevision = sha256Hex(`${r.id}:${attemptId}:${reading.contentHash}:${r.publishedAt}`);
		publish(
			ctx,
			ws.id,
			'report.completed',
			{ reportId: r.id, attemptId, status: r.status, code: null },
			assoc,
		);
		publish(
			ctx,
			ws.id,
			'report.result_ready',
			{ reportId: r.id, attemptId, resultRevision: r.resultRevision },
			assoc,
		);
	}
	ctx.markDirty();
	onAnalysisTerminal(ctx, r);
}
