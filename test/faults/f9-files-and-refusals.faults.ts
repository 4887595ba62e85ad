/**
 * F9 (files and refusals): what a recruiter's files and allowance do over days, in a real n8n (our tarball installed
 * as a community package; 2.x, and 1.x where the fault suite's configuration selects it). One sandbox workspace;
 * each step one run of a workflow (docs/idempotency.md, "What makes a file the same", "Recovery checks the file",
 * "What a re-run does with refused items"):
 *
 *   1  two resumes analysed (Analyze Many), then the same two downloaded again under other names: nothing new;
 *   2  a scan that fails (unreadable) under the application ID; the re-scan under the same ID fails before any
 *      charge naming the failed report; the re-scan without a reference of the user's is analysed;
 *   3  the analysis allowance exhausted for a whole batch, topped up, run again; the same for Invite Many, with a
 *      price change between the runs;
 *   4  files prepared (Upload Many) and left 25 hours (past the 24-hour preparation lifetime and the strict
 *      profile's receipt lifetime): Analyze Many renews each preparation once; run again: nothing new.
 *
 * Measured after each run: the sandbox counters (reports, analysis attempts, interviews), its mail sink, and the
 * output of our node: every item that is not refused names its resource (report and attempt, or interview), which
 * the sandbox holds.
 */
import { randomBytes } from 'node:crypto';

import { FigureBook, type FigureValue } from './figures';
import {
	caseWorkspace,
	finishedExecution,
	formatWrites,
	minus,
	runManually,
	updateWorkflow,
	type CaseWorkspace,
	type Writes,
} from './f8-harness';
import { makePdf } from '../fixtures/resumes';
import {
	nodeError,
	nodeOutput,
	type ExecutionDetail,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import {
	bootRealN8n,
	n8nLineUnderTest,
	n8nUnderTest,
	NODE_TYPES,
	type RealN8n,
} from '../e2e/helpers';
import type { Json } from '../helpers/sandbox';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-files' : `F9-files-n8n${line}`,
	`Files and refusals over days, in a real n8n (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const NONE: Writes = { reports: 0, attempts: 0, interviews: 0, emails: 0 };

let env: RealN8n;
let w: CaseWorkspace;
let credential: { id: string; name: string };
let expectedTotal: Writes = NONE;
const workflows: Record<string, string> = {};

type Item = { json: Record<string, string>; pdf?: Buffer };
/** A resume: the same bytes every time for the same candidate and outcome, under the name given. */
const resume = (
	candidate: string,
	fileName: string,
	outcome: 'completed' | 'failed' = 'completed',
): Item => ({
	json: { fileName, applicationId: `app-${candidate}` },
	pdf: makePdf({ candidate: `F9 files ${candidate}`, outcome, score: 6 }),
});

const randomId = () =>
	randomBytes(16)
		.toString('hex')
		.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

function inputCode(items: Item[]): string {
	const data = items.map((i) => ({
		json: i.json,
		...(i.pdf
			? {
					binary: {
						data: {
							data: i.pdf.toString('base64'),
							mimeType: 'application/pdf',
							fileName: i.json.fileName,
							fileExtension: 'pdf',
						},
					},
				}
			: {}),
	}));
	return `return ${JSON.stringify(data)};`;
}

/** Manual Trigger → Input (Code) → our nodes, in order (the newest node version, as a new workflow gets). */
function workflow(
	name: string,
	nodes: Array<{ name: string; parameters: Record<string, unknown>; onError?: string }>,
): WorkflowJson {
	const names = ['Start', 'Input', ...nodes.map((n) => n.name)];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < names.length - 1; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return {
		name: `F9 files ${name} ${randomBytes(3).toString('hex')}`,
		nodes: [
			{
				id: randomId(),
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomId(),
				name: 'Input',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: inputCode([]) },
			},
			...nodes.map((n, i) => ({
				id: randomId(),
				name: n.name,
				type: NODE_TYPES.action,
				typeVersion: 2,
				position: [440 + 220 * i, 0] as [number, number],
				parameters: n.parameters,
				credentials: { recruitingAnalysisApi: credential },
				...(n.onError ? { onError: n.onError } : {}),
			})),
		],
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/** Puts `items` in the workflow's Input (the editor's Save), runs it (Execute workflow) and waits for the end. */
async function runWith(kind: string, items: Item[]): Promise<ExecutionDetail> {
	await updateWorkflow(env.n8n, workflows[kind], (wf) => {
		const input = wf.nodes.find((n) => n.name === 'Input')!;
		input.parameters = { ...input.parameters, jsCode: inputCode(items) };
	});
	return await finishedExecution(env.n8n, await executeWorkflow(workflows[kind]));
}

/**
 * "Execute workflow" in the editor, from the manual trigger. n8n 2.x takes the saved workflow (f8-harness.ts
 * runManually); n8n 1.x wants the workflow in the request as the editor sends it (workflowData, with its id).
 */
async function executeWorkflow(workflowId: string): Promise<string> {
	if (line === '2') return await runManually(env.n8n, workflowId);
	const workflowData = await env.n8n.getWorkflow(workflowId);
	const started = await env.n8n.rest<{ executionId?: string }>(
		'POST',
		`/workflows/${workflowId}/run`,
		{ workflowData, triggerToStartFrom: { name: 'Start' } },
	);
	if (!started.executionId)
		throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(started)}`);
	return started.executionId;
}

