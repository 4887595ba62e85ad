/**
 * Shared waiting (engine/capacity.ts): with Wait for Completion, an item's wait does not hold its lane, the
 * pending reports are read together (report list pages, which also carry the summary), a report the pages do not
 * show is read alone (with the error a single read gives), and a start refused for the active-analysis limit waits
 * for capacity. Observed through the sandbox: its counters, its timestamps and its event feed, not wall-clock time.
 */
import type { IDataObject } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	totalRequests,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;

// Each analysis takes two steps of 400 ms: long against a call, so waits overlap the other items' submissions.
useTestSandbox((started) => (sandbox = started), { sandbox: { workerDelayMs: 400 } });

const requests = (c: IDataObject, route: string): number =>
	(c.requests as Record<string, number> | undefined)?.[route] ?? 0;

/** The requests to a route between two counter snapshots. */
const requestsBetween =
	(before: object, after: object) =>
	(route: string): number =>
		requests(after as IDataObject, route) - requests(before as IDataObject, route);

async function reportsOf(ws: Workspace): Promise<IDataObject[]> {
	const { body } = await apiCall(ws, 'GET', '/api/v1/reports?limit=100');
	return ((body.data as IDataObject).items as IDataObject[]) ?? [];
}

async function completionTimes(ws: Workspace): Promise<Map<string, number>> {
	const { body } = await apiCall(ws, 'GET', '/api/v1/events?type=report.completed&limit=100');
	const events = ((body.data as IDataObject).items as IDataObject[]) ?? [];
	return new Map(
		events.map((e) => [String((e.data as IDataObject).reportId), Date.parse(String(e.occurredAt))]),
	);
}

