/**
 * Every charged write is checked against the Spending Limit at the price it is sent with (writes/spending.ts): a
 * write answered QUOTE_STALE is quoted again, and the new price must fit the limit before the write is sent again;
 * `creditsUsed` is what was charged (the price sent), never the first quote. Start, Invite and Reinterview share that
 * path; Analyze Many re-reserves each later batch at its new quotes.
 *
 * The price changes for real while the write is on its way: the write is held by a sandbox latency fault (applied
 * before processing) while the test raises the workspace's price (`analysisCreditUnits` / `interviewCreditUnits`),
 * which makes the quote the node got stale, as a price change of the service does.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { InputItem } from '../../helpers/n8n-engine';
import { useTestSandbox, waitFor, type TestSandbox } from '../../helpers/sandbox';
import {
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	type Counters,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

/** 5,000 units on the sandbox's scale of 100: 50 credits (the sandbox's usual prices are 1 and 2.5 credits). */
const RAISED = 5000;

async function uploaded(ws: Workspace, candidate: string): Promise<string> {
	const [item] = jsonOf(
		await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			},
			[pdfItem({ candidate })],
		),
	);
	return String(item.reportId);
}

/**
 * Runs the node while its first write to `writePath` is held, and raises the price (`price`) once the node has
 * quoted: the write is answered QUOTE_STALE and the node quotes again at the new price.
 */
async function runWhilePriceRises(
	ws: Workspace,
	parameters: INodeParameters,
	quoteRoute: string,
	writePath: string,
	price: { analysisCreditUnits?: number; interviewCreditUnits?: number },
	items: InputItem[] = [{ json: {} }],
) {
	const before = await counters(ws);
	await sandbox.control.setFaults({
		rules: [
			{ method: 'POST', path: writePath, mode: 'latency', latencyMs: 1500, rate: 1, count: 1 },
		],
	});
	try {
		const running = runNode(ws, parameters, items, { continueOnFail: true });
		await waitFor(
			async () =>
				((await counters(ws)).requests[quoteRoute] ?? 0) > (before.requests[quoteRoute] ?? 0),
			10000,
		);
		await sleep(300);
		await sandbox.control.patchWorkspace(ws.workspaceId, price);
		const result = await running;
		const after = await counters(ws);
		const delta = (route: string) => (after.requests[route] ?? 0) - (before.requests[route] ?? 0);
		return { items: jsonOf(result), before, after, quotes: delta(quoteRoute), delta };
	} finally {
		await sandbox.control.clearFaults();
	}
}

const added = (after: Counters, before: Counters, key: 'attemptsCreated' | 'interviewsCreated') =>
	after[key] - before[key];

