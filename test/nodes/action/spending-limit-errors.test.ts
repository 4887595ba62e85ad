/**
 * A charge counts from the moment it may have happened (writes/spending.ts countBatch): a batch that was created
 * counts against the Spending Limit in the total saved with the execution before it is awaited, so a wait that
 * times out, a batch read that fails or Continue On Fail leave the node with those credits counted; the next write
 * of the execution (after a Wait, or in n8n's Retry, both of which start from the saved total) is refused when it
 * would pass the limit. Only the batch's answer gives back what it did not charge.
 */
import type { IContextObject } from 'n8n-workflow';

import { SPENT_FIELD } from '../../../nodes/RecruitingAnalysis/writes/spending';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import type { ExecuteNodeResult } from '../../helpers/engine/execute-node';
import {
	analyzeManyParams,
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfFiles,
	runNode,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

/** The execution's context as n8n saves it with the execution (JSON) and restores it for a Wait's resume or a Retry. */
function savedContext(result: ExecuteNodeResult): Record<string, IContextObject> {
	return JSON.parse(JSON.stringify(result.run.data.executionData?.contextData ?? {})) as Record<
		string,
		IContextObject
	>;
}

const savedTotal = (result: ExecuteNodeResult) =>
	Number((savedContext(result).flow ?? {})[SPENT_FIELD] ?? 0);

/** An Invite at the sandbox's price (2.5 credits) in the same execution, resumed from `after`'s saved data. */
async function inviteAfter(ws: Workspace, after: ExecuteNodeResult, limit: number) {
	const reportId = await completedReport(ws, { candidate: 'Invited Next' });
	const before = await counters(ws);
	const result = await runNode(
		ws,
		{
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: 'next@example.com',
			spendingLimit: limit,
		},
		[{ json: {} }],
		{ contextData: savedContext(after), executionId: after.executionId },
	);
	const after2 = await counters(ws);
	return {
		result,
		interviews: after2.interviewsCreated - before.interviewsCreated,
		emails: after2.emailsSent - before.emailsSent,
	};
}

describe('a created batch counts against the Spending Limit before any error leaves the node', () => {
	it('Analyze Many (limit 5, 4 files) whose wait reaches the Batch Timeout saves 4 credits; the next Invite is refused, and a Retry counts nothing twice', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Analyses that take 4 s, awaited for at most 1 s.
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisDurationMs: 4000 });
		const params = analyzeManyParams(ws, { spendingLimit: 5, batchTimeout: 1 });
		const items = pdfFiles(4, 'Timed Out');
		const failed = await runNode(ws, params, items);
		expect(failed.error?.message).toContain('did not complete within 1 seconds');
		expect((await counters(ws)).attemptsCreated).toBe(4);
		expect(savedTotal(failed)).toBe(4);

		const next = await inviteAfter(ws, failed, 5);
		expect(next.result.error?.message).toContain('Spending Limit of 5 credits reached');
		expect(next.result.error?.message).toContain('and 4 were already spent');
		expect([next.interviews, next.emails]).toEqual([0, 0]);

		// n8n's Retry of the failed execution once the analyses have finished: they were counted by the failed run.
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisDurationMs: 0 });
		await new Promise((resolve) => setTimeout(resolve, 4500));
		const beforeRetry = await counters(ws);
		const retried = await runNode(ws, params, items, { retryOf: failed });
		const out = jsonOf(retried);
		// Each analysis is read back (recovered), not started again and not counted again.
		expect(out.map((o) => [o.status, o.recovered])).toEqual(Array(4).fill(['completed', true]));
		expect((await counters(ws)).attemptsCreated).toBe(beforeRetry.attemptsCreated);
		expect(savedTotal(retried)).toBe(4);
	}, 60_000);

	it('Analyze Many whose batch read answers 503 saves the credits of the created batch', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'GET',
					path: '/api/v1/analysis-batches/{id}',
					status: 503,
					rate: 1,
					mode: 'before',
				},
			],
		});
		const failed = await runNode(
			ws,
			analyzeManyParams(ws, { spendingLimit: 5 }),
			pdfFiles(4, 'Read 503'),
		);
		expect(failed.error).toBeDefined();
		await sandbox.control.clearFaults();
		expect((await counters(ws)).attemptsCreated).toBe(4);
		expect(savedTotal(failed)).toBe(4);
		const next = await inviteAfter(ws, failed, 5);
		expect(next.result.error?.message).toContain('Spending Limit of 5 credits reached');
		expect([next.interviews, next.emails]).toEqual([0, 0]);
	}, 60_000);

	it('with Continue On Fail, a batch whose wait fails becomes error items and its credits stay counted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisDurationMs: 4000 });
		const failed = await runNode(
			ws,
			analyzeManyParams(ws, { spendingLimit: 5, batchTimeout: 1 }),
			pdfFiles(4, 'Continue'),
			{ continueOnFail: true },
		);
		const out = failed.output[0] ?? [];
		expect(out).toHaveLength(4);
		expect(out.every((item) => String(item.json.error ?? '').includes('did not complete'))).toBe(
			true,
		);
		expect(savedTotal(failed)).toBe(4);
		const next = await inviteAfter(ws, failed, 5);
		expect(next.result.error?.message).toContain('Spending Limit of 5 credits reached');
		expect([next.interviews, next.emails]).toEqual([0, 0]);
	}, 60_000);

	it('Invite Many (limit 10) whose batch read answers 503 saves 8 when the sandbox charged 8', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Interviews at 2 credits: four invitations are 8 credits, within the limit of 10.
		await sandbox.control.patchWorkspace(ws.workspaceId, { interviewCreditUnits: 200 });
		const reportIds: string[] = [];
		for (let i = 0; i < 4; i++)
			reportIds.push(await completedReport(ws, { candidate: `Many ${i}` }));
		const before = await counters(ws);
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'GET',
					path: '/api/v1/interview-batches/{id}',
					status: 503,
					rate: 1,
					mode: 'before',
				},
			],
		});
		const failed = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.reportId }}',
				candidateEmail: '={{ $json.email }}',
				spendingLimit: 10,
			},
			reportIds.map((reportId, i) => ({ json: { reportId, email: `many.${i}@example.com` } })),
		);
		expect(failed.error).toBeDefined();
		await sandbox.control.clearFaults();
		const after = await counters(ws);
		const charged = (after.interviewsCreated - before.interviewsCreated) * 2;
		expect(charged).toBe(8);
		expect(savedTotal(failed)).toBe(charged);
	}, 60_000);
});
