/**
 * Interview quotes, invitations, resend, reinterview, the mail sink and the interview controls
 * (spec "Interviews", "Interview axes", "Sandbox rules" 2 and 7). The four axes are independent fields.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from './context';
import { DAY } from './clock';
import { canonicalHash, sha256Hex } from './canonical';
import { ApiError, conflict, notFound, unprocessable } from './errors';
import { publish } from './events';
import { interviewResult } from './results';
import { newId } from './store';
import type { InterviewRecord, MailItem, Workspace } from './types';
import { ownReport } from './uploads';
import { CREDIT_SCALE, noteQuoteIssued, quoteTooOld } from './quotes';

export const INTERVIEW_SYSTEM_VERSION = 'is-2026.1';
export const INTERVIEW_CREDIT_UNITS = 250;
/** Invitation lifetime (not shown in the spec; shorter than the seven-day sandbox data expiry). */
export const INTERVIEW_EXPIRY_MS = 3 * DAY;

export interface InterviewInput {
	reportId: string;
	candidateEmail: string;
	sendEmail: boolean;
}

export interface InterviewQuote {
	reportId: string;
	creditUnits: number;
	creditScale: number;
	fingerprint: string;
	interviewSystemVersion: string;
}

export function interviewsOfReport(ctx: Ctx, reportId: string): InterviewRecord[] {
	return Object.values(ctx.store.interviews).filter((i) => i.reportId === reportId);
}

function currentInterview(ctx: Ctx, reportId: string): InterviewRecord | undefined {
	return interviewsOfReport(ctx, reportId).find((i) => i.lifecycle !== 'superseded');
}

/** Binds report, address, delivery choice, version, price and the report's interview count. */
function fingerprint(ws: Workspace, input: InterviewInput, attempts: number): string {
	return canonicalHash({
		kind: 'interview',
		workspaceId: ws.id,
		reportId: input.reportId,
		candidateEmail: input.candidateEmail.toLowerCase(),
		sendEmail: input.sendEmail,
		interviewSystemVersion: INTERVIEW_SYSTEM_VERSION,
		priceVersion: ws.priceVersion,
		creditUnits: ws.interviewCreditUnits ?? INTERVIEW_CREDIT_UNITS,
		attempts,
	});
}

/** The quote answered by the quote endpoints (its issue time is remembered for the workspace's quote age). */
export function issueInterviewQuote(
	ctx: Ctx,
	ws: Workspace,
	input: InterviewInput,
): InterviewQuote {
	const quote = quoteInterview(ctx, ws, input);
	noteQuoteIssued(ctx, ws, quote.fingerprint);
	return quote;
}

export function quoteInterview(ctx: Ctx, ws: Workspace, input: InterviewInput): InterviewQuote {
	const r = ownReport(ctx, ws, input.reportId);
	if (r.status !== 'completed' || !r.result) {
		throw unprocessable(
			'ANALYSIS_NOT_USABLE',
			'An interview needs a report with a completed, usable analysis.',
		);
	}
	return {
		reportId: r.id,
		creditUnits: ws.interviewCreditUnits ?? INTERVIEW_CREDIT_UNITS,
		creditScale: CREDIT_SCALE,
		fingerprint: fingerprint(ws, input, interviewsOfReport(ctx, r.id).length),
		interviewSystemVersion: INTERVIEW_SYSTEM_VERSION,
	};
}

export interface InviteResponse {
	interviewId: string;
	reportId: string;
	invitationToken: string | null;
	statusUrl: string;
	emailDelivery: string;
}

