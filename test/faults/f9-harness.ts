/**
 * The machinery the F9 files share (a recruiter's days in a real n8n: f9-*.faults.ts): workflows that begin with a
 * Manual Trigger and an Input (Code) node (run as the editor's "Execute workflow": N8nInstance.runManually), the
 * workspace's lists, and RecruiterSteps: one run of a workflow per step, measured against the writes it asks for
 * and recorded in the file's figure book. Every function takes the n8n, the workspace and the workflows it works on.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { FigureBook, FigureValue } from './figures';
import {
	formatWrites,
	inputCode,
	minus,
	plus,
	randomId,
	startAndInput,
	updateWorkflow,
	type CaseWorkspace,
	type InputItem,
	type Writes,
} from './f8-harness';
import {
	delay,
	nodeError,
	nodeOutput,
	type ExecutionDetail,
	type N8nInstance,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import { NODE_TYPES, type RealN8n } from '../e2e/helpers';
import { makePdf } from '../fixtures/resumes';
import type { Json } from '../helpers/sandbox';

export const NONE: Writes = { reports: 0, attempts: 0, interviews: 0, emails: 0 };
export const analyses = (n: number): Writes => ({
	reports: n,
	attempts: n,
	interviews: 0,
	emails: 0,
});
export const STEP_TIMEOUT = 300_000;
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

export type Credential = { id: string; name: string };

/** The recruiter's credential in n8n: the workspace's API key on the sandbox the n8n talks to. */
export async function recruiterCredential(
	env: RealN8n,
	w: CaseWorkspace,
	name: string,
	/** Where n8n reaches the API (default: the sandbox itself; a clockShiftingProxy in front of it). */
	baseUrl = env.sandbox.baseUrl,
): Promise<Credential> {
	return await env.n8n.createCredential({
		name,
		type: 'recruitingAnalysisApi',
		data: { environment: 'sandbox', baseUrl, apiKey: w.ws.apiKey },
	});
}

/** One of our action nodes (the newest node version, as a new workflow gets) at `x` on the canvas. */
export function actionNode(
	credential: Credential,
	name: string,
	x: number,
	parameters: Record<string, unknown>,
	onError?: string,
): WorkflowJson['nodes'][number] {
	return {
		id: randomId(),
		name,
		type: NODE_TYPES.action,
		typeVersion: 2,
		position: [x, 0],
		parameters,
		credentials: { recruitingAnalysisApi: credential },
		...(onError ? { onError } : {}),
	};
}

