/**
 * The machinery of F8 (recover as a user would): the eight charged operations as workflows of a real n8n, the
 * three ways a run fails after some writes committed, the four ways a user recovers, and what is measured
 * afterwards (sandbox counters, mail sink, the resources each item output). The matrix and the reasons for it
 * are in f8-recover-as-a-user-would.faults.ts; this file knows nothing of the node's internals: it sets
 * parameters a user sets and reads what the sandbox and n8n show.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

import {
	delay,
	nodeOutput,
	type ExecutionDetail,
	type N8nInstance,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import { NODE_TYPES } from '../e2e/helpers';
import { makePdf } from '../fixtures/resumes';
import { controlClient, type ControlClient, type MailEntry } from '../helpers/sandbox';
import { completedReport, invited, newWs, uploaded, type Ws } from '../sandbox/setup';

export type Operation =
	| 'analyzeResume'
	| 'start'
	| 'analyzeMany'
	| 'uploadManyStartMany'
	| 'invite'
	| 'inviteMany'
	| 'reinterview'
	| 'resend';
/** laterNode: a node after ours throws; lostAnswers: our writes commit, every answer is lost; sigkill: n8n is killed. */
export type Failure = 'laterNode' | 'lostAnswers' | 'sigkill';
/** n8n's Retry with the original / the current workflow, the workflow run again by hand, the node's Retry On Fail. */
export type Recovery = 'retryOriginal' | 'retryCurrent' | 'manualRun' | 'retryOnFail';

export interface Case {
	id: string;
	operation: Operation;
	failure: Failure;
	recovery: Recovery;
}

export const LABELS: Record<Operation | Failure | Recovery, string> = {
	analyzeResume: 'Analyze Resume',
	start: 'Analysis > Start',
	analyzeMany: 'Analyze Many',
	uploadManyStartMany: 'Upload Many, then Start Many',
	invite: 'Invite',
	inviteMany: 'Invite Many',
	reinterview: 'Reinterview',
	resend: 'Resend',
	laterNode: 'a later node throws',
	lostAnswers: 'answers lost beyond the retries',
	sigkill: 'n8n killed (SIGKILL)',
	retryOriginal: "n8n's Retry, original workflow",
	retryCurrent: "n8n's Retry, current workflow",
	manualRun: 'manual run, same input',
	retryOnFail: 'Retry On Fail',
};

/** Charged writes of a workspace: the sandbox's counters and its mail sink. */
export interface Writes {
	reports: number;
	attempts: number;
	interviews: number;
	emails: number;
}

export const WRITE_KINDS: Array<keyof Writes> = ['reports', 'attempts', 'interviews', 'emails'];

/** "2 reports, 2 attempts"; `none` when every count is 0. */
export function formatWrites(w: Writes, none = 'none'): string {
	return (
		WRITE_KINDS.filter((k) => w[k] !== 0)
			.map((k) => `${w[k]} ${k}`)
			.join(', ') || none
	);
}

const perKind = (count: (k: keyof Writes) => number): Writes => ({
	reports: count('reports'),
	attempts: count('attempts'),
	interviews: count('interviews'),
	emails: count('emails'),
});

export const minus = (a: Writes, b: Writes): Writes => perKind((k) => a[k] - b[k]);
export const plus = (a: Writes, b: Writes): Writes => perKind((k) => a[k] + b[k]);

/** Writes beyond the expected ones (one per intent): the duplicates, by kind. */
export const excess = (measured: Writes, expected: Writes): Writes =>
	perKind((k) => Math.max(0, measured[k] - expected[k]));

export const total = (w: Writes) => w.reports + w.attempts + w.interviews + w.emails;

// ---------------------------------------------------------------------------------------------------------------
// The sandbox side: a workspace per case
// ---------------------------------------------------------------------------------------------------------------

export interface CaseWorkspace {
	ws: Ws;
	control: ControlClient;
	/** Writes measured now. Waits until every queued email left the sandbox's outbox first. */
	writes(): Promise<Writes>;
	mail(): Promise<MailEntry[]>;
}

/** A fresh workspace on a running sandbox process (own key, own counters, own mail sink). */
export async function caseWorkspace(baseUrl: string): Promise<CaseWorkspace> {
	const control = controlClient(baseUrl);
	const ws = await newWs({ baseUrl, control });
	const mail = async () => (await control.mail(ws.workspaceId)).items;
	return {
		ws,
		control,
		mail,
		async writes() {
			await emailsSettled(ws);
			const c = await control.counters(ws.workspaceId);
			return {
				reports: c.reportsCreated,
				attempts: c.attemptsCreated,
				interviews: c.interviewsCreated,
				emails: (await mail()).length,
			};
		},
	};
}

