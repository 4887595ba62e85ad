/**
 * Fewer calls for the same outputs: the quotes of a run's starts gathered into batch quotes, Start
 * Many's check for earlier attempts answered by report list pages, and Analyze Many's simplified items built from a
 * list page's summaries. Counted by the sandbox, per route; each output checked as before.
 */
import type { IDataObject } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	type Counters,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;

useTestSandbox((started) => (sandbox = started), { sandbox: { workerDelayMs: 50 } });

const delta = (before: Counters, after: Counters) => (route: string) =>
	(after.requests[route] ?? 0) - (before.requests[route] ?? 0);

async function uploaded(ws: Workspace, n: number, tag: string): Promise<string[]> {
	const params = {
		resource: 'upload',
		operation: 'uploadResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
	};
	const items = Array.from({ length: n }, (_, i) =>
		pdfItem({ candidate: `${tag} ${i}`, score: 6 }, `${tag}-${i}.pdf`),
	);
	return jsonOf(await runNode(ws, params, items)).map((o) => String(o.reportId));
}

const startParams = (reportId: string) => ({ resource: 'analysis', operation: 'start', reportId });
const idItems = (ids: string[]) => ids.map((id) => ({ json: { id } }));

describe('quotes gathered across the starts of one run', () => {
	it('Analyze Resume of 12 resumes with 10 lanes needs fewer quote requests than resumes, and every start is admitted once', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = Array.from({ length: 12 }, (_, i) =>
			pdfItem({ candidate: `Gathered ${i}` }, `gathered-${i}.pdf`),
		);
		const before = await counters(ws);
		const out = jsonOf(await runNode(ws, analyzeParams(ws, { concurrency: 10 }), items));
		const after = await counters(ws);
		const d = delta(before, after);
		expect(out).toHaveLength(12);
		for (const item of out) {
			expect(item.attemptId).toMatch(/^att_/);
			expect(item.quote).toMatchObject({
				creditUnits: expect.any(Number),
				creditScale: expect.any(Number),
			});
		}
		expect(after.attemptsCreated - before.attemptsCreated).toBe(12);
		expect(d('POST /api/v1/analysis-batch-quotes')).toBeGreaterThan(0);
		expect(
			d('POST /api/v1/analysis-quotes') + d('POST /api/v1/analysis-batch-quotes'),
		).toBeLessThan(12);
		// One start per resume: a gathered quote's fingerprint is the one the start's key and body need.
		expect(d('POST /api/v1/analyses')).toBe(12);
	});

	it('bound by the active-analysis limit, the quotes of lanes released one after another leave together: at most a third as many quote requests as resumes, each resume analyzed once', async () => {
		const n = 40;
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, {
			activeAnalysisLimit: 5,
			analysisDurationMs: 1_500,
		});
		const items = Array.from({ length: n }, (_, i) =>
			pdfItem({ candidate: `Bound ${i}` }, `bound-${i}.pdf`),
		);
		const before = await counters(ws);
		const out = jsonOf(
			await runNode(
				ws,
				analyzeParams(ws, { waitForCompletion: true, waitTimeout: 120, concurrency: 10 }),
				items,
			),
		);
		const after = await counters(ws);
		const d = delta(before, after);
		expect(out.map((item) => item.status)).toEqual(Array(n).fill('completed'));
		expect(after.reportsCreated - before.reportsCreated).toBe(n);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(n);
		// Quoting at once whenever no quote was in flight, these 40 resumes took 25 quote requests, 20 of them single.
		// Gathered they take about one request per place that opens: 8 or 9 on a quiet machine, 12 through Prism
		// beside three busy test lanes (the places open less together when the machine is slow), so the bound is a
		// third, well under the 25 of quoting at once.
		const quotes = d('POST /api/v1/analysis-quotes') + d('POST /api/v1/analysis-batch-quotes');
		expect(quotes).toBeLessThanOrEqual(Math.floor(n / 3));
		expect(d('POST /api/v1/analysis-batch-quotes')).toBeGreaterThan(0);
	}, 120_000);

	it("a report a gathered quote cannot quote is quoted alone: an analyzed one is recovered, an unknown one fails with the single quote's error", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const fresh = await uploaded(ws, 5, 'fresh');
		const [done] = await uploaded(ws, 1, 'done');
		const first = jsonOf(await runNode(ws, startParams(done), [{ json: {} }]));
		expect(first[0].attemptId).toMatch(/^att_/);
		const unknown = 'rpt_doesnotexist0000000000';
		const alone = jsonOf(
			await runNode(ws, startParams(unknown), [{ json: {} }], { continueOnFail: true }),
		)[0];
		expect(typeof alone.error).toBe('string');

		const ids = [...fresh.slice(0, 2), done, unknown, ...fresh.slice(2)];
		const before = await counters(ws);
		const out = jsonOf(
			await runNode(
				ws,
				{ ...startParams('={{ $json.id }}'), options: { concurrency: 10 } },
				idItems(ids),
				{ continueOnFail: true },
			),
		);
		const after = await counters(ws);
		expect(out).toHaveLength(ids.length);
		expect(out[2]).toMatchObject({
			reportId: done,
			recovered: true,
			attemptId: first[0].attemptId,
		});
		// The same message, with the item number of this run (the editor's, from 1).
		expect(out[3].error).toBe(String(alone.error).replace('[item 1]', '[item 4]'));
		for (const i of [0, 1, 4, 5, 6])
			expect(out[i]).toMatchObject({ reportId: ids[i], attemptId: expect.stringMatching(/^att_/) });
		expect(after.attemptsCreated - before.attemptsCreated).toBe(5);
		expect(delta(before, after)('POST /api/v1/analysis-batch-quotes')).toBeGreaterThan(0);
	});
});

