/**
 * Spec, start-analysis recovery: "QUOTE_STALE requires a new quote and a new key". With Quote Automatically
 * the node quotes once more and submits again under a new key; without it, the error reaches the user.
 *
 * The quote is made stale for real: the write is held by a sandbox latency fault (applied before processing)
 * while the test changes the workspace's price version, so the fingerprint the node got no longer matches.
 */
import type { INodeParameters } from 'n8n-workflow';

import { waitFor, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	counters,
	jsonOf,
	pdfItem,
	runNode,
	sleep,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;
let priceVersion = 1;

useSandboxWorkspace((started) => ({ sandbox, ws } = started));

async function uploaded(candidate: string): Promise<string> {
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

/** Runs the node while the first `writeRoute` request is held, and makes the quote stale meanwhile. */
async function runWithStaleQuote(
	parameters: INodeParameters,
	quoteRoute: string,
	writePath: string,
	writeRoute: string,
) {
	const before = await counters(ws);
	await sandbox.control.setFaults({
		rules: [
			{ method: 'POST', path: writePath, mode: 'latency', latencyMs: 1500, rate: 1, count: 1 },
		],
	});
	try {
		const running = runNode(ws, parameters, [{ json: {} }], { continueOnFail: true });
		await waitFor(
			async () =>
				((await counters(ws)).requests[quoteRoute] ?? 0) > (before.requests[quoteRoute] ?? 0),
			10000,
		);
		await sleep(300);
		priceVersion += 1;
		await sandbox.control.patchWorkspace(ws.workspaceId, { priceVersion });
		const result = await running;
		const after = await counters(ws);
		const delta = (route: string) => (after.requests[route] ?? 0) - (before.requests[route] ?? 0);
		return { result, before, after, quotes: delta(quoteRoute), writes: delta(writeRoute) };
	} finally {
		await sandbox.control.clearFaults();
	}
}

describe('QUOTE_STALE recovery', () => {
	it('Start with Quote Automatically: quotes again once and starts under a new key (one attempt)', async () => {
		const reportId = await uploaded('Stale Start');
		const { result, before, after, quotes, writes } = await runWithStaleQuote(
			{ resource: 'analysis', operation: 'start', reportId },
			'POST /api/v1/analysis-quotes',
			'/api/v1/analyses',
			'POST /api/v1/analyses',
		);
		const [item] = jsonOf(result);
		expect(item.error).toBeUndefined();
		expect(item.attemptId).toMatch(/^att_/);
		expect(quotes).toBe(2);
		expect(writes).toBe(2);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
	});

	it('Analyze Resume recovers the same way', async () => {
		const before = await counters(ws);
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analyses',
					mode: 'latency',
					latencyMs: 1500,
					rate: 1,
					count: 1,
				},
			],
		});
		try {
			const running = runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Stale Analyze' })]);
			await waitFor(
				async () =>
					((await counters(ws)).requests['POST /api/v1/analysis-quotes'] ?? 0) >
					(before.requests['POST /api/v1/analysis-quotes'] ?? 0),
				10000,
			);
			await sleep(300);
			priceVersion += 1;
			await sandbox.control.patchWorkspace(ws.workspaceId, { priceVersion });
			const [item] = jsonOf(await running);
			expect(item.attemptId).toMatch(/^att_/);
			const after = await counters(ws);
			expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
			expect(
				(after.requests['POST /api/v1/analyses'] ?? 0) -
					(before.requests['POST /api/v1/analyses'] ?? 0),
			).toBe(2);
		} finally {
			await sandbox.control.clearFaults();
		}
	});

	it('Start with a given fingerprint does not re-quote: QUOTE_STALE reaches the user with its hint', async () => {
		const reportId = await uploaded('Stale Manual');
		const [quote] = jsonOf(
			await runNode(ws, { resource: 'analysis', operation: 'getQuote', reportId }),
		);
		priceVersion += 1;
		await sandbox.control.patchWorkspace(ws.workspaceId, { priceVersion });
		const before = await counters(ws);
		const result = await runNode(
			ws,
			{
				resource: 'analysis',
				operation: 'start',
				reportId,
				quoteAutomatically: false,
				quoteFingerprint: String(quote.fingerprint),
			},
			[{ json: {} }],
			{ continueOnFail: true },
		);
		const [item] = jsonOf(result);
		expect(item.httpCode).toBe(422);
		expect(item.reason).toBe('QUOTE_STALE');
		expect(String(item.description)).toContain('new quote');
		const after = await counters(ws);
		expect(
			(after.requests['POST /api/v1/analysis-quotes'] ?? 0) -
				(before.requests['POST /api/v1/analysis-quotes'] ?? 0),
		).toBe(0);
	});

	it('Invite with Quote Automatically: quotes again once and invites under a new key (one interview)', async () => {
		const [done] = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [
				pdfItem({ candidate: 'Stale Invite' }),
			]),
		);
		expect(done.status).toBe('completed');
		const { result, before, after, quotes, writes } = await runWithStaleQuote(
			{
				resource: 'interview',
				operation: 'invite',
				reportId: String(done.reportId),
				candidateEmail: 'stale@example.com',
			},
			'POST /api/v1/interview-quotes',
			'/api/v1/interviews',
			'POST /api/v1/interviews',
		);
		const [item] = jsonOf(result);
		expect(item.error).toBeUndefined();
		expect(item.interviewId).toMatch(/^int_/);
		expect(quotes).toBe(2);
		expect(writes).toBe(2);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(1);
	});
});
