/**
 * Batch operations overlap their chunks (router's two-stage pipeline): the next upload batch is created while
 * this chunk's files are PUT, the next chunk is quoted while this analysis batch runs, an analysis batch is
 * not read back before it can have finished, and a refused item without Continue On Fail stops the node
 * before the next chunk is started. Overlap is observed from the sandbox's own counters, sampled while the
 * node runs, with injected latency widening the window to hundreds of milliseconds.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	apiCall,
	counters,
	jsonOf,
	totalRequests,
	newWorkspace,
	pdfItem,
	runNode,
	type Counters,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;

useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

/** Reads the workspace's counters every few milliseconds until `work` settles; returns every sample. */
async function sampleWhile<T>(
	ws: Workspace,
	work: Promise<T>,
): Promise<{ result: T; samples: Counters[] }> {
	const samples: Counters[] = [];
	let done = false;
	const sampler = (async () => {
		while (!done) {
			samples.push(await counters(ws));
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	})();
	try {
		return { result: await work, samples };
	} finally {
		done = true;
		await sampler;
	}
}

const route = (c: Counters, name: string): number => c.requests?.[name] ?? 0;

function uploadManyParams(ws: Workspace) {
	return {
		resource: 'upload',
		operation: 'uploadMany',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
	};
}

async function uploadedReports(ws: Workspace, count: number, prefix: string): Promise<string[]> {
	const items = Array.from({ length: count }, (_, i) =>
		pdfItem({ candidate: `${prefix} ${i}` }, `${prefix}-${i}.pdf`),
	);
	const out = jsonOf(await runNode(ws, uploadManyParams(ws), items));
	expect(out.every((o) => o.uploaded === true)).toBe(true);
	return out.map((o) => String(o.reportId));
}

describe('Batch operations overlap their chunks', () => {
	it('Upload Many creates the next upload batch while the files of the current one are still being PUT', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage', mode: 'latency', rate: 1, latencyMs: 150 }],
		});
		const items = Array.from({ length: 40 }, (_, i) =>
			pdfItem({ candidate: `Overlap ${i}` }, `overlap-${i}.pdf`),
		);
		const { result, samples } = await sampleWhile(ws, runNode(ws, uploadManyParams(ws), items));

		const out = jsonOf(result);
		expect(out).toHaveLength(40);
		expect(out.every((o) => o.uploaded === true && o.state === 'succeeded')).toBe(true);
		const after = await counters(ws);
		expect(after.batchesCreated).toBe(2);
		expect(after.storagePuts).toBe(40);
		// The second batch existed while fewer than the first chunk's 20 files had arrived.
		const overlapping = samples.filter((s) => s.batchesCreated === 2 && s.storagePuts < 20);
		expect(overlapping.length).toBeGreaterThan(0);
	});

	it('Start Many quotes the next chunk while the current analysis batch is being submitted and run', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 40, 'quote-ahead');
		const before = await counters(ws);
		// 1000 ms: each chunk's reports are first checked for an existing attempt (20 status reads), which takes
		// a few hundred ms on a loaded machine.
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analysis-batches',
					mode: 'latency',
					rate: 1,
					latencyMs: 1000,
				},
			],
		});
		const { result, samples } = await sampleWhile(
			ws,
			runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'startMany',
					reportId: '={{ $json.reportId }}',
					simplify: false,
					// More analyses than the default Spending Limit's 10 credits: no limit here.
					spendingLimit: 0,
				},
				reportIds.map((reportId) => ({ json: { reportId } })),
			),
		);

		const out = jsonOf(result);
		expect(out.map((o) => o.state)).toEqual(reportIds.map(() => 'succeeded'));
		expect(new Set(out.map((o) => o.batchId)).size).toBe(2);
		const after = await counters(ws);
		expect(
			route(after, 'POST /api/v1/analysis-batch-quotes') -
				route(before, 'POST /api/v1/analysis-batch-quotes'),
		).toBe(2);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(40);
		// Both chunks were quoted before the first analysis batch was created.
		const quotedAhead = samples.filter(
			(s) =>
				route(s, 'POST /api/v1/analysis-batch-quotes') -
					route(before, 'POST /api/v1/analysis-batch-quotes') ===
					2 && s.batchesCreated === before.batchesCreated,
		);
		expect(quotedAhead.length).toBeGreaterThan(0);
	});

	it('an analysis batch is first read one poll interval after its creation, not at once (one read when it finishes sooner)', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 40, 'first-read');
		const before = await counters(ws);
		const out = jsonOf(
			await runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'startMany',
					reportId: '={{ $json.reportId }}',
					simplify: false,
					// More analyses than the default Spending Limit's 10 credits: no limit here.
					spendingLimit: 0,
				},
				reportIds.map((reportId) => ({ json: { reportId } })),
			),
		);
		expect(out.every((o) => o.state === 'succeeded')).toBe(true);
		const after = await counters(ws);
		// The test sandbox's worker finishes an analysis in two 10 ms steps, well inside the first 100 ms interval:
		// one read per batch (2). A read right after creation would find each batch still processing and need a
		// second read (4 or more). On a loaded machine the worker's second step can come after the first read, so
		// one batch may need a second read (3).
		expect(
			route(after, 'GET /api/v1/analysis-batches/{id}') -
				route(before, 'GET /api/v1/analysis-batches/{id}'),
		).toBeLessThan(4);
	});
});