/** Waits until no interview of the workspace has an email still queued (the sandbox sends after a short delay). */
async function emailsSettled(ws: Ws, timeoutMs = 15_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const list = await ws.call('GET', '/api/v1/interviews?limit=100');
		const items = (list.body?.data?.items ?? []) as Array<{ emailDelivery: string }>;
		if (!items.some((i) => i.emailDelivery === 'queued')) return;
		if (Date.now() > until) throw new Error('emails still queued in the sandbox');
		await delay(100);
	}
}

// ---------------------------------------------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------------------------------------------

/** Items of the workflow's input node: JSON, and for the file operations a resume in the binary field "data". */
export interface InputItem {
	json: Record<string, string>;
	pdf?: Buffer;
}

export interface Route {
	method: string;
	/** A route template or a URL path prefix, as the sandbox's fault rules take them. */
	path: string;
}

export interface OperationSpec {
	/** Input items per case. */
	items: number;
	/** Prerequisites through the API (not the subject): the reports or interviews the operation works on. */
	arrange(w: CaseWorkspace, caseId: string, count: number): Promise<InputItem[]>;
	/** The charged node(s), in workflow order; the last one's output is checked. */
	nodes(
		jobDescriptionId: string,
		o: { waitForCompletion: boolean },
	): Array<{ name: string; parameters: Record<string, unknown> }>;
	/** The write whose answers are lost in the lostAnswers cases. */
	write: Route;
	/** Requests to `write` one failed run of the node makes before it gives up (its transport makes 4 attempts). */
	writesPerFailedRun(items: number): number;
	/** A read the node makes after its writes committed: held in the SIGKILL cases so the kill lands there. */
	hold?: Route;
	/** Writes each intent makes, per kind (the expected writes of the case are items times this). */
	perItem: Writes;
	/** The resource an output item names ('' when it names none). */
	resourceOf(json: Record<string, unknown>): string;
	/** The same resources as the sandbox knows them (each the output must name exactly once). */
	resourcesIn(w: CaseWorkspace, arranged: Set<string>): Promise<string[]>;
}

const quoteAutomatically = true;

function resumeItems(caseId: string, count: number): InputItem[] {
	return Array.from({ length: count }, (_, i) => {
		const candidate = `F8 ${caseId} Candidate ${i + 1}`;
		return {
			json: { candidate, fileName: `${caseId}-${i + 1}.pdf` },
			pdf: makePdf({ candidate, outcome: 'completed', score: 7 }),
		};
	});
}

const email = (caseId: string, i: number) => `f8-${caseId}-${i + 1}@example.com`.toLowerCase();

/** Reports with their current attempt, as `rpt_…:att_…` (a report never analyzed shows `rpt_…:null`). */
async function reportAttempts(w: CaseWorkspace): Promise<string[]> {
	const list = await w.ws.call('GET', '/api/v1/reports?limit=100');
	return ((list.body?.data?.items ?? []) as Array<{ id: string; attemptId: string | null }>).map(
		(r) => `${r.id}:${r.attemptId}`,
	);
}

/** Interviews that are not superseded (the current attempt of each report). */
async function currentInterviews(w: CaseWorkspace): Promise<string[]> {
	const list = await w.ws.call('GET', '/api/v1/interviews?limit=100');
	return ((list.body?.data?.items ?? []) as Array<{ id: string; lifecycle: string }>)
		.filter((i) => i.lifecycle !== 'superseded')
		.map((i) => i.id);
}

/** The analysis an output item names, as `rpt_…:att_…` ('' when it names none). */
export const analysisResource = (json: Record<string, unknown>) =>
	typeof json.reportId === 'string' && typeof json.attemptId === 'string'
		? `${json.reportId}:${json.attemptId}`
		: '';

/** What the analysis operations share: their writes per intent and their resources. */
const analyses = {
	perItem: { reports: 1, attempts: 1, interviews: 0, emails: 0 },
	resourceOf: analysisResource,
	resourcesIn: reportAttempts,
};

/** What the invitation operations share. */
const interviews = {
	perItem: { reports: 0, attempts: 0, interviews: 1, emails: 1 },
	resourceOf: (json: Record<string, unknown>) =>
		typeof json.interviewId === 'string' ? json.interviewId : '',
	resourcesIn: currentInterviews,
};

