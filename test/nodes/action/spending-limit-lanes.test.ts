/**
 * The Spending Limit where it is hardest to keep: at the node's default Concurrency (20 lanes quoting and starting at
 * once, with each start held in flight by injected latency) and across the chunks of a batch operation (the next
 * chunk quoted while the current one is submitted). Only what the node does is used: its options and outputs, and
 * the sandbox's counters of what was charged. And the batch pipeline's "at most one chunk ahead of the stage that
 * submits", measured by the sandbox itself: its high-water mark of reports prepared and not yet submitted for
 * analysis (preparedAheadOfSubmissionMax), taken at every preparation, so no peak can be missed.
 */
import type { IDataObject } from 'n8n-workflow';

import { BATCH_CHUNK_SIZE } from '../../../nodes/RecruitingAnalysis/engine/capacity';
import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeManyParams,
	analyzeParams,
	counters,
	jsonOf,
	newWorkspace,
	pdfFiles,
	runNode,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

/** Analyze Many with each item's raw state; the sandbox prices an analysis at 1 credit. */
const analyzeMany = (ws: Workspace, options: IDataObject = {}) =>
	analyzeManyParams(ws, { simplify: false, ...options });

const refusedByLimit = (out: IDataObject[], limit: number) =>
	out.filter((item) =>
		String(item.error ?? '').includes(`Spending Limit of ${limit} credits reached`),
	);

describe('the Spending Limit at the default concurrency and across batches', () => {
	it('Analyze Resume at its default Concurrency (20 lanes, starts held in flight) charges exactly up to the limit', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Every start answers after 300 ms: the lanes' quotes and starts overlap, so a limit that counted only
		// answered starts would let every lane through.
		await sandbox.control.setFaults({
			rules: [
				{ method: 'POST', path: '/api/v1/analyses', mode: 'latency', rate: 1, latencyMs: 300 },
			],
		});
		const before = await counters(ws);
		// No Concurrency given: the node's default.
		const out = jsonOf(
			await runNode(ws, analyzeParams(ws, { spendingLimit: 7 }), pdfFiles(30, 'Lanes'), {
				continueOnFail: true,
			}),
		);
		const after = await counters(ws);
		expect(out).toHaveLength(30);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(7);
		expect(out.filter((item) => item.creditsUsed === 1)).toHaveLength(7);
		expect(refusedByLimit(out, 7)).toHaveLength(23);
		// The refused items were never sent: the sandbox saw exactly 7 starts.
		expect(
			(after.requests['POST /api/v1/analyses'] ?? 0) -
				(before.requests['POST /api/v1/analyses'] ?? 0),
		).toBe(7);
	});

	it('Analyze Many over three chunks charges exactly up to the limit: the next chunk is quoted while the current one is submitted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analysis-batches',
					mode: 'latency',
					rate: 1,
					latencyMs: 300,
				},
			],
		});
		const items = 2 * BATCH_CHUNK_SIZE + 10;
		const limit = BATCH_CHUNK_SIZE + 5;
		const out = jsonOf(
			await runNode(ws, analyzeMany(ws, { spendingLimit: limit }), pdfFiles(items, 'Chunks'), {
				continueOnFail: true,
			}),
		);
		const after = await counters(ws);
		expect(out).toHaveLength(items);
		expect(after.attemptsCreated).toBe(limit);
		expect(out.filter((item) => item.creditsUsed === 1)).toHaveLength(limit);
		expect(refusedByLimit(out, limit)).toHaveLength(items - limit);
		// Each item is its own: the first chunk whole, five of the second, none of the third.
		const charged = out.map((item) => item.creditsUsed === 1);
		expect(charged.slice(0, BATCH_CHUNK_SIZE).every(Boolean)).toBe(true);
		expect(charged.slice(2 * BATCH_CHUNK_SIZE).some(Boolean)).toBe(false);
	});
});

describe('the batch pipeline works at most one chunk ahead of the stage that submits', () => {
	it("the sandbox's high-water mark counts the reports prepared and not yet submitted", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Three reports prepared and never uploaded (Prepare Only): three ahead.
		const prepared = jsonOf(
			await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'prepare',
					fileName: '={{ "mark-" + $itemIndex + ".pdf" }}',
					fileSize: 1000,
					mimeType: 'application/pdf',
					jobDescriptionSource: 'existing',
					jobDescriptionId: ws.jobDescriptionId,
				},
				[{ json: {} }, { json: {} }, { json: {} }],
			),
		);
		expect(prepared.map((p) => typeof p.reportId)).toEqual(['string', 'string', 'string']);
		expect((await counters(ws)).preparedAheadOfSubmissionMax).toBe(3);
		// Analyze Resume prepares one more (four at that moment) and submits it; the next one again finds four
		// (the submitted one no longer counts), so the mark stays at four.
		for (const tag of ['first', 'second'])
			expect(jsonOf(await runNode(ws, analyzeParams(ws), pdfFiles(1, tag)))[0].attemptId).toEqual(
				expect.any(String),
			);
		expect((await counters(ws)).preparedAheadOfSubmissionMax).toBe(4);
	});

	it('Analyze Many over four chunks: never more than two chunks prepared and not submitted, and more than one at its peak', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Slow storage: each chunk's files take long enough to PUT that the next chunk is prepared meanwhile.
		await sandbox.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage', mode: 'latency', rate: 1, latencyMs: 100 }],
		});
		const items = 4 * BATCH_CHUNK_SIZE;
		const out = jsonOf(await runNode(ws, analyzeMany(ws), pdfFiles(items, 'Ahead')));
		expect(out.filter((item) => item.state === 'succeeded')).toHaveLength(items);
		const ahead = (await counters(ws)).preparedAheadOfSubmissionMax;
		// The chunk being submitted and at most one more.
		expect(ahead).toBeLessThanOrEqual(2 * BATCH_CHUNK_SIZE);
		// It does work ahead: the next chunk was prepared before the current one was submitted.
		expect(ahead).toBeGreaterThan(BATCH_CHUNK_SIZE);
	});
});
