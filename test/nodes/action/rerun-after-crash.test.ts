/**
 * A re-run's output tells the truth about earlier writes (actions/common/chargedBatch.ts): Invite Many whose
 * process lost every answer after its batch was created (as a killed worker does: the execution, its outputs and its
 * total are gone) made 7 of 12 invitations (its Spending Limit held back 5). Run again as a new execution, the 7 come
 * back `recovered: true` with the interview each has (as the interview list of its report shows), the 5 are invited,
 * and nothing is invited or emailed twice.
 */
import type { IDataObject } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	apiCall,
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	runNode,
	sleep,
} from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

describe('a re-run after a crashed Invite Many', () => {
	it.each([
		['with room for all 12', 30],
		['under the same limit (the 7 recovered count nothing, so the 5 fit)', 17.5],
	])(
		'says who was already invited (recovered, with the interview id) and invites only the rest: a re-run %s',
		async (_label, rerunLimit) => {
			const ws = await newWorkspace(sandbox.baseUrl);
			const reportIds: string[] = [];
			for (let i = 0; i < 12; i++)
				reportIds.push(await completedReport(ws, { candidate: `Crashed ${i}` }));
			const items = reportIds.map((reportId, i) => ({
				json: { reportId, email: `crashed.${i}@example.com` },
			}));
			const inviteMany = (spendingLimit: number) => ({
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.reportId }}',
				candidateEmail: '={{ $json.email }}',
				spendingLimit,
			});
			const before = await counters(ws);
			// Every answer of the batch's creation is lost after the API committed it: the run ends in an error, and
			// nothing of what it learnt survives it.
			await sandbox.control.setFaults({
				rules: [
					{ method: 'POST', path: '/api/v1/interview-batches', mode: 'commit-then-drop', rate: 1 },
				],
			});
			// 7 invitations at 2.5 credits fit a limit of 17.5: the batch holds 7 of the 12.
			const crashed = await runNode(ws, inviteMany(17.5), items, { executionId: 'crashed-run' });
			expect(crashed.error).toBeDefined();
			await sandbox.control.clearFaults();
			await sleep(300);
			const afterCrash = await counters(ws);
			expect(afterCrash.interviewsCreated - before.interviewsCreated).toBe(7);
			expect(afterCrash.emailsSent - before.emailsSent).toBe(7);

			// The recruiter runs the workflow again (a new execution).
			const rerun = jsonOf(
				await runNode(ws, inviteMany(rerunLimit), items, {
					executionId: `rerun-${rerunLimit}`,
					continueOnFail: true,
				}),
			);
			expect(rerun).toHaveLength(12);
			const listedIds: unknown[] = [];
			for (const reportId of reportIds) {
				const listed = await apiCall(
					ws,
					'GET',
					`/api/v1/interviews?reportId=${encodeURIComponent(reportId)}`,
				);
				const interviews = (listed.body as { data: { items: IDataObject[] } }).data.items;
				expect(interviews).toHaveLength(1);
				listedIds.push(interviews[0].id);
			}
			expect(rerun.map((o) => [o.reportId, o.interviewId])).toEqual(
				reportIds.map((reportId, i) => [reportId, listedIds[i]]),
			);
			expect(rerun.filter((o) => o.error !== undefined)).toEqual([]);
			// The 7 the crashed run invited: recovered, not charged again; the 5 others: invited now.
			expect(rerun.map((o) => [o.recovered ?? false, o.creditsUsed ?? 0])).toEqual([
				...Array(7).fill([true, 0]),
				...Array(5).fill([false, 2.5]),
			]);
			expect(rerun.slice(7).map((o) => [o.state, o.errorCode])).toEqual(
				Array(5).fill(['succeeded', null]),
			);
			await sleep(300);
			const end = await counters(ws);
			expect(end.interviewsCreated - before.interviewsCreated).toBe(12);
			expect(end.emailsSent - before.emailsSent).toBe(12);
		},
		120_000,
	);
});