/** The batch operations send one request per chunk of 20: the three items of a case are one batch. */
const batchOf = (path: string) => ({
	items: 3,
	write: { method: 'POST', path },
	writesPerFailedRun: () => 4,
	hold: { method: 'GET', path: `${path}/` },
});

/** The item operations send one request per item (two items per case), at the node's default concurrency. */
const perItemWrite = (path: string) => ({
	items: 2,
	write: { method: 'POST', path },
	writesPerFailedRun: (items: number) => 4 * items,
});

const analyzeResume: OperationSpec = {
	...analyses,
	...perItemWrite('/api/v1/analyses'),
	arrange: async (_w, caseId, count) => resumeItems(caseId, count),
	nodes: (jobDescriptionId, o) => [
		{
			name: 'Analyze Resume',
			parameters: {
				resource: 'analysis',
				operation: 'analyzeResume',
				spendingLimit: 0,
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId,
				waitForCompletion: o.waitForCompletion === true,
				options: o.waitForCompletion ? { waitTimeout: 300 } : {},
			},
		},
	],
	// Waiting reads the report list pages (shared across items) and, for a report they do not show, its status:
	// the prefix holds both.
	hold: { method: 'GET', path: '/api/v1/reports' },
	// After waiting, the output is the simplified item (reportId) or, with Simplify off, the summary (id).
	resourceOf: (json) => analysisResource({ ...json, reportId: json.reportId ?? json.id }),
};

const start: OperationSpec = {
	...analyses,
	...perItemWrite('/api/v1/analyses'),
	perItem: { reports: 0, attempts: 1, interviews: 0, emails: 0 },
	async arrange(w, caseId, count) {
		const ids = await Promise.all(
			Array.from({ length: count }, (_, i) =>
				uploaded(w.ws, { candidate: `F8 ${caseId} ${i + 1}`, outcome: 'completed' }),
			),
		);
		return ids.map((reportId) => ({ json: { reportId } }));
	},
	nodes: () => [
		{
			name: 'Start Analysis',
			parameters: {
				resource: 'analysis',
				operation: 'start',
				spendingLimit: 0,
				reportId: '={{ $json.reportId }}',
				quoteAutomatically,
				options: {},
			},
		},
	],
};

const fileParams = (jobDescriptionId: string) => ({
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId,
	options: {},
});

const analyzeMany: OperationSpec = {
	...analyses,
	...batchOf('/api/v1/analysis-batches'),
	arrange: async (_w, caseId, count) => resumeItems(caseId, count),
	nodes: (jobDescriptionId) => [
		{
			name: 'Analyze Many',
			parameters: {
				resource: 'analysis',
				operation: 'analyzeMany',
				spendingLimit: 0,
				...fileParams(jobDescriptionId),
			},
		},
	],
};

const uploadManyStartMany: OperationSpec = {
	...analyses,
	...batchOf('/api/v1/analysis-batches'),
	arrange: async (_w, caseId, count) => resumeItems(caseId, count),
	nodes: (jobDescriptionId) => [
		{
			name: 'Upload Many',
			parameters: { resource: 'upload', operation: 'uploadMany', ...fileParams(jobDescriptionId) },
		},
		{
			name: 'Start Many',
			parameters: {
				resource: 'analysis',
				operation: 'startMany',
				spendingLimit: 0,
				reportId: '={{ $json.reportId }}',
				quoteAutomatically,
				options: {},
			},
		},
	],
};

async function completedReports(
	w: CaseWorkspace,
	caseId: string,
	count: number,
): Promise<InputItem[]> {
	const ids = await Promise.all(
		Array.from({ length: count }, (_, i) =>
			completedReport(w.ws, { candidate: `F8 ${caseId} ${i + 1}`, outcome: 'completed', score: 8 }),
		),
	);
	return ids.map((reportId, i) => ({ json: { reportId, email: email(caseId, i) } }));
}

async function invitedInterviews(
	w: CaseWorkspace,
	caseId: string,
	count: number,
): Promise<InputItem[]> {
	const reports = await completedReports(w, caseId, count);
	return await Promise.all(
		reports.map(async ({ json }) => {
			const interview = await invited(w.ws, json.reportId, json.email);
			return { json: { ...json, interviewId: interview.interviewId } };
		}),
	);
}

const inviteParams = {
	reportId: '={{ $json.reportId }}',
	candidateEmail: '={{ $json.email }}',
	quoteAutomatically,
	options: {},
};

