/**
 * F9-failed-wait: a charged batch whose wait fails, then n8n's Retry (docs/idempotency.md "Where the Spending Limit
 * lives": a charge counts from the moment it may have happened). In a real n8n (our tarball installed as a community
 * package):
 *
 *   Manual Trigger → Input (Code: 4 resumes) → Analyze Many (Spending Limit L) → Invite (the first report; L)
 *
 * The Analyze Many batch is created and charged (4 analyses at 1 credit), then its wait fails: the Batch Timeout is
 * reached (analyses that take longer than it), or every read of the batch answers 503. The execution fails at Analyze
 * Many; once the analyses have finished, the user presses Retry. The Retry runs Analyze Many again (its 4 analyses
 * are read back, not charged again) and then the Invite (2.5 credits): under a limit of 5 it must be refused (4 + 2.5
 * would pass it), under the control's 6.5 it is sent. Measured with the sandbox's counters and mail sink. A last case
 * reads the total n8n saved with a failed Invite Many whose batch reads answered 503.
 */
import { FigureBook, type FigureValue } from './figures';
import { caseWorkspace, formatWrites, minus, retryExecution } from './f8-harness';
import {
	analyzeThenInvite,
	batchReadsFail,
	failBatchWait,
	letBatchFinish,
	completedReports,
	inviteManyWorkflow,
	recruiterCredential,
	savedSpending,
	type Credential,
} from './f9-harness';
import { nodeOutput } from '../../scripts/n8n-host';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-failed-wait' : `F9-failed-wait-n8n${line}`,
	`The Spending Limit after a charged batch whose wait failed, then Retry (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const log = (text: string) => process.stderr.write(`[F9-failed-wait] ${text}\n`);

let env: RealN8n;
let credential: Credential;

beforeAll(async () => {
	env = await bootRealN8n('faults-f9-failed-wait');
}, 600_000);

afterAll(async () => {
	book.table('executions', rows);
	book.save();
	await env?.close();
}, 120_000);

interface WaitCase {
	id: string;
	what: string;
	limit: number;
	/** How the wait fails: analyses longer than the Batch Timeout, or every batch read answering 503. */
	failure: 'timeout' | 'read503';
	invited: boolean;
}

const CASES: WaitCase[] = [
	{
		id: '1',
		what: 'limit 5, the wait reaches the Batch Timeout, then Retry',
		limit: 5,
		failure: 'timeout',
		invited: false,
	},
	{
		id: '2',
		what: 'limit 5, every batch read answers 503, then Retry',
		limit: 5,
		failure: 'read503',
		invited: false,
	},
	{
		id: '3',
		what: 'control, limit 6.5, the wait reaches the Batch Timeout, then Retry',
		limit: 6.5,
		failure: 'timeout',
		invited: true,
	},
];

describe('F9-failed-wait: a charged batch whose wait failed counts in the total a Retry starts from', () => {
	for (const c of CASES) {
		it(`${c.id} ${c.what}: ${c.invited ? 'the invitation fits and is sent' : 'the invitation is refused, no interview, no email'}`, async () => {
			const w = await caseWorkspace(env.sandbox.baseUrl);
			credential = await recruiterCredential(env, w, `F9-failed-wait ${c.id}`);
			await failBatchWait(w, c.failure);
			const before = await w.writes();
			const { id } = await env.n8n.createWorkflow(
				analyzeThenInvite({
					credential,
					jobDescriptionId: w.ws.jobDescriptionId,
					name: `F9-failed-wait case${c.id}`,
					tag: `case${c.id}`,
					limit: c.limit,
					email: `f9-failed-wait-case${c.id}@example.com`,
				}),
			);
			const failed = await env.n8n.finishedExecution(await env.n8n.startManualRun(id));
			const atFailure = minus(await w.writes(), before);
			await letBatchFinish(w, c.failure);
			const retry = await retryExecution(env.n8n, failed.id, false);
			if (!retry.id) throw new Error(`Retry refused: ${String(retry.refused)}`);
			const retried = await env.n8n.finishedExecution(retry.id);
			const afterRetry = minus(await w.writes(), before);
			const [invited] = nodeOutput(retried.data, 'Invite');
			const analysed = nodeOutput(retried.data, 'Analyze Many');
			const error = typeof invited?.error === 'string' ? invited.error : '';
			const description = typeof invited?.description === 'string' ? invited.description : '';
			log(
				`${c.id}: failed ${failed.status}, retried ${retried.status}; ${JSON.stringify(invited ?? {})}`,
			);
			rows.push({
				execution: c.id,
				what: c.what,
				'Spending Limit': c.limit,
				'failed run': `${failed.status}: ${formatWrites(atFailure)}`,
				'after the Retry': formatWrites(afterRetry),
				'Invite item': c.invited
					? `interview ${String(invited?.interviewId)}, creditsUsed ${String(invited?.creditsUsed)}`
					: `${error} (${description.slice(0, 100)})`,
			});
			const expected = {
				failedStatus: 'error',
				atFailure: { reports: 4, attempts: 4, interviews: 0, emails: 0 },
				afterRetry: {
					reports: 4,
					attempts: 4,
					interviews: c.invited ? 1 : 0,
					emails: c.invited ? 1 : 0,
				},
				retriedStatus: 'success',
				analysedCompleted: 4,
				invite: c.invited
					? { creditsUsed: 2.5, limitNamed: false, spentNamed: false }
					: { creditsUsed: undefined, limitNamed: true, spentNamed: true },
			};
			const measured = {
				failedStatus: failed.status,
				atFailure,
				afterRetry,
				retriedStatus: retried.status,
				analysedCompleted: analysed.filter((o) => o.status === 'completed').length,
				invite: {
					creditsUsed: invited?.creditsUsed,
					limitNamed: error.includes(`Spending Limit of ${c.limit} credits reached`),
					spentNamed: error.includes('and 4 were already spent'),
				},
			};
			book.check(
				`${c.id} ${c.what}: 4 analyses charged once; ${c.invited ? '1 interview and 1 email' : 'no interview, no email, the Invite names the limit and the 4 credits spent'}`,
				`failed run ${formatWrites(atFailure)}; after the Retry ${formatWrites(afterRetry)}`,
				JSON.stringify(measured) === JSON.stringify(expected),
			);
			expect(measured).toEqual(expected);
		}, 300_000);
	}

	it('4 Invite Many (limit 10, interviews at 2 credits) whose batch reads answer 503: the failed execution saved the 8 credits the sandbox charged', async () => {
		const w = await caseWorkspace(env.sandbox.baseUrl);
		credential = await recruiterCredential(env, w, 'F9-failed-wait 4');
		// Four completed reports, made by a workflow of their own (its charges are not this execution's).
		const reportIds = await completedReports(env, w, credential, 'case4', 4);
		expect(reportIds).toHaveLength(4);
		await w.control.patchWorkspace(w.ws.workspaceId, { interviewCreditUnits: 200 });
		await batchReadsFail(w, 'interview');
		const input = reportIds.map((reportId, i) => ({
			reportId,
			email: `f9-failed-wait-many-${i}@example.com`,
		}));
		const before = await w.writes();
		const { id } = await env.n8n.createWorkflow(
			inviteManyWorkflow(credential, 'F9-failed-wait invite many', input, 10),
		);
		const failed = await env.n8n.finishedExecution(await env.n8n.startManualRun(id));
		await w.control.clearFaults();
		const charged = minus(await w.writes(), before);
		const saved = savedSpending(failed);
		rows.push({
			execution: '4',
			what: 'Invite Many, limit 10, every batch read answers 503',
			'Spending Limit': 10,
			'failed run': `${failed.status}: ${formatWrites(charged)}`,
			'after the Retry': '(not retried)',
			'Invite item': `total saved with the execution: ${saved} credits`,
		});
		book.check(
			'4 Invite Many whose batch reads answer 503: the saved total equals the credits the sandbox charged (4 × 2)',
			`${formatWrites(charged)}; saved ${saved}`,
			failed.status === 'error' && charged.interviews === 4 && saved === 8,
		);
		expect({ status: failed.status, interviews: charged.interviews, saved }).toEqual({
			status: 'error',
			interviews: 4,
			saved: 8,
		});
	}, 300_000);
});