describe('Start Many checks earlier attempts with report list pages', () => {
	it('45 reports, one started before: no status read per report before quoting, the started one recovered, 44 admitted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const ids = await uploaded(ws, 45, 'many');
		const earlier = jsonOf(await runNode(ws, startParams(ids[30]), [{ json: {} }]))[0];
		const before = await counters(ws);
		const out = jsonOf(
			await runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'startMany',
					reportId: '={{ $json.id }}',
					simplify: false,
				},
				idItems(ids),
			),
		);
		const after = await counters(ws);
		const d = delta(before, after);
		expect(out).toHaveLength(45);
		expect(out[30]).toMatchObject({
			reportId: ids[30],
			recovered: true,
			attemptId: earlier.attemptId,
		});
		expect(
			out.filter((o) => o.recovered !== true).every((o) => typeof o.attemptId === 'string'),
		).toBe(true);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(44);
		// Only the recovered report is read back (recover.ts); before, each of the 45 had a status read first.
		expect(d('GET /api/v1/reports/{id}/status')).toBe(1);
		// One walk of the newest pages (45 reports fit one page) serves the three chunks (Simplify off: no other list read).
		expect(d('GET /api/v1/reports')).toBe(1);
	});
});

describe("Start Many's simplified items from the list page of their creation window", () => {
	it('250 reports: the oldest chunks, beyond the newest pages, are read from one window page each, not one report at a time', async () => {
		const ws = await newWorkspace(sandbox.baseUrl, {
			pendingUploadLimit: 1000,
			activeAnalysisLimit: 1000,
		});
		const items = Array.from({ length: 250 }, (_, i) =>
			pdfItem({ candidate: `Window ${i}`, score: 5 }, `window-${i}.pdf`),
		);
		const uploadMany = {
			resource: 'upload',
			operation: 'uploadMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		};
		const ids = jsonOf(await runNode(ws, uploadMany, items)).map((o) => String(o.reportId));
		expect(ids).toHaveLength(250);
		const before = await counters(ws);
		const out = jsonOf(
			await runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'startMany',
					reportId: '={{ $json.id }}',
					simplify: true,
				},
				idItems(ids),
			),
		);
		const after = await counters(ws);
		const d = delta(before, after);
		expect(out).toHaveLength(250);
		out.forEach((item: IDataObject, i) =>
			expect(item).toMatchObject({
				candidateName: `Window ${i}`,
				score: 5,
				status: 'completed',
				reportId: ids[i],
			}),
		);
		expect(d('GET /api/v1/reports/{id}')).toBe(0);
		expect(d('GET /api/v1/reports/{id}/status')).toBe(0);
		expect(d('GET /api/v1/reports/{id}/result')).toBe(250);
		// The check's walk (at most 4 pages for 250 reports), then one page per chunk of 20.
		expect(d('GET /api/v1/reports')).toBeLessThanOrEqual(4 + 13);
	}, 120_000);
});

describe("Analyze Many's simplified items from a list page", () => {
	it('25 resumes: no summary read per report, one result read per completed report, the same simplified items', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = Array.from({ length: 25 }, (_, i) =>
			pdfItem({ candidate: `Listed ${i}`, score: 7 }, `listed-${i}.pdf`),
		);
		const params = {
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			simplify: true,
		};
		const before = await counters(ws);
		const out = jsonOf(await runNode(ws, params, items));
		const after = await counters(ws);
		const d = delta(before, after);
		expect(out).toHaveLength(25);
		out.forEach((item: IDataObject, i) => {
			expect(item).toMatchObject({
				candidateName: `Listed ${i}`,
				score: 7,
				scoreMaximum: 10,
				status: 'completed',
				fileName: `listed-${i}.pdf`,
			});
			expect(typeof item.recommendation).toBe('string');
		});
		expect(d('GET /api/v1/reports/{id}')).toBe(0);
		expect(d('GET /api/v1/reports/{id}/result')).toBe(25);
		expect(d('GET /api/v1/reports')).toBeLessThanOrEqual(2);
	});
});
