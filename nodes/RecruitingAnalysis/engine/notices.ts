// What the output pane tells the user, each notice once per node run (engine/run.ts keeps which were shown).
export const NOTICES = {
	emailSent:
		'"emailDelivery": "sent" means the mail provider accepted the email, not that it reached the inbox.',
	emailQueued:
		'"emailDelivery": "queued" means the service will email the invitation: it is not sent yet. Interview > Get Status shows when it is "sent" (accepted by the mail provider, which does not prove it reached the inbox).',
	invitationsQueued:
		'An item with state "succeeded" is an invitation whose email is queued, not yet sent: Interview > Get Status shows "emailDelivery" ("sent" means accepted by the mail provider).',
	resendQueued:
		'A resend is queued, not delivered: Interview > Get Status shows "emailDelivery". Each execution that runs Resend sends one more email (a reminder); a retry within the execution, or n8n\'s Retry of a failed one, never sends it twice.',
	completedNotEvaluated:
		'A "completed" interview lifecycle does not mean the evaluation is ready: check the "evaluation" field (or wait for interview.result_ready).',
	nullUnmeasured:
		'A null score or measurement means unmeasured, not zero. Read "limitations" before showing a score.',
	nullUnmeasuredSummary:
		'A null score means unmeasured, not zero. The score scale and the limitations to read before showing a score are in the report result (Report > Get Result).',
	reportsNotReadable:
		'The analyses ran, but the API key lacks the reports:read scope, so their reports could not be read: name, score and status are null. Give the key reports:read and read them with Report > Get (by reportId), or turn Simplify off.',
	candidateNameNoScope:
		'"candidateName" is null on some items: the API key lacks the reports:read scope, so the report that holds the candidate\'s name could not be read (the items themselves succeeded). Give the key reports:read, or pass the item from Analyze Resume / Analyze Many / Report > Get, which carries the name.',
	candidateNameNotRead:
		'"candidateName" is null on some items: the report that holds the candidate\'s name could not be read (deleted, or the API did not answer); the items themselves succeeded. Report > Get by "reportId" reads it.',
	recovered:
		'Items with "recovered": true were done before (a retry or a re-run on the same input): the same file, report or address was recognised and read back, not charged or emailed again.',
	requiresAction:
		'A report with status "requires_action" needs a human review in the application. Do not resubmit it to bypass the review.',
	failedReport:
		'A "failed" report needs a deliberate new attempt: inspect "code", then run Start with Options > New Attempt Label set (a new key and a current quote). Running again without a label gives the failed attempt back.',
	invitationToken:
		'The output contains "invitationToken", a private bearer credential for the candidate. Deliver it as a link at /interview/{token} on the application origin and do not log it.',
	batchCompleted:
		'A batch status "completed" means every item reached a terminal state, not that every item succeeded: check each item\'s "state" (in a simplified item: "analysisState" beside the report\'s "status") and "errorCode".',
	quoteNotBinding:
		'A quote reserves no capacity or allowance; admission can still fail with 422 when capacity or allowance is short.',
	noScoreWithoutWaiting:
		'These items have no score yet: without Options > Wait for Completion the node outputs as soon as each analysis has started. A Filter or IF on "score" after it drops every item. Turn on Wait for Completion, or read the score later (Report > Get, or the report.result_ready webhook).',
	slowBatches:
		'Each analysis batch took seconds, and only one analysis batch (at most 20 resumes) runs at a time. For more than 20 resumes, Analysis > Analyze Resume with Wait for Completion runs as many analyses at once as the workspace allows and is usually much faster, for more calls (with Simplify about 4.3 per resume instead of 2.3).',
} as const;

export type NoticeName = keyof typeof NOTICES;
// Structural: engine/run.ts imports this file, and lint:circles forbids a circle even of types.
type NoticeRun = { addNotice(name: NoticeName): void };

export function noticesForReport(
	run: NoticeRun,
	report: { status?: unknown; result?: unknown; score?: unknown },
	output: { limitations: boolean } = { limitations: false },
): void {
	if (report.status === 'requires_action') run.addNotice('requiresAction');
	if (report.status === 'failed') run.addNotice('failedReport');
	const unmeasured =
		report.result === null ||
		(report.result as { score?: unknown } | undefined)?.score === null ||
		('score' in report && report.score === null);
	if (unmeasured) run.addNotice(output.limitations ? 'nullUnmeasured' : 'nullUnmeasuredSummary');
}

export function noticesForInterview(run: NoticeRun, interview: Record<string, unknown>): void {
	if (interview.emailDelivery === 'queued') run.addNotice('emailQueued');
	if (interview.emailDelivery === 'sent') run.addNotice('emailSent');
	if (interview.lifecycle === 'completed' && interview.evaluation !== 'ready')
		run.addNotice('completedNotEvaluated');
	if ('result' in interview && interview.result === null) run.addNotice('nullUnmeasured');
}