const invite: OperationSpec = {
	...interviews,
	...perItemWrite('/api/v1/interviews'),
	arrange: completedReports,
	nodes: () => [
		{
			name: 'Invite',
			parameters: {
				resource: 'interview',
				operation: 'invite',
				spendingLimit: 0,
				delivery: 'email',
				...inviteParams,
			},
		},
	],
};

const inviteMany: OperationSpec = {
	...interviews,
	...batchOf('/api/v1/interview-batches'),
	arrange: completedReports,
	nodes: () => [
		{
			name: 'Invite Many',
			parameters: {
				resource: 'interview',
				operation: 'inviteMany',
				...inviteParams,
				spendingLimit: 0,
			},
		},
	],
};

const reinterview: OperationSpec = {
	...interviews,
	...perItemWrite('/api/v1/interviews/{id}/reinterview'),
	arrange: invitedInterviews,
	nodes: () => [
		{
			name: 'Reinterview',
			parameters: {
				resource: 'interview',
				operation: 'reinterview',
				spendingLimit: 0,
				interviewId: '={{ $json.interviewId }}',
				delivery: 'email',
				...inviteParams,
			},
		},
	],
};

const resend: OperationSpec = {
	...perItemWrite('/api/v1/interviews/{id}/resend'),
	arrange: invitedInterviews,
	nodes: () => [
		{
			name: 'Resend',
			parameters: {
				resource: 'interview',
				operation: 'resend',
				interviewId: '={{ $json.interviewId }}',
				options: {},
			},
		},
	],
	perItem: { reports: 0, attempts: 0, interviews: 0, emails: 1 },
	// A resend's resource is the email delivery it queued.
	resourceOf: (json) => (typeof json.deliveryId === 'string' ? json.deliveryId : ''),
	resourcesIn: async (w, arranged) =>
		(await w.mail()).map((m) => m.deliveryId).filter((id) => !arranged.has(id)),
};

export const OPERATIONS: Record<Operation, OperationSpec> = {
	analyzeResume,
	start,
	analyzeMany,
	uploadManyStartMany,
	invite,
	inviteMany,
	reinterview,
	resend,
};

// ---------------------------------------------------------------------------------------------------------------
// The workflow, and the stand-in for the system after our node
// ---------------------------------------------------------------------------------------------------------------

/**
 * The recruiter's system after our node (an ATS): the workflow's last node POSTs each item to it. A path answers
 * 503 while its case is set to fail, 200 once it works again; any other path answers 404 (a wrong URL).
 */
export class AtsStub {
	private readonly failing = new Set<string>();
	private server?: Server;
	port = 0;

	async start(): Promise<void> {
		this.server = createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				const match = /^\/ats\/([\w-]+)$/.exec(req.url ?? '');
				if (!match) {
					res.statusCode = 404;
					res.end('{"error":"no such endpoint"}');
					return;
				}
				const caseId = match[1];
				res.statusCode = this.failing.has(caseId) ? 503 : 200;
				res.setHeader('content-type', 'application/json');
				res.end(JSON.stringify({ ok: !this.failing.has(caseId) }));
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
		this.port = (this.server.address() as { port: number }).port;
	}

	url(caseId: string, broken = false): string {
		return `http://127.0.0.1:${this.port}/${broken ? 'atz' : 'ats'}/${caseId}`;
	}

	fail(caseId: string, on: boolean): void {
		if (on) this.failing.add(caseId);
		else this.failing.delete(caseId);
	}

	async stop(): Promise<void> {
		if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
	}
}

export const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 4, waitBetweenTries: 1000 };

export interface WorkflowOptions {
	caseId: string;
	spec: OperationSpec;
	input: InputItem[];
	jobDescriptionId: string;
	credential: { id: string; name: string };
	atsUrl: string;
	retryOnFail: boolean;
	waitForCompletion: boolean;
	/** n8n's workflow setting "Save execution progress", which a Retry after a crash needs. */
	saveExecutionProgress: boolean;
}

/** Manual Trigger → Input (a Code node: the same items every run) → the charged node(s) → ATS (HTTP Request). */
export function caseWorkflow(o: WorkflowOptions): WorkflowJson {
	const charged = o.spec.nodes(o.jobDescriptionId, { waitForCompletion: o.waitForCompletion });
	const names = ['Start', 'Input', ...charged.map((n) => n.name), 'ATS'];
	const nodes: WorkflowJson['nodes'] = [
		...startAndInput(inputCode(o.input)),
		...charged.map((n, i) => ({
			id: randomId(),
			name: n.name,
			type: NODE_TYPES.action,
			typeVersion: 1,
			position: [440 + 220 * i, 0] as [number, number],
			parameters: n.parameters,
			credentials: { recruitingAnalysisApi: o.credential },
			...(o.retryOnFail ? RETRY_ON_FAIL : {}),
		})),
		{
			id: randomId(),
			name: 'ATS',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [440 + 220 * charged.length, 0],
			parameters: {
				method: 'POST',
				url: o.atsUrl,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify($json) }}',
				options: {},
			},
		},
	];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < names.length - 1; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return {
		name: `F8 ${o.caseId} ${randomBytes(3).toString('hex')}`,
		nodes,
		connections,
		settings: {
			executionOrder: 'v1',
			...(o.saveExecutionProgress ? { saveExecutionProgress: true } : {}),
		},
	};
}

