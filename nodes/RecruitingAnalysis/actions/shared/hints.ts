import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Warnings the spec asks users to keep in mind, shown once per execution in the output pane
 * (many items produce the same notice; it is added only once).
 */
export const NOTICES = {
	emailSent:
		'"emailDelivery": "sent" means the mail provider accepted the email, not that it reached the inbox. A 202 on resend means queued, not delivered.',
	completedNotEvaluated:
		'A "completed" interview lifecycle does not mean the evaluation is ready: check the "evaluation" field (or wait for interview.result_ready).',
	nullUnmeasured: 'A null score or measurement means unmeasured, not zero. Read "limitations" before showing a score.',
	requiresAction:
		'A report with status "requires_action" needs a human review in the application. Do not resubmit it to bypass the review.',
	failedReport:
		'A "failed" report needs a deliberate new attempt: inspect "code", then run Start with Options > New Attempt Label set (a new key and a current quote). Running again without a label gives the failed attempt back.',
	invitationToken:
		'The output contains "invitationToken", a private bearer credential for the candidate. Deliver it as a link at /interview/{token} on the application origin and do not log it.',
	batchCompleted:
		'A batch status "completed" means every item reached a terminal state, not that every item succeeded: check each item\'s "state" and "errorCode".',
	quoteNotBinding: 'A quote reserves no capacity or allowance; admission can still fail with 422 when capacity or allowance is short.',
} as const;

export type NoticeName = keyof typeof NOTICES;

const shown = new WeakMap<object, Set<NoticeName>>();

export function addNotice(ctx: IExecuteFunctions, name: NoticeName): void {
	let set = shown.get(ctx);
	if (!set) {
		set = new Set();
		shown.set(ctx, set);
	}
	if (set.has(name)) return;
	set.add(name);
	const type = name === 'requiresAction' || name === 'invitationToken' ? 'warning' : 'info';
	if (typeof ctx.addExecutionHints === 'function') {
		ctx.addExecutionHints({ message: NOTICES[name], type, location: 'outputPane' });
	}
}

/** Report status / summary / result: attach the notices that apply to what the API returned. */
export function noticesForReport(ctx: IExecuteFunctions, report: { status?: unknown; result?: unknown }): void {
	if (report.status === 'requires_action') addNotice(ctx, 'requiresAction');
	if (report.status === 'failed') addNotice(ctx, 'failedReport');
	if (report.result === null || hasNullScore(report.result)) addNotice(ctx, 'nullUnmeasured');
}

function hasNullScore(result: unknown): boolean {
	return typeof result === 'object' && result !== null && 'score' in result && (result as { score: unknown }).score === null;
}

/** Interview objects: emailDelivery "sent" and lifecycle "completed" with an evaluation not yet ready. */
export function noticesForInterview(ctx: IExecuteFunctions, interview: Record<string, unknown>): void {
	if (interview.emailDelivery === 'sent') addNotice(ctx, 'emailSent');
	if (interview.lifecycle === 'completed' && interview.evaluation !== 'ready') addNotice(ctx, 'completedNotEvaluated');
	if ('result' in interview && interview.result === null) addNotice(ctx, 'nullUnmeasured');
}