describe('Wait for Completion, shared across items', () => {
	it('a wait does not hold its lane: with Concurrency 1, every resume is submitted before the first analysis finishes', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// Analyses of 3 s: the three uploads and starts fit well inside the first one even on a loaded machine.
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisDurationMs: 3_000 });
		const items = [0, 1, 2].map((i) => pdfItem({ candidate: `Lane ${i}` }, `lane-${i}.pdf`));
		const output = jsonOf(
			await runNode(
				ws,
				analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60, concurrency: 1 }),
				items,
			),
		);
		expect(output.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
		expect(output.map((o) => o.timedOut)).toEqual([false, false, false]);
		// The service's own clock: the last report was created (its item taken by the only lane) before the first
		// analysis completed. A lane held through a wait would create it only after.
		const reports = await reportsOf(ws);
		const completed = await completionTimes(ws);
		const first = output[0].reportId as string;
		const lastCreated = Math.max(...reports.map((r) => Date.parse(String(r.createdAt))));
		expect(completed.get(first)).toBeGreaterThan(lastCreated);
		// Outputs stay paired with their inputs.
		expect(new Set(output.map((o) => o.reportId)).size).toBe(3);
	});

	it('with Simplify (the default of node version 1.1 and later) the summary comes from the list page too: one result read per report, no status or summary read', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = Array.from({ length: 6 }, (_, i) =>
			pdfItem({ candidate: `Simple ${i}`, score: 8 }, `simple-${i}.pdf`),
		);
		const before = await counters(ws);
		const output = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60 }), items),
		);
		const after = await counters(ws);
		expect(output).toHaveLength(6);
		for (const [i, item] of output.entries()) {
			expect(item).toMatchObject({
				candidateName: `Simple ${i}`,
				score: 8,
				status: 'completed',
				fileName: `simple-${i}.pdf`,
				timedOut: false,
			});
		}
		const diff = requestsBetween(before, after);
		expect(diff('GET /api/v1/reports/{id}/status')).toBe(0);
		expect(diff('GET /api/v1/reports/{id}')).toBe(0);
		expect(diff('GET /api/v1/reports/{id}/result')).toBe(6);
	});

	it('pending reports are read together from list pages, which carry the summaries: no status or summary read per report', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = Array.from({ length: 8 }, (_, i) =>
			pdfItem({ candidate: `Round ${i}`, score: 7 }, `round-${i}.pdf`),
		);
		const before = await counters(ws);
		// Output After Waiting = Report Summary (Simplify off): the list pages' summaries are the output.
		const output = jsonOf(
			await runNode(
				ws,
				{ ...analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60 }), simplify: false },
				items,
			),
		);
		const after = await counters(ws);
		expect(output).toHaveLength(8);
		for (const item of output) {
			expect(item.status).toBe('completed');
			expect(item.timedOut).toBe(false);
			// The summary's fields, as GET /reports/{id} gives them.
			expect(item.id).toBe(item.reportId);
			expect((item.result as IDataObject).score).toBe(7);
		}
		const diff = requestsBetween(before, after);
		expect(diff('GET /api/v1/reports/{id}/status')).toBe(0);
		expect(diff('GET /api/v1/reports/{id}')).toBe(0);
		// One page answers for every pending report; how many rounds the wait takes depends on how fast the machine
		// starts the eight: 4 list reads on a quiet machine, 9 beside three busy test lanes (a load of 11 on two cores).
		// A wait that read without pausing would read dozens.
		expect(diff('GET /api/v1/reports')).toBeGreaterThanOrEqual(1);
		expect(diff('GET /api/v1/reports')).toBeLessThanOrEqual(12);
		// Prepare, PUT, quote, start, and a share of the rounds: at most 5 calls per resume.
		const calls =
			totalRequests(after) - totalRequests(before) + (after.storagePuts - before.storagePuts);
		expect(calls / 8).toBeLessThanOrEqual(5);
	});

	it("one report's wait reads one list page per round on the waiter's schedule: six reads for an analysis of 6 s", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisDurationMs: 6_000 });
		const before = await counters(ws);
		const output = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60 }), [
				pdfItem({ candidate: 'Schedule' }, 'schedule.pdf'),
			]),
		);
		const after = await counters(ws);
		expect(output).toMatchObject([{ status: 'completed', timedOut: false }]);
		const diff = requestsBetween(before, after);
		// Rounds at 0.5 and 1 s after the start, then ×1.5 apart (1.75, 2.9, 4.6 and 7.1 s): the one after the
		// analysis ends (about 6 s) sees it. A second page per round, or another schedule, changes this count.
		expect(diff('GET /api/v1/reports')).toBe(6);
		expect(diff('GET /api/v1/reports/{id}/status')).toBe(0);
		expect(diff('GET /api/v1/reports/{id}')).toBe(0);
	});

	it('a report the list pages do not show is read alone, and fails its item as a single read would (404), the others complete', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = [0, 1, 2].map((i) => pdfItem({ candidate: `Deleted ${i}` }, `deleted-${i}.pdf`));
		const running = runNode(
			ws,
			analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60 }),
			items,
			{ continueOnFail: true },
		);
		// Delete the first report once all three analyses are running (they last 800 ms).
		let victim: string | undefined;
		for (let i = 0; i < 200 && !victim; i++) {
			const c = await counters(ws);
			if (c.attemptsCreated >= 3) victim = String((await reportsOf(ws)).at(-1)?.id);
			else await sleep(20);
		}
		expect(victim).toMatch(/^rpt_/);
		await sandbox.control.deleteReport(victim as string);
		const output = jsonOf(await running);
		const failed = output.filter((o) => o.httpCode === 404);
		expect(failed).toHaveLength(1);
		expect(output.filter((o) => o.status === 'completed')).toHaveLength(2);
		const after = await counters(ws);
		expect(
			requests(after as unknown as IDataObject, 'GET /api/v1/reports/{id}/status'),
		).toBeGreaterThanOrEqual(1);
	});

	it('a start refused for the active-analysis limit waits for capacity and is repeated: every resume analyzed once', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { activeAnalysisLimit: 2 });
		const items = Array.from({ length: 5 }, (_, i) =>
			pdfItem({ candidate: `Capacity ${i}` }, `capacity-${i}.pdf`),
		);
		const before = await counters(ws);
		const output = jsonOf(
			await runNode(
				ws,
				analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60, concurrency: 5 }),
				items,
			),
		);
		const after = await counters(ws);
		expect(output.map((o) => o.status)).toEqual(Array(5).fill('completed'));
		expect(after.attemptsCreated - before.attemptsCreated).toBe(5);
		expect(after.reportsCreated - before.reportsCreated).toBe(5);
	});

	it('without Continue On Fail, a failed wait stops the node: no further item is submitted, no request outlives it', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// 40 ms per call: submitting 12 items one at a time takes about 2 s, longer than the first read (0.5 s).
		await sandbox.control.setFaults({ latencyMs: 40 });
		try {
			const items = Array.from({ length: 12 }, (_, i) =>
				pdfItem({ candidate: `Stop ${i}` }, `stop-${i}.pdf`),
			);
			const running = runNode(
				ws,
				analyzeParams(ws, { waitForCompletion: true, waitTimeout: 60, concurrency: 1 }),
				items,
			);
			let victim: string | undefined;
			for (let i = 0; i < 200 && !victim; i++) {
				const c = await counters(ws);
				if (c.attemptsCreated >= 1) victim = String((await reportsOf(ws)).at(-1)?.id);
				else await sleep(10);
			}
			await sandbox.control.deleteReport(victim as string);
			const result = await running;
			expect(result.error?.message).toContain('404');
			const atStop = await counters(ws);
			expect(atStop.reportsCreated).toBeLessThan(12);
			await sleep(300);
			const later = await counters(ws);
			expect(later.reportsCreated).toBe(atStop.reportsCreated);
			expect(totalRequests(later)).toBe(totalRequests(atStop));
		} finally {
			await sandbox.control.clearFaults();
		}
	});
});