describe('the Spending Limit at the price a write is sent with', () => {
	it('a start re-quoted above the Spending Limit is not sent, and its item says the new price', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await uploaded(ws, 'Requoted Start');
		const { items, before, after, quotes, delta } = await runWhilePriceRises(
			ws,
			{ resource: 'analysis', operation: 'start', reportId, spendingLimit: 5 },
			'POST /api/v1/analysis-quotes',
			'/api/v1/analyses',
			{ analysisCreditUnits: RAISED },
		);
		expect(quotes).toBe(2);
		// The first start (stale) only: the re-quoted one was never sent.
		expect(delta('POST /api/v1/analyses')).toBe(1);
		expect(added(after, before, 'attemptsCreated')).toBe(0);
		expect(items[0].error).toContain(
			'Spending Limit of 5 credits reached: this analysis costs 50 credits (quoted again)',
		);
		expect(items[0].creditsUsed).toBeUndefined();
	});

	it('a start re-quoted within the Spending Limit is sent, and creditsUsed is the new price', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await uploaded(ws, 'Requoted Start Within');
		const { items, before, after, quotes } = await runWhilePriceRises(
			ws,
			{ resource: 'analysis', operation: 'start', reportId, spendingLimit: 60 },
			'POST /api/v1/analysis-quotes',
			'/api/v1/analyses',
			{ analysisCreditUnits: RAISED },
		);
		expect(quotes).toBe(2);
		expect(added(after, before, 'attemptsCreated')).toBe(1);
		expect(items[0].attemptId).toMatch(/^att_/);
		expect(items[0].creditsUsed).toBe(50);
		expect(items[0].quote).toMatchObject({ creditUnits: RAISED, creditScale: 100 });
	});

	it('an invitation re-quoted above the Spending Limit is not sent: no interview, no email', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Requoted Invite' });
		const { items, before, after, quotes, delta } = await runWhilePriceRises(
			ws,
			{
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'requoted@example.com',
				spendingLimit: 5,
			},
			'POST /api/v1/interview-quotes',
			'/api/v1/interviews',
			{ interviewCreditUnits: RAISED },
		);
		expect(quotes).toBe(2);
		expect(delta('POST /api/v1/interviews')).toBe(1);
		expect(added(after, before, 'interviewsCreated')).toBe(0);
		expect(after.emailsSent - before.emailsSent).toBe(0);
		expect(items[0].error).toContain(
			'Spending Limit of 5 credits reached: this invitation costs 50 credits',
		);
		// The limit refused a write that was never sent: it counts nothing, so a cheaper write still fits.
		await sandbox.control.patchWorkspace(ws.workspaceId, { interviewCreditUnits: 250 });
		const [allowed] = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'requoted@example.com',
				spendingLimit: 5,
			}),
		);
		expect(allowed.creditsUsed).toBe(2.5);
	});

	it('an invitation re-quoted within the Spending Limit is sent, and creditsUsed is the new price', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Requoted Invite Within' });
		const { items, before, after } = await runWhilePriceRises(
			ws,
			{
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'requoted-within@example.com',
				spendingLimit: 50,
			},
			'POST /api/v1/interview-quotes',
			'/api/v1/interviews',
			{ interviewCreditUnits: RAISED },
		);
		expect(added(after, before, 'interviewsCreated')).toBe(1);
		expect(items[0].interviewId).toMatch(/^int_/);
		expect(items[0].creditsUsed).toBe(50);
	});

	it('a reinterview re-quoted above the Spending Limit is not sent: the old interview stays, no email', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Requoted Reinterview' });
		const [first] = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'first@example.com',
			}),
		);
		const interviewId = String(first.interviewId);
		const { items, before, after, quotes } = await runWhilePriceRises(
			ws,
			{
				resource: 'interview',
				operation: 'reinterview',
				interviewId,
				reportId,
				candidateEmail: 'second@example.com',
				spendingLimit: 5,
			},
			'POST /api/v1/interview-quotes',
			'/api/v1/interviews',
			{ interviewCreditUnits: RAISED },
		);
		expect(quotes).toBe(2);
		expect(added(after, before, 'interviewsCreated')).toBe(0);
		// The first invitation's email leaves the sandbox's outbox after a short delay: once it has, the sink holds
		// it alone, and nothing for the address the reinterview was refused for.
		const mailTo = async () =>
			(await sandbox.control.mail(ws.workspaceId)).items.map((mail) => mail.to);
		await waitFor(async () => (await mailTo()).includes('first@example.com'), 10000);
		expect(await mailTo()).toEqual(['first@example.com']);
		expect(items[0].error).toContain('Spending Limit of 5 credits reached: this reinterview costs');
	});

	it('an Analyze Many item re-quoted above the Spending Limit for a later batch is not sent', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const { items, before, after, delta } = await runWhilePriceRises(
			ws,
			{
				resource: 'analysis',
				operation: 'analyzeMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
				spendingLimit: 5,
			},
			'POST /api/v1/analysis-batch-quotes',
			'/api/v1/analysis-batches',
			{ analysisCreditUnits: RAISED },
			[pdfItem({ candidate: 'Requoted Batch' }, 'requoted-batch.pdf')],
		);
		// The first batch refused the stale quote; the item quoted again at 50 credits went in no later batch.
		expect(delta('POST /api/v1/analysis-batches')).toBe(1);
		expect(added(after, before, 'attemptsCreated')).toBe(0);
		expect(items[0].error).toContain(
			'Spending Limit of 5 credits reached: this analysis costs 50 credits',
		);
	});
});
