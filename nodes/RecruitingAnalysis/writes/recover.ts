// An answer that says the write exists is read back and output as a recovered success, never charged again.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api, apiErrorConditions, outcomeOf } from '../transport';
import { explainsRefusal, type WriteRun } from './spending';

const EXISTS_CONDITIONS = [
	'ALREADY_ADMITTED',
	'ANALYSIS_ALREADY_STARTED',
	'IDEMPOTENCY_KEY_REUSED',
	'EXTERNAL_REFERENCE_CONFLICT',
];

export function existsCondition(errorOrCode: unknown): string | undefined {
	const found = typeof errorOrCode === 'string' ? [errorOrCode] : apiErrorConditions(errorOrCode);
	return EXISTS_CONDITIONS.find((condition) => found.includes(condition));
}

export type ExistingWrite =
	| { kind: 'analysis'; reportId: string }
	| { kind: 'invitation'; reportId: string; sendEmail: boolean; previousInterviewId?: string };

const recoveredReport = (reportId: IDataObject[string], report: IDataObject, from: string) => ({
	reportId,
	attemptId: report.attemptId ?? null,
	status: report.status,
	code: report.code ?? null,
	recovered: true,
	recoveredFrom: from,
});

async function interviewsOf(ctx: IExecuteFunctions, itemIndex: number, reportId: string) {
	const page = await api(ctx, {
		method: 'GET',
		path: '/api/v1/interviews',
		qs: { reportId, limit: 100 },
		itemIndex,
	});
	return (Array.isArray(page.items) ? page.items : []) as IDataObject[];
}

export function tokenUnavailable(interviewId: unknown): string {
	return (
		`The invitation ${String(interviewId)} exists, but its private link token was returned only once, in the answer that was lost; ` +
		'the API cannot show it again. To give the candidate a new link, run Interview > Reinterview on this interview with Delivery "Private Link" ' +
		'(a new attempt with a new token; it uses interview allowance and the old link stops working).'
	);
}

// Throws the original answer when nothing matching exists, so a conflict that is not ours is never hidden.
export async function recoverWrite(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	write: ExistingWrite,
	from: string,
	error?: unknown,
): Promise<IDataObject> {
	if (write.kind === 'analysis') {
		const status = await api(ctx, {
			method: 'GET',
			path: apiPath('/api/v1/reports/{}/status', write.reportId),
			itemIndex,
		});
		// A key used before for another report or quote leaves this report without an analysis: nothing was started.
		if (status.attemptId === null || status.attemptId === undefined) {
			const cause =
				from === 'IDEMPOTENCY_KEY_REUSED'
					? 'The API refused the start because its Idempotency-Key was already used for a different request (another report or another quote). '
					: `The API answered ${from}. `;
			const none = new NodeOperationError(
				ctx.getNode(),
				`Report ${write.reportId} has no analysis to recover`,
				{
					itemIndex,
					description:
						`${cause}Report ${write.reportId} has no analysis attempt, so nothing was started or charged for it. ` +
						'If you set Options > Idempotency Key, give each report its own key (for example the application ID), or leave the option empty so the node names each write itself; then run again.',
				},
			);
			throw Object.assign(none, { nothingToRecover: true });
		}
		if (status.status === 'failed') run.addNotice('failedReport');
		return recoveredReport(write.reportId, status, from);
	}
	const current = invitationOf(
		await interviewsOf(ctx, itemIndex, write.reportId),
		write.previousInterviewId,
	);
	if (!current) {
		const none = new Error(`No interview of report ${write.reportId} to recover`);
		throw error ?? Object.assign(none, { nothingToRecover: true });
	}
	const wanted = write.sendEmail ? 'email' : 'privateLink';
	const delivery = deliveryOf(current);
	const sameReport = current.reportId === undefined || current.reportId === write.reportId;
	if (!sameReport || (delivery !== undefined && delivery !== wanted)) {
		const what = sameReport
			? `delivered by ${delivery === 'email' ? 'email' : 'private link'}`
			: `of report ${String(current.reportId)}`;
		throw new NodeOperationError(
			ctx.getNode(),
			`An invitation exists under this write's key, but it is not the one asked for`,
			{
				itemIndex,
				description:
					`Interview ${String(current.id)} exists, ${what}; this item asks for report ${write.reportId} by ${write.sendEmail ? 'email' : 'private link'}. ` +
					'Nothing was sent. To invite again with other details, run Interview > Reinterview on that interview (a new attempt: it uses interview allowance).',
			},
		);
	}
	const output: IDataObject = {
		interviewId: current.id,
		reportId: current.reportId,
		statusUrl: `/api/v1/interviews/${encodeURIComponent(String(current.id))}/status`,
		emailDelivery: current.emailDelivery,
		lifecycle: current.lifecycle,
		delivery: wanted,
	};
	if (write.previousInterviewId) output.previousInterviewId = write.previousInterviewId;
	if (!write.sendEmail) {
		output.invitationToken = null;
		output.invitationTokenUnavailable = tokenUnavailable(current.id);
	}
	return { ...output, recovered: true, recoveredFrom: from };
}