/** Invite (previous undefined) or reinterview (previous = the interview being replaced). */
export function invite(
	ctx: Ctx,
	ws: Workspace,
	input: InterviewInput,
	quoteFingerprint: string,
	previousId?: string,
): InviteResponse {
	let previous: InterviewRecord | undefined;
	if (previousId !== undefined) {
		previous = ctx.store.interviews[previousId];
		if (!previous || previous.workspaceId !== ws.id) throw notFound('Interview');
		if (previous.reportId !== input.reportId) {
			throw conflict(
				'INTERVIEW_NOT_ELIGIBLE',
				'A reinterview must be for the same report as the previous interview.',
			);
		}
		if (previous.lifecycle === 'superseded')
			throw conflict(
				'INTERVIEW_NOT_ELIGIBLE',
				'This interview was already replaced by a reinterview.',
			);
		if (previous.lifecycle === 'in_progress')
			throw conflict('INTERVIEW_NOT_ELIGIBLE', 'The previous interview is in progress.');
	}
	const quote = quoteInterview(ctx, ws, input);
	if (quote.fingerprint !== quoteFingerprint) {
		throw unprocessable(
			'QUOTE_STALE',
			'The quote is not current for this report, address and delivery choice; request a new quote.',
		);
	}
	if (quoteTooOld(ctx, ws, quoteFingerprint)) {
		throw unprocessable(
			'QUOTE_STALE',
			'The quote is older than the workspace accepts; request a new quote.',
		);
	}
	if (!previous) {
		const current = currentInterview(ctx, input.reportId);
		if (current) {
			throw conflict(
				'INTERVIEW_NOT_ELIGIBLE',
				`Report already has interview ${current.id}; use resend or reinterview.`,
			);
		}
	}
	if (ws.interviewAllowance < 1)
		throw unprocessable('INSUFFICIENT_ALLOWANCE', 'The workspace has no interview allowance left.');
	ws.interviewAllowance -= 1;
	const now = ctx.clock.now();
	const interview: InterviewRecord = {
		id: newId('int_'),
		seq: ctx.store.nextSeq(),
		workspaceId: ws.id,
		reportId: input.reportId,
		interviewSystemVersion: INTERVIEW_SYSTEM_VERSION,
		createdAt: now,
		expiresAt: now + INTERVIEW_EXPIRY_MS,
		startedAt: null,
		completedAt: null,
		lifecycle: 'invited',
		preparation: 'queued',
		evaluation: 'not_started',
		emailDelivery: input.sendEmail ? 'queued' : 'not_requested',
		resultRevision: null,
		candidateEmail: input.candidateEmail,
		sendEmail: input.sendEmail,
		invitationToken: `inv_${randomBytes(24).toString('base64url')}`,
		result: null,
		pendingDeliveries: [],
	};
	if (previous) previous.lifecycle = 'superseded'; // its results stay tied to it; its link stops working
	ctx.store.interviews[interview.id] = interview;
	ctx.store.countersOf(ws.id).interviewsCreated += 1;
	ctx.markDirty();
	emit(ctx, interview, 'interview.invited');
	if (!ws.holdPreparation) {
		ctx.timers.schedule(ws.id, ctx.opts.workerDelayMs, () => {
			if (interview.preparation === 'queued' && ctx.store.interviews[interview.id]) {
				interview.preparation = 'ready';
				ctx.markDirty();
			}
		});
	}
	if (input.sendEmail) queueEmail(ctx, ws, interview);
	return {
		interviewId: interview.id,
		reportId: interview.reportId,
		invitationToken: input.sendEmail ? null : interview.invitationToken,
		statusUrl: `/api/v1/interviews/${interview.id}/status`,
		emailDelivery: interview.emailDelivery,
	};
}

export function emit(ctx: Ctx, i: InterviewRecord, type: string): void {
	publish(
		ctx,
		i.workspaceId,
		type,
		{
			interviewId: i.id,
			reportId: i.reportId,
			lifecycle: i.lifecycle,
			preparation: i.preparation,
			evaluation: i.evaluation,
			emailDelivery: i.emailDelivery,
		},
		{ reportId: i.reportId, interviewId: i.id },
	);
}

/** Queues an email to the mail sink; it is "sent" (accepted by the sink) after a worker step unless held. */
export function queueEmail(ctx: Ctx, ws: Workspace, interview: InterviewRecord): string {
	const deliveryId = newId('dlv_');
	const item: MailItem = {
		to: interview.candidateEmail,
		subject: 'Your interview invitation',
		body: `You are invited to an interview. Open ${ctx.baseUrl}/interview/${interview.invitationToken} to begin.`,
		interviewId: interview.id,
		deliveryId,
		sentAt: null,
		state: 'queued',
	};
	(ctx.store.mail[ws.id] ??= []).push(item);
	interview.emailDelivery = 'queued';
	interview.pendingDeliveries.push(deliveryId);
	ctx.markDirty();
	if (!ws.holdEmails)
		ctx.timers.schedule(ws.id, ctx.opts.workerDelayMs, () => sendEmail(ctx, ws.id, deliveryId));
	return deliveryId;
}

