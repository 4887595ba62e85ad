/**
 * F9: a recruiter's week, in a real n8n (our tarball installed as a community package; 2.x, and 1.x where the
 * fault suite's configuration selects it). One sandbox workspace, one recruiter, the same workflows run day after
 * day on an input that changes a little, as recruiters work (docs/idempotency.md):
 *
 *   Analyze  Manual Trigger → Input (Code: the folder's resumes) → Analyze Many (On Error: continue)
 *   1  a folder of 10 resumes analysed;            2  5 added, run again;          3  the same 15 in another order;
 *   4  a bad file among them, then that file fixed; 5  the allowance exhausted in the middle of a batch (2 left for
 *      4 new files), topped up, run again;
 *   Interview  Input → Invite → Reinterview, run twice (6); Input → Invite with the application ID as Idempotency Key
 *      to a mistyped address, the address corrected and Invite run again, then Input → Reinterview to the corrected
 *      address (7).
 *
 * Measured after each run: the sandbox counters (reports, analysis attempts, interviews) and its mail sink, against
 * what the step asks for (one report and one analysis per distinct file and job, exactly the interviews and emails
 * asked for), and the output of our node: every item that is not refused names its resource (report and attempt,
 * or interview), which the sandbox holds. The steps share their workspace and run in order; each asserts its own
 * new writes, the last one the week's totals.
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
	line === '2' ? 'F9' : `F9-n8n${line}`,
	`A recruiter's week, in a real n8n (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const NONE: Writes = { reports: 0, attempts: 0, interviews: 0, emails: 0 };

let env: RealN8n;
let w: CaseWorkspace;
let credential: { id: string; name: string };
/** The week's writes so far, as the steps asked for them. */
let expectedTotal: Writes = NONE;
const workflows: Record<string, string> = {};

/** A resume of the folder: `resume-<n>.pdf`, the same bytes every time it is read. */
const resume = (n: number) => ({
	json: { fileName: `resume-${n}.pdf`, applicationId: `app-${n}` },
	pdf: makePdf({ candidate: `F9 Candidate ${n}`, outcome: 'completed', score: 6 }),
});
const folder = (numbers: number[]) => numbers.map(resume);
const range = (from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, i) => from + i);
type Item = { json: Record<string, string>; pdf?: Buffer };

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
		name: `F9 ${name} ${randomBytes(3).toString('hex')}`,
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

const emailOf = (n: number, domain = 'example.com') => `f9-candidate-${n}@${domain}`;
const invite = {
	resource: 'interview',
	operation: 'invite',
	reportId: byId('={{ $json.reportId }}'),
	candidateEmail: '={{ $json.email }}',
	delivery: 'email',
	options: {},
};
/** Reinterview with its interview and report from `$json` (Invite's output, or the Input), and the address given. */
const reinterview = (candidateEmail: string) => ({
	resource: 'interview',
	operation: 'reinterview',
	interviewId: byId('={{ $json.interviewId }}'),
	reportId: byId('={{ $json.reportId }}'),
	candidateEmail,
	delivery: 'email',
	options: {},
});

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
const invitations = (n: number): Writes => ({ reports: 0, attempts: 0, interviews: n, emails: n });
const ANALYZE = 'Analyze Many';
/** Reports of the folder by file number, from the last Analyze Many output (for the interview steps). */
const reportOf = new Map<number, string>();
const interviews: Record<string, string> = {};