// An upload's recovery shows no notice, so the upload module needs no run (actions/upload/resumeUpload.ts).
export async function recoverUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: { externalReference: { source: string; id: string }; jobDescription: IDataObject },
	from: string,
	error?: unknown,
): Promise<IDataObject> {
	const page = await api(ctx, {
		method: 'GET',
		path: '/api/v1/reports',
		qs: {
			externalReferenceSource: write.externalReference.source,
			externalReferenceId: write.externalReference.id,
			include: 'reference',
			limit: 1,
		},
		itemIndex,
	});
	const report = ((Array.isArray(page.items) ? page.items : []) as IDataObject[])[0];
	const job = (report?.jobDescription ?? {}) as IDataObject;
	const wanted = write.jobDescription;
	// The same application for the same job: a saved job by its id; inline text has no id to compare (null).
	const sameJob =
		wanted.kind === 'existing' ? job.id === wanted.id : job.id === null || job.id === undefined;
	if (!report || !sameJob)
		throw error ?? new Error('No report of this external reference to recover');
	return recoveredReport(report.id, report, from);
}

export async function withRecovery(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	write: ExistingWrite,
	attempt: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const outcome = await outcomeOf(attempt);
	if (outcome.ok) return outcome.value;
	const from = existsCondition(outcome.error);
	if (!from) throw outcome.error;
	return await recoverWrite(ctx, run, itemIndex, write, from, outcome.error);
}

// An Invite run again after an Invite and a Reinterview gets its own invitation back, not the reinterview.
export function invitationOf(interviews: IDataObject[], previousInterviewId?: string) {
	const sorted = [...interviews].sort((a, b) =>
		String(a.createdAt).localeCompare(String(b.createdAt)),
	);
	if (previousInterviewId !== undefined) {
		const at = sorted.findIndex((interview) => interview.id === previousInterviewId);
		if (at < 0 || sorted[at].lifecycle !== 'superseded') return undefined;
		return sorted[at + 1];
	}
	const invites = sorted.filter(
		(_interview, k) => k === 0 || sorted[k - 1].lifecycle !== 'superseded',
	);
	return invites[invites.length - 1];
}

function deliveryOf(interview: IDataObject): 'email' | 'privateLink' | undefined {
	if (typeof interview.emailDelivery !== 'string') return undefined;
	return interview.emailDelivery === 'not_requested' ? 'privateLink' : 'email';
}

export function isNothingToRecover(error: unknown): boolean {
	return (error as { nothingToRecover?: unknown } | null | undefined)?.nothingToRecover === true;
}

export async function existingInvitation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: { reportId: string; previousInterviewId?: string },
): Promise<IDataObject | undefined> {
	const interviews = await interviewsOf(ctx, itemIndex, write.reportId).catch(() => undefined);
	return interviews ? invitationOf(interviews, write.previousInterviewId) : undefined;
}

// The API never shows an invitation's address: an existing interview is never output as this item's.
export async function explainExistingInvitation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: { reportId: string; previousInterviewId?: string },
	error: unknown,
): Promise<unknown> {
	if (!apiErrorConditions(error).includes('INTERVIEW_NOT_ELIGIBLE')) return error;
	const existing = await existingInvitation(ctx, itemIndex, write);
	if (!existing) return error;
	const delivery = deliveryOf(existing) === 'privateLink' ? 'by private link' : 'by email';
	const what = write.previousInterviewId
		? `Interview ${write.previousInterviewId} was already replaced by reinterview ${String(existing.id)}`
		: `Report ${write.reportId} already has interview ${String(existing.id)}`;
	// The API refused the invitation: the Spending Limit's ledger counts nothing for it (spending.ts wasRefused).
	return explainsRefusal(
		new NodeOperationError(
			ctx.getNode(),
			`${what} (${delivery}, ${String(existing.lifecycle)}); nothing was sent`,
			{
				itemIndex,
				description:
					`The API never shows an invitation's address, so the node cannot tell whether interview ${String(existing.id)} is this item's invitation ` +
					'(a re-run after the service forgot its receipt) or one to another address. Nothing was sent or charged. ' +
					`If it is the same candidate and address, nothing more is needed. To reach another address, run Interview > Reinterview on ${String(existing.id)} with it.`,
			},
		),
	);
}