/** Manual Trigger → Input (Code: `jsCode`) → `nodes`, each connected to the next; named `name` and a random tail. */
export function inputWorkflow(
	name: string,
	jsCode: string,
	nodes: WorkflowJson['nodes'],
): WorkflowJson {
	const all = [...startAndInput(jsCode), ...nodes];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < all.length - 1; i++)
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	return {
		name: `${name} ${randomBytes(3).toString('hex')}`,
		nodes: all,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/** Every item of a list endpoint of the workspace, page after page. */
export async function listAll(
	w: CaseWorkspace,
	path: string,
): Promise<Array<Record<string, unknown>>> {
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
async function held(w: CaseWorkspace): Promise<Set<string>> {
	const reports = await listAll(w, '/api/v1/reports');
	const interviews = await listAll(w, '/api/v1/interviews');
	return new Set([
		...reports.map((r) => `${String(r.id)}:${String(r.attemptId)}`),
		...interviews.map((i) => String(i.id)),
	]);
}

export { analysisResource } from './f8-harness';
/** The interview an output item names ('' when it names none). */
export const interviewResource = (o: Record<string, unknown>) =>
	typeof o.interviewId === 'string' ? o.interviewId : '';

export interface StepSpec {
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

export interface StepResult {
	execution: ExecutionDetail;
	output: Array<Record<string, unknown>>;
}

/** An action node of a workflow RecruiterSteps creates (after Start and Input). */
export interface ChainedNode {
	name: string;
	parameters: Record<string, unknown>;
	onError?: string;
}

/** What a step measured (RecruiterSteps.measure) and what its test asserts (step). */
interface Measured extends StepResult {
	added: Writes;
	refused: number;
	failed: number;
	named: string[];
	inSandbox: Set<string>;
}

/**
 * The steps of one F9 file: its workflows in one n8n, under one credential of one workspace (created once, their
 * Input edited and saved before each run, as a recruiter does), each run measured as a step, its row and claim
 * written to `book`.
 */
export class RecruiterSteps {
	readonly rows: Array<Record<string, FigureValue>> = [];
	/** The writes so far, as the steps asked for them. */
	expectedTotal: Writes = NONE;
	/** Each workflow: its id, its last node (the one a step checks) and the resource that node's items name. */
	private readonly workflows: Record<
		string,
		{ id: string; checked: string; resourceOf: (o: Record<string, unknown>) => string }
	> = {};

	constructor(
		private readonly o: {
			env: RealN8n;
			w: CaseWorkspace;
			credential: Credential;
			book: FigureBook;
			/** The start of every workflow's name ("F9 files"). */
			name: string;
		},
	) {}

	/** Creates the workflow `kind`: Start → Input → `nodes`, named after `name`; its steps check the last node. */
	async create(
		kind: string,
		name: string,
		nodes: ChainedNode[],
		resourceOf: (o: Record<string, unknown>) => string,
	): Promise<void> {
		const ours = nodes.map((n, i) =>
			actionNode(this.o.credential, n.name, 440 + 220 * i, n.parameters, n.onError),
		);
		const wf = inputWorkflow(`${this.o.name} ${name}`, inputCode([]), ours);
		const { id } = await this.o.env.n8n.createWorkflow(wf);
		this.workflows[kind] = { id, checked: nodes.at(-1)!.name, resourceOf };
	}

	/** Puts `items` in the workflow's Input (the editor's Save), runs it (Execute workflow) and waits for the end. */
	async runWith(kind: string, items: InputItem[]): Promise<ExecutionDetail> {
		const { env } = this.o;
		const { id } = this.workflows[kind];
		await updateWorkflow(env.n8n, id, (wf) => {
			const input = wf.nodes.find((n) => n.name === 'Input')!;
			input.parameters = { ...input.parameters, jsCode: inputCode(items) };
		});
		return await env.n8n.runManually(id);
	}

	/** Runs the workflow `kind` on `items` and records the step: its row, its claim and its request counts. */
	async measure(spec: StepSpec, kind: string, items: InputItem[]): Promise<Measured> {
		const { w, book } = this.o;
		const { checked, resourceOf } = this.workflows[kind];
		const started = Date.now();
		const before = await w.writes();
		const requestsBefore = await this.requestsByRoute();
		const execution = await this.runWith(kind, items);
		// Read before the writes: measuring them reads the interview list (until every email has left the outbox).
		const requestsAfter = await this.requestsByRoute();
		const after = await w.writes();
		const byRoute = Object.fromEntries(
			Object.entries(requestsAfter)
				.map(([route, n]) => [route, n - (requestsBefore[route] ?? 0)] as const)
				.filter(([, n]) => n > 0),
		);
		const requests = Object.values(byRoute).reduce((sum, n) => sum + n, 0);
		book.set(`${spec.id}: API requests by route`, byRoute);
		const added = minus(after, before);
		this.expectedTotal = plus(this.expectedTotal, spec.asks);
		const output = nodeOutput(execution.data, checked);
		const inSandbox = await held(w);
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
		this.rows.push({
			step: spec.id,
			what: spec.what,
			execution: `${execution.status}${errorText ? ` (${errorText.slice(0, 160)})` : ''}`,
			'new writes': formatWrites(added),
			asked: formatWrites(spec.asks),
			'week so far': formatWrites(after),
			'week expected': formatWrites(this.expectedTotal),
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
		return { execution, output, added, refused, failed, named, inSandbox };
	}

	/** The workspace's API requests so far, by route (the sandbox counters). */
	private async requestsByRoute(): Promise<Record<string, number>> {
		const { w } = this.o;
		return (await w.control.counters(w.ws.workspaceId)).requests ?? {};
	}
}

/**
 * One step of an F9 file: the workflow `kind` run on `items`, measured and recorded (RecruiterSteps.measure), and
 * asserted: the new writes are those `spec` asks for, the run ends as it expects, the refused and failed items are
 * its counts, and the checked node's items name `spec.resources` distinct resources, each one the sandbox holds.
 */
export async function step(
	steps: RecruiterSteps,
	spec: StepSpec,
	kind: string,
	items: InputItem[],
): Promise<StepResult> {
	const m = await steps.measure(spec, kind, items);
	expect({ step: spec.id, added: m.added }).toEqual({ step: spec.id, added: spec.asks });
	expect({ step: spec.id, execution: m.execution.status }).toEqual({
		step: spec.id,
		execution: spec.executionFails ? 'error' : 'success',
	});
	expect({ step: spec.id, refused: m.refused, failed: m.failed }).toEqual({
		step: spec.id,
		refused: spec.refused ?? 0,
		failed: spec.failed ?? 0,
	});
	expect({
		step: spec.id,
		distinct: new Set(m.named).size,
		notHeld: m.named.filter((r) => !m.inSandbox.has(r)),
	}).toEqual({ step: spec.id, distinct: spec.resources, notHeld: [] });
	return { execution: m.execution, output: m.output };
}

// ---------------------------------------------------------------------------------------------------------------
// The Spending Limit after a failed wait (f9-spending-after-a-failed-wait, f9-spending-in-queue-mode)
// ---------------------------------------------------------------------------------------------------------------

/** An Input (Code) that returns `count` completed resumes tagged `tag`, each a PDF in the binary field "data". */
export function resumesCode(tag: string, count: number): string {
	const items = Array.from({ length: count }, (_, i) => ({
		json: { fileName: `${tag}-${i}.pdf` },
		binary: {
			data: {
				data: makePdf({ candidate: `F9 ${tag} ${i}`, outcome: 'completed', score: 7 }).toString(
					'base64',
				),
				mimeType: 'application/pdf',
				fileName: `f9-${tag}-${i}.pdf`,
				fileExtension: 'pdf',
			},
		},
	}));
	return `return ${JSON.stringify(items)};`;
}

/** A Wait node that resumes on a call of its webhook (`$execution.resumeUrl`): the recruiter's approval. */
export function waitNode(x: number): WorkflowJson['nodes'][number] {
	return {
		id: randomId(),
		name: 'Wait',
		type: 'n8n-nodes-base.wait',
		typeVersion: 1.1,
		position: [x, 0],
		parameters: { resume: 'webhook', httpMethod: 'POST', options: {} },
		webhookId: randomId(),
	};
}

/**
 * Input (4 resumes) → Analyze Many (Batch Timeout 1 s) → [Wait →] Invite (the first report, once, On Error:
 * continue), both under `limit`. `analyzeOnError` sets Analyze Many's On Error (Continue On Fail).
 */
/** Every read of a batch of this kind answers 503 until the faults are cleared. */
export async function batchReadsFail(
	w: CaseWorkspace,
	kind: 'analysis' | 'interview',
): Promise<void> {
	await w.control.setFaults({
		rules: [
			{ method: 'GET', path: `/api/v1/${kind}-batches/{id}`, status: 503, rate: 1, mode: 'before' },
		],
	});
}

/** Makes Analyze Many's wait fail: its analyses outlast the Batch Timeout, or every read of the batch answers 503. */
export async function failBatchWait(
	w: CaseWorkspace,
	failure: 'timeout' | 'read503',
): Promise<void> {
	if (failure === 'timeout')
		await w.control.patchWorkspace(w.ws.workspaceId, { analysisDurationMs: 4000 });
	else await batchReadsFail(w, 'analysis');
}

/** The analyses finish on the service, as they have by the time a user presses Retry. */
export async function letBatchFinish(
	w: CaseWorkspace,
	failure: 'timeout' | 'read503',
): Promise<void> {
	await w.control.clearFaults();
	await delay(failure === 'timeout' ? 5000 : 1000);
	await w.control.patchWorkspace(w.ws.workspaceId, { analysisDurationMs: 0 });
}

export function analyzeThenInvite(o: {
	credential: Credential;
	jobDescriptionId: string;
	name: string;
	tag: string;
	limit: number;
	email: string;
	wait?: boolean;
	analyzeOnError?: string;
	/** The report the Invite names (default: the first one Analyze Many made). */
	reportId?: string;
}): WorkflowJson {
	const analyze = actionNode(
		o.credential,
		'Analyze Many',
		440,
		{
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: byId(o.jobDescriptionId),
			spendingLimit: o.limit,
			options: { batchTimeout: 1 },
		},
		o.analyzeOnError,
	);
	const invite = {
		...actionNode(
			o.credential,
			'Invite',
			o.wait ? 880 : 660,
			{
				resource: 'interview',
				operation: 'invite',
				reportId: byId(o.reportId ?? "={{ $('Analyze Many').first().json.reportId }}"),
				candidateEmail: o.email,
				delivery: 'email',
				spendingLimit: o.limit,
			},
			'continueRegularOutput',
		),
		executeOnce: true,
	};
	return inputWorkflow(o.name, resumesCode(o.tag, 4), [
		analyze,
		...(o.wait ? [waitNode(660)] : []),
		invite,
	]);
}

/** Input (`items`: reportId and email each) → Invite Many under `limit`. */
export function inviteManyWorkflow(
	credential: Credential,
	name: string,
	items: Array<{ reportId: string; email: string }>,
	limit: number,
): WorkflowJson {
	return inputWorkflow(name, `return ${JSON.stringify(items.map((json) => ({ json })))};`, [
		actionNode(credential, 'Invite Many', 440, {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
			spendingLimit: limit,
		}),
	]);
}

/** `count` completed reports of the workspace, made by an Analyze Many workflow of their own (its own execution). */
export async function completedReports(
	env: RealN8n,
	w: CaseWorkspace,
	credential: Credential,
	tag: string,
	count: number,
): Promise<string[]> {
	const { id } = await env.n8n.createWorkflow(
		inputWorkflow(`F9 reports ${tag}`, resumesCode(tag, count), [
			actionNode(credential, 'Analyze Many', 440, {
				resource: 'analysis',
				operation: 'analyzeMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: byId(w.ws.jobDescriptionId),
				// None: these reports are the case's setting, not what it measures.
				spendingLimit: 0,
			}),
		]),
	);
	const analysed = await env.n8n.finishedExecution(await env.n8n.startManualRun(id), STEP_TIMEOUT);
	return nodeOutput(analysed.data, 'Analyze Many').map((o) => String(o.reportId));
}

/** The Spending Limit's running total n8n saved with an execution (its flow context), NaN when none was saved. */
export function savedSpending(e: ExecutionDetail): number {
	const data = e.data as unknown as {
		executionData?: { contextData?: { flow?: Record<string, unknown> } };
	};
	return Number(data.executionData?.contextData?.flow?.recruitingAnalysisSpentCredits);
}

/** Credits the sandbox charged for `w` writes at its default prices: 1 per analysis attempt, 2.5 per interview. */
export const creditsOf = (w: Writes, interviewPrice = 2.5): number =>
	w.attempts + w.interviews * interviewPrice;

/** Waits until n8n saved the execution as waiting (a Wait node) and returns it. */
export async function waitingExecution(
	n8n: N8nInstance,
	executionId: string,
	timeoutMs = 180_000,
): Promise<ExecutionDetail> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const e = await n8n.getExecution(executionId);
		if (e.status === 'waiting') return e;
		if (['success', 'error', 'crashed', 'canceled'].includes(e.status))
			throw new Error(`execution ${executionId} ended (${e.status}) instead of waiting`);
		if (Date.now() > until) throw new Error(`execution ${executionId} still ${e.status}`);
		await delay(250);
	}
}

/**
 * The approval: a call of a waiting execution's resume webhook at `baseUrl` (the process serving /webhook-waiting/).
 * n8n 2.x signs it with the execution's resume token (query `signature`); n8n 1.x has none.
 */
export async function resumeWaiting(
	n8n: N8nInstance,
	baseUrl: string,
	executionId: string,
): Promise<void> {
	const e = await n8n.getExecution(executionId);
	const token = (e.data as { resumeToken?: string }).resumeToken;
	const url = `${baseUrl}/webhook-waiting/${executionId}${token ? `?signature=${encodeURIComponent(token)}` : ''}`;
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ approved: true }),
	});
	const text = await res.text();
	if (res.status !== 200) throw new Error(`resuming ${executionId}: ${res.status} ${text}`);
}

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z\b/g;
const shiftTimes = (text: string, ms: number) =>
	text.replace(ISO_TIME, (t) => new Date(Date.parse(t) + ms).toISOString());

