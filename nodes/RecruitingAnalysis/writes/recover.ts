/**
 * One way to recover a write that already happened, for item and batch operations alike. Every answer that means
 * "this write exists" — ALREADY_ADMITTED (the file of an admitted analysis is frozen), ANALYSIS_ALREADY_STARTED,
 * IDEMPOTENCY_KEY_REUSED (an earlier attempt under this key committed, its answer was lost, and the repeat carries a
 * fresh quote), EXTERNAL_REFERENCE_CONFLICT for the same application and job — is answered by reading the existing
 * state back and outputting it as a success, marked `recovered: true` with `recoveredFrom` (the condition).
 * The sandbox sends these in `error.reason` with the generic `error.code` (CONFLICT); the spec leaves the placement
 * open, so both are read (errors.ts). A batch item carries the same names in its `errorCode`.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../transport';
import { api } from '../transport/api';
import { apiErrorConditions, outcomeOf } from '../transport/conditions';
import { addNotice } from '../actions/common/notices';

/** The answers that mean "this write exists". */
export const EXISTS_CONDITIONS = ['ALREADY_ADMITTED', 'ANALYSIS_ALREADY_STARTED', 'IDEMPOTENCY_KEY_REUSED', 'EXTERNAL_REFERENCE_CONFLICT'] as const;
export type ExistsCondition = (typeof EXISTS_CONDITIONS)[number];

/** The condition of an error (or a batch item's errorCode) that means the write exists, if any. */
export function existsCondition(errorOrCode: unknown): ExistsCondition | undefined {
	const found = typeof errorOrCode === 'string' ? [errorOrCode] : apiErrorConditions(errorOrCode);
	return EXISTS_CONDITIONS.find((condition) => found.includes(condition));
}

/** The write to read back: an analysis of a report, an invitation of a report, or an upload by its application. */
export type ExistingWrite =
	| { kind: 'analysis'; reportId: string }
	| { kind: 'invitation'; reportId: string; sendEmail: boolean; previousInterviewId?: string }
	| { kind: 'upload'; externalReference: { source: string; id: string }; jobDescription: IDataObject };

/** Why a recovered private-link invitation has no link, and how to get one. */
export function tokenUnavailable(interviewId: unknown): string {
	return (
		`The invitation ${String(interviewId)} exists, but its private link token was returned only once, in the answer that was lost; ` +
		'the API cannot show it again. To give the candidate a new link, run Interview > Reinterview on this interview with Delivery "Private Link" ' +
		'(a new attempt with a new token; it uses interview allowance and the old link stops working).'
	);
}

/**
 * Reads the existing write back and returns it as a recovered success. Throws `error` (the original answer) when
 * nothing matching exists, so a conflict that is not ours is never hidden.
 */
export async function recoverWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: ExistingWrite,
	from: string,
	error?: unknown,
): Promise<IDataObject> {
	const marked = (found: IDataObject): IDataObject => ({ ...found, recovered: true, recoveredFrom: from });
	if (write.kind === 'analysis') {
		const status = await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}/status', write.reportId), itemIndex });
		if (status.status === 'failed') addNotice(ctx, 'failedReport');
		return marked({ reportId: write.reportId, attemptId: status.attemptId ?? null, status: status.status, code: status.code ?? null });
	}
	if (write.kind === 'invitation') {
		const page = await api(ctx, { method: 'GET', path: '/api/v1/interviews', qs: { reportId: write.reportId, limit: 100 }, itemIndex });
		const items = (Array.isArray(page.items) ? page.items : []) as IDataObject[];
		const current = items
			.filter((interview) => interview.lifecycle !== 'superseded' && interview.id !== write.previousInterviewId)
			.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];
		if (!current) throw error ?? new Error(`No interview of report ${write.reportId} to recover`);
		const output: IDataObject = {
			interviewId: current.id,
			reportId: current.reportId,
			statusUrl: `/api/v1/interviews/${encodeURIComponent(String(current.id))}/status`,
			emailDelivery: current.emailDelivery,
			lifecycle: current.lifecycle,
			delivery: write.sendEmail ? 'email' : 'privateLink',
		};
		if (write.previousInterviewId) output.previousInterviewId = write.previousInterviewId;
		if (!write.sendEmail) {
			output.invitationToken = null;
			output.invitationTokenUnavailable = tokenUnavailable(current.id);
		}
		return marked(output);
	}
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
	const sameJob = wanted.kind === 'existing' ? job.id === wanted.id : job.id === null || job.id === undefined;
	if (!report || !sameJob) throw error ?? new Error('No report of this external reference to recover');
	return marked({ reportId: report.id, attemptId: report.attemptId ?? null, status: report.status, code: report.code ?? null });
}

/**
 * Runs a write; when its answer means the write exists, reads it back instead (recoverWrite). Any other error
 * propagates unchanged.
 */
export async function withRecovery(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: ExistingWrite,
	run: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const outcome = await outcomeOf(run);
	if (outcome.ok) return outcome.value;
	const from = existsCondition(outcome.error);
	if (!from) throw outcome.error;
	return await recoverWrite(ctx, itemIndex, write, from, outcome.error);
}