/** A random id in the UUID layout n8n gives nodes. */
export const randomId = () =>
	randomBytes(16)
		.toString('hex')
		.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** The JavaScript of an Input (Code) node that returns `items`, each resume in the binary field "data". */
export function inputCode(items: InputItem[]): string {
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

/** How the suite's workflows begin: Manual Trigger "Start" → Code "Input" (running `jsCode`). */
export function startAndInput(jsCode: string): WorkflowJson['nodes'] {
	return [
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
			parameters: { jsCode },
		},
	];
}

/** The name of the node whose output is checked (the last charged node). */
export function outputNode(spec: OperationSpec): string {
	return spec.nodes('', { waitForCompletion: false }).at(-1)!.name;
}

// ---------------------------------------------------------------------------------------------------------------
// What the user does in n8n (the REST calls of the editor, logged in as the owner)
// ---------------------------------------------------------------------------------------------------------------

/**
 * The Retry button of the executions list (packages/cli executions controller: POST /rest/executions/:id/retry,
 * body {loadWorkflow}): "Retry with original workflow" (false) or "Retry with current workflow" (true). n8n answers
 * once the new execution has finished. Returns its id, or the error n8n gave when it refused to retry.
 */
export async function retryExecution(
	n8n: N8nInstance,
	executionId: string,
	loadWorkflow: boolean,
): Promise<{ id?: string; refused?: string; status: number; message?: string }> {
	const res = await n8n.request<{ data?: { id: string }; message?: string }>(
		'POST',
		`/rest/executions/${executionId}/retry`,
		{ loadWorkflow },
		{ expectStatus: [200, 400, 404, 409, 500] },
	);
	if (res.status !== 200 || !res.body.data)
		return {
			refused: `${res.status} ${res.body.message ?? JSON.stringify(res.body)}`,
			status: res.status,
			message: res.body.message,
		};
	return { id: res.body.data.id, status: res.status };
}

/**
 * The executions list filtered as the editor's filter does (GET /rest/executions, filter {workflowId, status}): a
 * workflow's executions with one of `statuses` (e.g. "crashed"), newest first, at most 100.
 */
export async function executionsWithStatus(
	n8n: N8nInstance,
	workflowId: string,
	statuses: string[],
): Promise<Array<{ id: string; status: string; mode: string }>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: statuses }));
	const data = await n8n.rest<{ results: Array<{ id: string; status: string; mode: string }> }>(
		'GET',
		`/executions?filter=${filter}&limit=100`,
	);
	return data.results;
}

/** Saves a changed workflow, as the editor's Save does (PATCH /rest/workflows/:id with the version it edited). */
export async function updateWorkflow(
	n8n: N8nInstance,
	workflowId: string,
	edit: (wf: WorkflowJson) => void,
): Promise<void> {
	const current = await n8n.getWorkflow(workflowId);
	const wf: WorkflowJson = {
		name: current.name,
		nodes: current.nodes,
		connections: current.connections,
		settings: current.settings,
	};
	edit(wf);
	await n8n.request('PATCH', `/rest/workflows/${workflowId}`, {
		...wf,
		versionId: current.versionId,
	});
}

/** The execution's error message (of the workflow or of the node that failed), for the report. */
export function executionError(e: ExecutionDetail): string {
	const data = e.data.resultData;
	const node = data.lastNodeExecuted
		? data.runData[data.lastNodeExecuted]?.at(-1)?.error
		: undefined;
	const error = node ?? data.error;
	return error ? `${data.lastNodeExecuted ?? ''}: ${error.message}`.slice(0, 200) : '';
}

/** Output items of the checked node in an execution (a Retry carries the earlier nodes' output over). */
export function outputOf(e: ExecutionDetail, spec: OperationSpec): Array<Record<string, unknown>> {
	return nodeOutput(e.data, outputNode(spec));
}

export type { MailEntry };