/**
 * An HTTP proxy on loopback in front of the API whose clock is `offsetMs` apart from this host's, as an API on
 * another machine would be: every answer's `Date` header and every ISO time in a JSON answer moved by `offsetMs`,
 * every ISO time in a JSON request moved back (so the API reads its own times). Other bodies pass unchanged.
 */
export async function clockShiftingProxy(
	target: string,
	offsetMs: number,
): Promise<{ baseUrl: string; requests: () => number; close: () => Promise<void> }> {
	let requests = 0;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			requests++;
			const raw = Buffer.concat(chunks);
			const json = String(req.headers['content-type'] ?? '').includes('json');
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers))
				if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k))
					headers[k] = v;
			const body =
				raw.length === 0 ? undefined : json ? shiftTimes(raw.toString('utf8'), -offsetMs) : raw;
			fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body, redirect: 'manual' })
				.then(async (answer) => {
					const out = Buffer.from(await answer.arrayBuffer());
					const isJson = (answer.headers.get('content-type') ?? '').includes('json');
					const sent = isJson ? Buffer.from(shiftTimes(out.toString('utf8'), offsetMs)) : out;
					answer.headers.forEach((v, k) => {
						if (
							![
								'content-length',
								'content-encoding',
								'transfer-encoding',
								'connection',
								'date',
							].includes(k)
						)
							res.setHeader(k, v);
					});
					const date = Date.parse(answer.headers.get('date') ?? '');
					res.setHeader(
						'date',
						new Date((Number.isNaN(date) ? Date.now() : date) + offsetMs).toUTCString(),
					);
					res.setHeader('content-length', sent.length);
					res.writeHead(answer.status);
					res.end(sent);
				})
				.catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests: () => requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