describe('A refused item in a batch chunk', () => {
	const items = (): Array<ReturnType<typeof pdfItem> | { json: IDataObject }> => {
		const list: Array<ReturnType<typeof pdfItem> | { json: IDataObject }> = Array.from(
			{ length: 25 },
			(_, i) => pdfItem({ candidate: `Refused ${i}` }, `refused-${i}.pdf`),
		);
		list[3] = { json: { note: 'no file attached' } };
		return list;
	};

	it('without Continue On Fail stops the node before anything of its chunk, or of the next one, is sent', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const result = await runNode(ws, uploadManyParams(ws), items());
		expect(result.run.status).toBe('error');
		expect(result.error?.message).toMatch(/binary file 'data'.*\[item 4\]/);
		const after = await counters(ws);
		expect(after.batchesCreated).toBe(0);
		expect(after.preparationsCreated).toBe(0);
		expect(totalRequests(after)).toBe(0);
	});

	it('with Continue On Fail reports it and uploads every other item of both chunks', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const out = jsonOf(await runNode(ws, uploadManyParams(ws), items(), { continueOnFail: true }));
		expect(out).toHaveLength(25);
		expect(String(out[3].error)).toMatch(/binary|file/i);
		expect(out.filter((o) => o.uploaded === true)).toHaveLength(24);
		const after = await counters(ws);
		expect(after.batchesCreated).toBe(2);
		expect(after.storagePuts).toBe(24);
	});
});

const analyzeManyParams = (ws: Workspace, options: IDataObject = {}): INodeParameters => ({
	resource: 'analysis',
	operation: 'analyzeMany',
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId: ws.jobDescriptionId,
	// These tests read the batch items themselves (state, batchId, attemptId): Simplify off.
	simplify: false,
	// Up to 45 analyses an execution, past the default Spending Limit's 10 credits: no limit here.
	spendingLimit: 0,
	options: options as INodeParameters,
});
const resumes = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, i) =>
		pdfItem({ candidate: `${prefix} ${i}` }, `${prefix}-${i}.pdf`),
	);