export function sendEmail(ctx: Ctx, workspaceId: string, deliveryId: string): void {
	const item = ctx.store.mail[workspaceId]?.find((m) => m.deliveryId === deliveryId);
	if (!item || item.state !== 'queued') return;
	const interview = ctx.store.interviews[item.interviewId];
	item.state = 'sent';
	item.sentAt = ctx.clock.iso();
	ctx.store.countersOf(workspaceId).emailsSent += 1;
	if (interview) {
		interview.pendingDeliveries = interview.pendingDeliveries.filter((d) => d !== deliveryId);
		if (interview.pendingDeliveries.length === 0) interview.emailDelivery = 'sent';
	}
	ctx.markDirty();
}

export function ownInterview(ctx: Ctx, ws: Workspace, id: string): InterviewRecord {
	const i = ctx.store.interviews[id];
	if (!i || i.workspaceId !== ws.id) throw notFound('Interview');
	return i;
}

export function resend(
	ctx: Ctx,
	ws: Workspace,
	id: string,
): { interviewId: string; deliveryId: string } {
	const i = ownInterview(ctx, ws, id);
	if (i.lifecycle !== 'invited') {
		throw conflict(
			'INTERVIEW_NOT_ELIGIBLE',
			`Only a pending invitation can be resent; this interview is ${i.lifecycle}.`,
		);
	}
	if (!i.sendEmail)
		throw conflict(
			'INTERVIEW_NOT_ELIGIBLE',
			'This invitation is delivered by private link, not email.',
		);
	const deliveryId = queueEmail(ctx, ws, i);
	return { interviewId: i.id, deliveryId };
}

/** Invitation expiry (sandbox clock): a pending invitation past expiresAt becomes expired. */
export function sweepInterviews(ctx: Ctx, workspaceId: string): void {
	const now = ctx.clock.now();
	for (const i of Object.values(ctx.store.interviews)) {
		if (i.workspaceId === workspaceId && i.lifecycle === 'invited' && i.expiresAt <= now) {
			i.lifecycle = 'expired';
			emit(ctx, i, 'interview.expired');
		}
	}
}

const outOfOrder = (i: InterviewRecord, type: string) =>
	new ApiError(
		409,
		`${type} cannot be applied now (lifecycle ${i.lifecycle}, preparation ${i.preparation}, evaluation ${i.evaluation}, emailDelivery ${i.emailDelivery}).`,
		'CONTROL_OUT_OF_ORDER',
	);

/** Sandbox interview controls: started -> completed -> result_ready in order, plus the failure axes. */
export function applyControl(ctx: Ctx, i: InterviewRecord, type: string): InterviewRecord {
	const now = ctx.clock.now();
	switch (type) {
		case 'interview.started':
			if (i.lifecycle !== 'invited' || i.preparation !== 'ready') throw outOfOrder(i, type);
			i.lifecycle = 'in_progress';
			i.startedAt = now;
			break;
		case 'interview.completed':
			if (i.lifecycle !== 'in_progress') throw outOfOrder(i, type);
			i.lifecycle = 'completed';
			i.completedAt = now;
			i.evaluation = 'processing';
			break;
		case 'interview.result_ready':
			if (i.lifecycle !== 'completed' || i.evaluation !== 'processing') throw outOfOrder(i, type);
			i.evaluation = 'ready';
			i.result = interviewResult(i.id);
			i.resultRevision = sha256Hex(`${i.id}:${now}`);
			break;
		case 'interview.result_failed':
			if (i.lifecycle !== 'completed' || i.evaluation !== 'processing') throw outOfOrder(i, type);
			i.evaluation = 'failed';
			break;
		case 'interview.preparation_failed':
			if (i.preparation === 'failed' || i.lifecycle === 'completed' || i.lifecycle === 'superseded')
				throw outOfOrder(i, type);
			i.preparation = 'failed';
			break;
		case 'interview.expired':
			if (i.lifecycle !== 'invited') throw outOfOrder(i, type);
			i.lifecycle = 'expired';
			break;
		case 'interview.invitation_failed': {
			if (i.emailDelivery !== 'queued' || i.pendingDeliveries.length === 0)
				throw outOfOrder(i, type);
			for (const d of i.pendingDeliveries) {
				const m = ctx.store.mail[i.workspaceId]?.find((x) => x.deliveryId === d);
				if (m) m.state = 'failed';
			}
			i.pendingDeliveries = [];
			i.emailDelivery = 'failed';
			break;
		}
		default:
			throw new ApiError(400, `Unknown interview control ${type}.`, 'VALIDATION_FAILED', {
				details: [{ field: 'type', rule: 'enum' }],
			});
	}
	ctx.markDirty();
	emit(ctx, i, type);
	return i;
}