beforeAll(async () => {
	book.note(
		'One workspace for the whole week; each row is one run of a workflow. "new writes" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) after the run minus before; "asked" is what the step asks for (one report and one analysis per new distinct file and job, the interviews and emails asked for). "items with resource" counts output items naming a report:attempt or interview the sandbox holds; refused items (errorCode, no resource) are counted apart.',
	);
	env = await bootRealN8n('faults-f9');
	w = await caseWorkspace(env.sandbox.baseUrl);
	credential = await env.n8n.createCredential({
		name: 'F9 recruiter',
		type: 'recruitingAnalysisApi',
		data: { environment: 'sandbox', baseUrl: env.sandbox.baseUrl, apiKey: w.ws.apiKey },
	});
	const jobDescriptionId = byId(w.ws.jobDescriptionId);
	const analyze = {
		resource: 'analysis',
		operation: 'analyzeMany',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId,
		options: {},
	};
	workflows.analyze = (
		await env.n8n.createWorkflow(
			workflow('analyze', [
				{ name: ANALYZE, parameters: analyze, onError: 'continueRegularOutput' },
			]),
		)
	).id;
	workflows.inviteThenReinterview = (
		await env.n8n.createWorkflow(
			workflow('invite-reinterview', [
				{ name: 'Invite', parameters: invite },
				{ name: 'Reinterview', parameters: reinterview(emailOf(1)) },
			]),
		)
	).id;
	const keyed = { ...invite, options: { idempotencyKey: '={{ $json.applicationId }}' } };
	workflows.invite = (
		await env.n8n.createWorkflow(workflow('invite', [{ name: 'Invite', parameters: keyed }]))
	).id;
	workflows.reinterview = (
		await env.n8n.createWorkflow(
			workflow('reinterview', [
				{ name: 'Reinterview', parameters: reinterview('={{ $json.email }}') },
			]),
		)
	).id;
}, 420_000);

afterAll(async () => {
	book.table('steps', rows);
	book.set('week totals (sandbox)', w ? formatWrites(await w.writes()) : 'not measured');
	book.set('week totals (asked)', formatWrites(expectedTotal));
	book.save();
	await env?.close();
}, 120_000);

const STEP_TIMEOUT = 300_000;

/** The folder's numbers in the order the step reads them, and the output items by file number. */
function remember(numbers: number[], output: Array<Record<string, unknown>>): void {
	numbers.forEach((n, i) => {
		if (typeof output[i]?.reportId === 'string' && typeof output[i]?.attemptId === 'string')
			reportOf.set(n, String(output[i].reportId));
	});
}