describe('Analysis > Analyze Many', () => {
	it('45 files: 3 upload batches, 45 PUTs, 3 batch quotes, 3 analysis batches; every report analyzed, one paired item per input', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const result = await runNode(ws, analyzeManyParams(ws), resumes(45, 'many'));
		const out = jsonOf(result);
		expect(out).toHaveLength(45);
		expect(result.output[0].map((i) => i.pairedItem)).toEqual(
			Array.from({ length: 45 }, (_, item) => ({ item })),
		);
		out.forEach((o, i) => {
			expect(o).toEqual(
				expect.objectContaining({
					reportId: expect.stringMatching(/^rpt_/),
					fileName: `many-${i}.pdf`,
					uploaded: true,
					uploadBatchId: expect.stringMatching(/^bat_/),
					batchId: expect.stringMatching(/^bat_/),
					state: 'succeeded',
					attemptId: expect.stringMatching(/^att_/),
					errorCode: null,
				}),
			);
			expect(o.batchId).not.toBe(o.uploadBatchId);
		});
		expect(new Set(out.map((o) => o.reportId)).size).toBe(45);
		expect(new Set(out.map((o) => o.uploadBatchId)).size).toBe(3);
		expect(new Set(out.map((o) => o.batchId)).size).toBe(3);

		const after = await counters(ws);
		expect(route(after, 'POST /api/v1/upload-batches')).toBe(3);
		expect(route(after, 'POST /api/v1/analysis-batch-quotes')).toBe(3);
		expect(route(after, 'POST /api/v1/analysis-batches')).toBe(3);
		expect(after.storagePuts).toBe(45);
		expect(after.attemptsCreated).toBe(45);
		expect(after.storageAuthorizationHeaders).toBe(0);
		// The analysis batches completed, so every report is terminal when the node returns.
		const statuses = await Promise.all(
			out
				.slice(0, 45)
				.map(
					async (o) =>
						(
							(await apiCall(ws, 'GET', `/api/v1/reports/${String(o.reportId)}/status`)).body
								.data as IDataObject
						).status,
				),
		);
		expect(new Set(statuses)).toEqual(new Set(['completed']));
	});

	it('Include Report Summary adds each final summary', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const out = jsonOf(
			await runNode(ws, analyzeManyParams(ws, { includeReport: true }), resumes(3, 'summary')),
		);
		for (const o of out) {
			expect(o.state).toBe('succeeded');
			expect((o.report as IDataObject).id).toBe(o.reportId);
			expect((o.report as IDataObject).status).toBe('completed');
		}
	});

	it('starts the first analysis batch while later files are still being uploaded', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage', mode: 'latency', rate: 1, latencyMs: 100 }],
		});
		const { result, samples } = await sampleWhile(
			ws,
			runNode(ws, analyzeManyParams(ws), resumes(60, 'overlap')),
		);
		expect(jsonOf(result).every((o) => o.state === 'succeeded')).toBe(true);
		const overlapping = samples.filter(
			(s) => route(s, 'POST /api/v1/analysis-batches') >= 1 && s.storagePuts < 60,
		);
		expect(overlapping.length).toBeGreaterThan(0);
	});

	it('with Continue On Fail a file the storage refuses fails alone; every other file is analyzed', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage', mode: 'before', status: 400, rate: 1, count: 1 }],
		});
		const out = jsonOf(
			await runNode(ws, analyzeManyParams(ws), resumes(40, 'refused-put'), {
				continueOnFail: true,
			}),
		);
		expect(out).toHaveLength(40);
		const failed = out.filter((o) => o.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(failed[0].httpCode).toBe(400);
		expect(out.filter((o) => o.state === 'succeeded' && o.attemptId)).toHaveLength(39);
		const after = await counters(ws);
		expect(after.attemptsCreated).toBe(39);
		expect(after.storagePuts).toBe(39);
	});

	it('without Continue On Fail a refused file stops the node before any analysis is quoted or submitted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage', mode: 'before', status: 400, rate: 1, count: 1 }],
		});
		const result = await runNode(ws, analyzeManyParams(ws), resumes(40, 'stop'));
		expect(result.run.status).toBe('error');
		expect(result.error?.message).toBeTruthy();
		const after = await counters(ws);
		// The first chunk's other files were PUT; the second chunk's batch may exist, but none of its files was sent.
		expect(after.storagePuts).toBe(19);
		expect(route(after, 'POST /api/v1/analysis-batch-quotes')).toBe(0);
		expect(route(after, 'POST /api/v1/analysis-batches')).toBe(0);
		expect(after.attemptsCreated).toBe(0);
	});

	it('an invalid item without Continue On Fail names the item and sends nothing', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items: Array<ReturnType<typeof pdfItem> | { json: IDataObject }> = resumes(5, 'invalid');
		items[2] = { json: {} };
		const result = await runNode(ws, analyzeManyParams(ws), items);
		expect(result.error?.message).toMatch(/binary file 'data'.*\[item 3\]/);
		expect(totalRequests(await counters(ws))).toBe(0);
	});
});

describe('Analyze Many when answers are lost or refused for a moment', () => {
	it('retries each keyed or safe request: exactly one upload batch, report, analysis batch and attempt per chunk and file', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.setFaults({
			rules: [
				// The batch is created, then the connection drops before the answer: the retry must replay it.
				{
					method: 'POST',
					path: '/api/v1/upload-batches',
					rate: 1,
					count: 2,
					mode: 'commit-then-drop',
				},
				{
					method: 'POST',
					path: '/api/v1/analysis-batches',
					rate: 1,
					count: 2,
					mode: 'commit-then-drop',
				},
				{
					method: 'POST',
					path: '/api/v1/analysis-batch-quotes',
					status: 503,
					rate: 1,
					count: 1,
					mode: 'before',
				},
				{
					method: 'GET',
					path: '/api/v1/analysis-batches/',
					status: 503,
					rate: 1,
					count: 1,
					mode: 'before',
				},
				{ method: 'PUT', path: '/_storage', status: 503, rate: 1, count: 2, mode: 'before' },
			],
		});
		const out = jsonOf(await runNode(ws, analyzeManyParams(ws), resumes(45, 'lost')));
		expect(out).toHaveLength(45);
		expect(out.filter((o) => o.state === 'succeeded' && o.attemptId)).toHaveLength(45);
		const after = await counters(ws);
		// Every fault fired: each dropped create was sent again, and the service replayed the committed batch.
		expect(route(after, 'POST /api/v1/upload-batches')).toBe(5);
		expect(route(after, 'POST /api/v1/analysis-batches')).toBe(5);
		expect(after.idempotentReplays).toBeGreaterThanOrEqual(4);
		expect(after.batchesCreated).toBe(6);
		expect(after.reportsCreated).toBe(45);
		expect(after.storagePuts).toBe(45);
		expect(after.attemptsCreated).toBe(45);
		expect(new Set(out.map((o) => o.reportId)).size).toBe(45);
	});
});