/** Every item of a list endpoint, page after page. */
async function listAll(path: string): Promise<Array<Record<string, unknown>>> {
	const items: Array<Record<string, unknown>> = [];
	let cursor: string | null = null;
	do {
		const page: { body: Json } = await w.ws.call(
			'GET',
			`${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		items.push(...((page.body?.data?.items ?? []) as Array<Record<string, unknown>>));
		cursor = (page.body?.data?.nextCursor as string | null | undefined) ?? null;
	} while (cursor);
	return items;
}

/** Reports as `rpt_…:att_…` and every interview id the workspace holds (the resources an item may name). */
async function held(): Promise<Set<string>> {
	const reports = await listAll('/api/v1/reports');
	const interviews = await listAll('/api/v1/interviews');
	return new Set([
		...reports.map((r) => `${String(r.id)}:${String(r.attemptId)}`),
		...interviews.map((i) => String(i.id)),
	]);
}

const analysisResource = (o: Record<string, unknown>) =>
	typeof o.reportId === 'string' && typeof o.attemptId === 'string'
		? `${o.reportId}:${o.attemptId}`
		: '';
const interviewResource = (o: Record<string, unknown>) =>
	typeof o.interviewId === 'string' ? o.interviewId : '';

interface StepSpec {
	id: string;
	what: string;
	/** New writes the step asks for. */
	asks: Writes;
	/** Items the step expects refused without a charge (their errorCode), and items expected to fail (error). */
	refused?: number;
	failed?: number;
	/** Whether the execution is expected to end in error (the corrected address sent to Invite). */
	executionFails?: boolean;
	/** Distinct resources the node's output must name (one per distinct file or interview asked for). */
	resources: number;
}

interface StepResult {
	execution: ExecutionDetail;
	output: Array<Record<string, unknown>>;
}

/** Measures and records one step; returns what the step's test asserts. */
async function step(
	spec: StepSpec,
	node: string,
	resourceOf: (o: Record<string, unknown>) => string,
	run: () => Promise<ExecutionDetail>,
): Promise<StepResult> {
	const started = Date.now();
	const before = await w.writes();
	const requestsBefore = await requestsByRoute();
	const execution = await run();
	// Read before the writes: measuring them reads the interview list (until every email has left the outbox).
	const requestsAfter = await requestsByRoute();
	const after = await w.writes();
	const byRoute = Object.fromEntries(
		Object.entries(requestsAfter)
			.map(([route, n]) => [route, n - (requestsBefore[route] ?? 0)] as const)
			.filter(([, n]) => n > 0),
	);
	const requests = Object.values(byRoute).reduce((sum, n) => sum + n, 0);
	book.set(`${spec.id}: API requests by route`, byRoute);
	const added = minus(after, before);
	expectedTotal = {
		reports: expectedTotal.reports + spec.asks.reports,
		attempts: expectedTotal.attempts + spec.asks.attempts,
		interviews: expectedTotal.interviews + spec.asks.interviews,
		emails: expectedTotal.emails + spec.asks.emails,
	};
	const output = nodeOutput(execution.data, node);
	const inSandbox = await held();
	const named = output.map(resourceOf).filter((r) => r !== '');
	const refused = output.filter(
		(o) => typeof o.errorCode === 'string' && o.errorCode !== '' && resourceOf(o) === '',
	).length;
	const failed = output.filter((o) => o.error !== undefined).length;
	const error = execution.data.resultData.lastNodeExecuted
		? nodeError(execution.data, execution.data.resultData.lastNodeExecuted)
		: undefined;
	const errorText = error ? `${error.message} ${error.description ?? ''}`.trim() : '';
	const resourcesOk =
		named.every((r) => inSandbox.has(r)) && new Set(named).size === spec.resources;
	const ok =
		Object.values(minus(added, spec.asks)).every((n) => n === 0) &&
		resourcesOk &&
		refused === (spec.refused ?? 0) &&
		failed === (spec.failed ?? 0) &&
		(spec.executionFails ? execution.status === 'error' : execution.status === 'success');
	rows.push({
		step: spec.id,
		what: spec.what,
		execution: `${execution.status}${errorText ? ` (${errorText.slice(0, 160)})` : ''}`,
		'new writes': formatWrites(added),
		asked: formatWrites(spec.asks),
		'week so far': formatWrites(after),
		'week expected': formatWrites(expectedTotal),
		'API requests (node)': requests,
		items: output.length,
		'items with resource': `${named.filter((r) => inSandbox.has(r)).length} (distinct ${new Set(named).size}, expected ${spec.resources})`,
		'refused / failed items': `${refused} / ${failed}`,
		seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
		held: ok ? 'yes' : '**no**',
	});
	book.check(
		`${spec.id} ${spec.what}: ${formatWrites(spec.asks, 'no new write')}; ${spec.resources} distinct resources named${spec.refused ? `; ${spec.refused} refused` : ''}${spec.executionFails ? '; the run fails' : ''}`,
		`new ${formatWrites(added)}; ${named.length} items name ${new Set(named).size} resources, ${named.filter((r) => inSandbox.has(r)).length} held; refused ${refused}, failed ${failed}; ${execution.status}${errorText ? ` (${errorText.slice(0, 160)})` : ''}`,
		ok,
	);
	process.stderr.write(
		`[F9] ${spec.id}: ${ok ? 'held' : 'DID NOT HOLD'}; new ${formatWrites(added)} (asked ${formatWrites(spec.asks)}); ${execution.status} ${errorText.slice(0, 200)}\n`,
	);
	expect({ step: spec.id, added }).toEqual({ step: spec.id, added: spec.asks });
	expect({ step: spec.id, execution: execution.status }).toEqual({
		step: spec.id,
		execution: spec.executionFails ? 'error' : 'success',
	});
	expect({ step: spec.id, refused, failed }).toEqual({
		step: spec.id,
		refused: spec.refused ?? 0,
		failed: spec.failed ?? 0,
	});
	expect({
		step: spec.id,
		distinct: new Set(named).size,
		notHeld: named.filter((r) => !inSandbox.has(r)),
	}).toEqual({ step: spec.id, distinct: spec.resources, notHeld: [] });
	return { execution, output };
}

/** The workspace's API requests so far, by route (the sandbox counters). */
async function requestsByRoute(): Promise<Record<string, number>> {
	return (await w.control.counters(w.ws.workspaceId)).requests ?? {};
}

const analyses = (n: number): Writes => ({ reports: n, attempts: n, interviews: 0, emails: 0 });
const ANALYZE = 'Analyze Many';
const uploadResource = (o: Record<string, unknown>) =>
	typeof o.reportId === 'string' ? `${o.reportId}:${String(o.attemptId ?? null)}` : '';
/** Reports of the whole-refusal step, by item, for Invite Many. */
let refusedReports: string[] = [];

beforeAll(async () => {
	book.note(
		'One workspace; each row is one run of a workflow. "new writes" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) after the run minus before; "asked" is what the step asks for. "items with resource" counts output items naming a report:attempt or interview the sandbox holds; refused items (errorCode, no resource) and failed items (error) are counted apart.',
	);
	env = await bootRealN8n('faults-f9-files');
	w = await caseWorkspace(env.sandbox.baseUrl);
	credential = await env.n8n.createCredential({
		name: 'F9 files recruiter',
		type: 'recruitingAnalysisApi',
		data: { environment: 'sandbox', baseUrl: env.sandbox.baseUrl, apiKey: w.ws.apiKey },
	});
	const files = {
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: byId(w.ws.jobDescriptionId),
	};
	const analyze = { resource: 'analysis', operation: 'analyzeMany', ...files, options: {} };
	const create = async (name: string, node: string, parameters: Record<string, unknown>) =>
		(
			await env.n8n.createWorkflow(
				workflow(name, [{ name: node, parameters, onError: 'continueRegularOutput' }]),
			)
		).id;
	workflows.analyze = await create('analyze', ANALYZE, analyze);
	workflows.byApplication = await create('by-application', ANALYZE, {
		...analyze,
		options: {
			externalReferenceSource: 'my-ats',
			externalReferenceId: '={{ $json.applicationId }}',
		},
	});
	workflows.upload = await create('upload', 'Upload Many', {
		resource: 'upload',
		operation: 'uploadMany',
		...files,
		options: {},
	});
	workflows.invite = await create('invite', 'Invite Many', {
		resource: 'interview',
		operation: 'inviteMany',
		reportId: '={{ $json.reportId }}',
		candidateEmail: '={{ $json.email }}',
		options: {},
	});
}, 420_000);

afterAll(async () => {
	book.table('steps', rows);
	book.set('totals (sandbox)', w ? formatWrites(await w.writes()) : 'not measured');
	book.set('totals (asked)', formatWrites(expectedTotal));
	book.save();
	await env?.close();
}, 120_000);

const STEP_TIMEOUT = 300_000;
/** A person changes the allowance, seconds after the run (a replayed batch is told by its creation time). */
const later = async () => await new Promise((resolve) => setTimeout(resolve, 2000));

describe('F9: files and refusals over days', () => {
	const two = [resume('a', 'resume.pdf'), resume('b', 'cv.pdf')];

	it(
		'1a two resumes analysed: 2 reports, 2 analyses',
		async () => {
			await step(
				{ id: '1a', what: 'two resumes analysed', asks: analyses(2), resources: 2 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', two),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'1b the same two files downloaded again as "resume (1).pdf" and "download.pdf": nothing new, each item says sameFileAsBefore',
		async () => {
			const renamed = two.map((item, i) => ({
				...item,
				json: { ...item.json, fileName: ['resume (1).pdf', 'download.pdf'][i] },
			}));
			const { output } = await step(
				{ id: '1b', what: 'the same two files under other names', asks: NONE, resources: 2 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', renamed),
			);
			expect(output.map((o) => o.sameFileAsBefore)).toEqual([true, true]);
		},
		STEP_TIMEOUT,
	);

	const scan = resume('c', 'scan.pdf', 'failed');
	const rescan = resume('c', 'scan.pdf');
	let failedReport = '';

	it(
		'2a a scan the service cannot read, under the application ID: 1 report, 1 (failed) analysis',
		async () => {
			const { output } = await step(
				{ id: '2a', what: 'an unreadable scan', asks: analyses(1), resources: 1 },
				ANALYZE,
				analysisResource,
				() => runWith('byApplication', [scan]),
			);
			failedReport = String(output[0]?.reportId);
		},
		STEP_TIMEOUT,
	);

	it(
		'2b the re-scan under the same application ID: nothing charged, the item names the failed report and says to use another reference ID',
		async () => {
			const { output } = await step(
				{ id: '2b', what: 'the re-scan, same application ID', asks: NONE, resources: 0, failed: 1 },
				ANALYZE,
				analysisResource,
				() => runWith('byApplication', [rescan]),
			);
			expect(JSON.stringify(output[0])).toContain(`held by report ${failedReport}`);
		},
		STEP_TIMEOUT,
	);

	it(
		"2c the re-scan without a reference of the user's: the file it carries now is analysed (1 report, 1 analysis)",
		async () => {
			await step(
				{
					id: '2c',
					what: "the re-scan, the node's file reference",
					asks: analyses(1),
					resources: 1,
				},
				ANALYZE,
				analysisResource,
				() => runWith('analyze', [rescan]),
			);
		},
		STEP_TIMEOUT,
	);

	const three = ['d', 'e', 'f'].map((c) => resume(c, `resume-${c}.pdf`));

	it(
		'3a three new files with no analysis allowance left: 3 reports, every analysis refused',
		async () => {
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 0 });
			const { output } = await step(
				{
					id: '3a',
					what: 'a whole batch refused for the allowance',
					asks: { reports: 3, attempts: 0, interviews: 0, emails: 0 },
					resources: 0,
					refused: 3,
				},
				ANALYZE,
				analysisResource,
				() => runWith('analyze', three),
			);
			refusedReports = output.map((o) => String(o.reportId));
		},
		STEP_TIMEOUT,
	);

	it(
		'3b the allowance topped up, run again: the 3 analysed on their reports',
		async () => {
			await later();
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 1000 });
			const { output } = await step(
				{
					id: '3b',
					what: 'allowance topped up, run again',
					asks: { reports: 0, attempts: 3, interviews: 0, emails: 0 },
					resources: 3,
				},
				ANALYZE,
				analysisResource,
				() => runWith('analyze', three),
			);
			expect(output.map((o) => o.reportId)).toEqual(refusedReports);
		},
		STEP_TIMEOUT,
	);

	const candidates = () =>
		refusedReports.map((reportId, i) => ({
			json: { reportId, email: `f9-files-${i}@example.com` },
		}));

	it(
		'3c Invite Many with no interview allowance left: every invitation refused, nothing sent',
		async () => {
			await waitForReports(refusedReports);
			await w.control.patchWorkspace(w.ws.workspaceId, { interviewAllowance: 0 });
			await step(
				{
					id: '3c',
					what: 'a whole invitation batch refused',
					asks: NONE,
					resources: 0,
					refused: 3,
				},
				'Invite Many',
				interviewResource,
				() => runWith('invite', candidates()),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'3d the interview allowance topped up and the price changed, run again: 3 interviews, 3 emails',
		async () => {
			await later();
			await w.control.patchWorkspace(w.ws.workspaceId, {
				interviewAllowance: 1000,
				priceVersion: 2,
			});
			await step(
				{
					id: '3d',
					what: 'topped up, price changed, run again',
					asks: { reports: 0, attempts: 0, interviews: 3, emails: 3 },
					resources: 3,
				},
				'Invite Many',
				interviewResource,
				() => runWith('invite', candidates()),
			);
		},
		STEP_TIMEOUT,
	);

	const aged = ['g', 'h'].map((c) => resume(c, `aged-${c}.pdf`));

	it(
		'4a two files prepared (Upload Many), never analysed: 2 reports',
		async () => {
			await step(
				{
					id: '4a',
					what: 'two files prepared',
					asks: { reports: 2, attempts: 0, interviews: 0, emails: 0 },
					resources: 2,
				},
				'Upload Many',
				uploadResource,
				() => runWith('upload', aged),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4b 25 hours later (past the preparation lifetime): Analyze Many renews each preparation once and analyses it',
		async () => {
			await w.control.advanceClock(25 * 3600 * 1000);
			const { output } = await step(
				{ id: '4b', what: 'analysed 25 hours later', asks: analyses(2), resources: 2 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', aged),
			);
			expect(output.every((o) => typeof o.replacesExpiredReportId === 'string')).toBe(true);
		},
		STEP_TIMEOUT,
	);

	it(
		'4c the receipts forgotten, run again: nothing new (the renewals are found through the file reference)',
		async () => {
			await w.control.forgetReceipts(w.ws.workspaceId);
			await step(
				{ id: '4c', what: 'receipts forgotten, run again', asks: NONE, resources: 2 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', aged),
			);
		},
		STEP_TIMEOUT,
	);
});

/** Waits until the reports' analyses have finished (an invitation needs a completed analysis). */
async function waitForReports(reportIds: string[]): Promise<void> {
	const until = Date.now() + 60_000;
	for (;;) {
		const reports = await listAll('/api/v1/reports');
		const done = reportIds.every((id) =>
			reports.some((r) => r.id === id && r.status === 'completed'),
		);
		if (done) return;
		if (Date.now() > until) throw new Error('analyses not finished');
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}