describe("F9: a recruiter's week", () => {
	it(
		'1 a folder of 10 resumes analysed (Analyze Many): 10 reports, 10 analyses',
		async () => {
			const numbers = range(1, 10);
			const { output } = await step(
				{ id: '1', what: '10 resumes analysed', asks: analyses(10), resources: 10 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(numbers)),
			);
			remember(numbers, output);
		},
		STEP_TIMEOUT,
	);

	it(
		'2 five resumes added, run again: 5 new reports and analyses, the first 10 given back',
		async () => {
			const numbers = range(1, 15);
			const { output } = await step(
				{ id: '2', what: '5 added, run again', asks: analyses(5), resources: 15 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(numbers)),
			);
			remember(numbers, output);
		},
		STEP_TIMEOUT,
	);

	it(
		'3 the same 15 files in another order: nothing new',
		async () => {
			const numbers = range(1, 15).reverse();
			await step(
				{ id: '3', what: 'the same 15 in another order', asks: NONE, resources: 15 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(numbers)),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4a a bad file among the 15 (an error item, On Error: continue): nothing new',
		async () => {
			const bad: Item = {
				json: { fileName: 'resume-16.pdf', applicationId: 'app-16' },
				pdf: Buffer.from('not a pdf at all, although it is named one'),
			};
			await step(
				{ id: '4a', what: 'a bad file among the 15', asks: NONE, resources: 15, failed: 1 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', [...folder(range(1, 15)), bad]),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4b the bad file fixed, run again: only the fixed file analysed',
		async () => {
			const numbers = range(1, 16);
			const { output } = await step(
				{ id: '4b', what: 'the bad file fixed, run again', asks: analyses(1), resources: 16 },
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(numbers)),
			);
			remember(numbers, output);
		},
		STEP_TIMEOUT,
	);

	it(
		'5a the allowance exhausted in the middle of a batch (2 analyses left for 4 new files): 4 reports, 2 analyses, 2 items refused',
		async () => {
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 2 });
			await step(
				{
					id: '5a',
					what: '4 new files, 2 analyses of allowance left',
					asks: { reports: 4, attempts: 2, interviews: 0, emails: 0 },
					resources: 18,
					refused: 2,
				},
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(range(1, 20))),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'5b the allowance topped up, run again: the 2 refused analysed, nothing charged twice',
		async () => {
			const numbers = range(1, 20);
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 1000 });
			const { output } = await step(
				{
					id: '5b',
					what: 'allowance topped up, run again',
					asks: { reports: 0, attempts: 2, interviews: 0, emails: 0 },
					resources: 20,
				},
				ANALYZE,
				analysisResource,
				() => runWith('analyze', folder(numbers)),
			);
			remember(numbers, output);
		},
		STEP_TIMEOUT,
	);

	const inviteThenReinterview = () => [
		{ json: { reportId: reportOf.get(1) ?? 'no report of resume-1', email: emailOf(1) } },
	];
	const runs: Record<string, ExecutionDetail> = {};

	it(
		'6a Invite then Reinterview: 2 interviews, 2 emails',
		async () => {
			const first = await step(
				{ id: '6a', what: 'Invite → Reinterview', asks: invitations(2), resources: 1 },
				'Reinterview',
				interviewResource,
				() => runWith('inviteThenReinterview', inviteThenReinterview()),
			);
			runs.first = first.execution;
		},
		STEP_TIMEOUT,
	);

	it(
		'6b the workflow Invite → Reinterview run again: nothing new, both interviews given back',
		async () => {
			const second = await step(
				{ id: '6b', what: 'Invite → Reinterview run again', asks: NONE, resources: 1 },
				'Reinterview',
				interviewResource,
				() => runWith('inviteThenReinterview', inviteThenReinterview()),
			);
			for (const node of ['Invite', 'Reinterview']) {
				expect({
					node,
					ids: nodeOutput(second.execution.data, node).map(interviewResource),
				}).toEqual({ node, ids: nodeOutput(runs.first.data, node).map(interviewResource) });
			}
		},
		STEP_TIMEOUT,
	);

	const typo = () => ({
		reportId: reportOf.get(2) ?? 'no report of resume-2',
		email: emailOf(2, 'exmaple.com'),
		applicationId: 'app-2',
	});
	const corrected = () => ({ ...typo(), email: emailOf(2) });

	it(
		'7a Invite with the application ID as Idempotency Key, to a mistyped address: 1 interview, 1 email',
		async () => {
			const { output } = await step(
				{ id: '7a', what: 'Invite to a mistyped address', asks: invitations(1), resources: 1 },
				'Invite',
				interviewResource,
				() => runWith('invite', [{ json: typo() }]),
			);
			interviews.typo = interviewResource(output[0] ?? {});
		},
		STEP_TIMEOUT,
	);

	it(
		'7b the address corrected, Invite run again: the run fails naming Reinterview, never the old invitation as a success',
		async () => {
			const refused = await step(
				{
					id: '7b',
					what: 'the address corrected, Invite run again',
					asks: NONE,
					resources: 0,
					executionFails: true,
				},
				'Invite',
				interviewResource,
				() => runWith('invite', [{ json: corrected() }]),
			);
			const error = nodeError(refused.execution.data, 'Invite');
			expect(`${error?.message ?? ''} ${error?.description ?? ''}`).toMatch(/Reinterview/);
		},
		STEP_TIMEOUT,
	);

	it(
		'7c Reinterview to the corrected address: 1 interview, 1 email to the corrected address',
		async () => {
			await step(
				{
					id: '7c',
					what: 'Reinterview to the corrected address',
					asks: invitations(1),
					resources: 1,
				},
				'Reinterview',
				interviewResource,
				() =>
					runWith('reinterview', [
						{ json: { ...corrected(), interviewId: interviews.typo ?? 'no interview of step 7a' } },
					]),
			);
			const mail = await w.mail();
			expect({
				corrected: mail.filter((m) => m.to === corrected().email).length,
				typo: mail.filter((m) => m.to === typo().email).length,
			}).toEqual({ corrected: 1, typo: 1 });
		},
		STEP_TIMEOUT,
	);

	it("the week's totals: one report and one analysis per distinct file and job (20), the interviews and emails asked for (4)", async () => {
		const week = await w.writes();
		const asked: Writes = { reports: 20, attempts: 20, interviews: 4, emails: 4 };
		const ok = book.check(
			"the week's writes: 20 reports, 20 analyses, 4 interviews, 4 emails",
			formatWrites(week),
			Object.values(minus(week, asked)).every((n) => n === 0),
		);
		expect({ week, ok }).toEqual({ week: asked, ok: true });
	});
});
