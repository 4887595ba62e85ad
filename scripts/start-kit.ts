/**
 * What `npm start` prepares so that every example runs from the editor right away, and how the editor runs one:
 * - the folder n8n may read files from (N8N_RESTRICT_FILE_ACCESS_TO), with sample resumes and an applicants list
 *   where the folder example reads them, and that example's Folder node pointed there;
 * - a manual run as the editor starts it (`POST /rest/workflows/{id}/run`), followed until it ends or stops at a
 *   form (the examples ask a recruiter before any invitation email), and the answer to such a form.
 * test/e2e/examples.test.ts prepares its n8n with the same functions, so what it proves is what `npm start` gives.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { makeDocx, makePdf } from '../test/fixtures/resumes';
import { delay, type ExecutionDetail, type N8nInstance, type WorkflowJson } from './n8n-host';
import type { SandboxControl } from './sandbox-process';

/** The example that reads a folder of resumes, and the node that names the folder. */
export const FOLDER_EXAMPLE = 'shortlist-folder-of-resumes.json';
export const FOLDER_NODE = 'Folder';

/** n8n's files folder for a run: `<user folder>/.n8n-files`, what `~/.n8n-files` is to an installed n8n. */
export function filesFolder(userFolder: string): string {
	return join(userFolder, '.n8n-files');
}

/** The environment that makes an n8n (either line) read and write files only in `filesDir`. */
export function filesEnv(filesDir: string): NodeJS.ProcessEnv {
	return { N8N_RESTRICT_FILE_ACCESS_TO: filesDir };
}

export interface SampleApplicant {
	name: string;
	fileName: string;
	email: string;
	/** The sandbox's score for the resume (RA-SANDBOX-SCORE), or an outcome that has none. */
	score?: number;
	outcome?: 'requires_action';
	/** A Word document saved with a .pdf name: the node refuses it before anything is sent. */
	misnamedDocx?: boolean;
}

const email = (name: string) => `${name.toLowerCase().replace(/[^a-z]+/g, '.')}@example.com`;

/** The sample applicants `npm start` puts in `<files>/resumes`: two score 7 or more, one needs review, one is refused. */
export const SAMPLE_APPLICANTS: SampleApplicant[] = [
	{ name: 'Ada Lovelace', fileName: 'ada-lovelace.pdf', email: email('Ada Lovelace'), score: 9 },
	{ name: 'Grace Hopper', fileName: 'grace-hopper.docx', email: email('Grace Hopper'), score: 7 },
	{ name: 'Alan Turing', fileName: 'alan-turing.pdf', email: email('Alan Turing'), score: 5 },
	{
		name: 'Edsger Dijkstra',
		fileName: 'edsger-dijkstra.pdf',
		email: email('Edsger Dijkstra'),
		score: 3,
	},
	{
		name: 'Barbara Liskov',
		fileName: 'barbara-liskov.pdf',
		email: email('Barbara Liskov'),
		outcome: 'requires_action',
	},
	{
		name: 'Mia Docx',
		fileName: 'mia-docx.pdf',
		email: email('Mia Docx'),
		score: 8,
		misnamedDocx: true,
	},
];

/** Writes the sample resumes and `applicants.csv` (`fileName,email`) into `<filesDir>/resumes`; returns that folder. */
export function placeSampleFiles(
	filesDir: string,
	applicants: SampleApplicant[] = SAMPLE_APPLICANTS,
): string {
	const folder = join(filesDir, 'resumes');
	mkdirSync(folder, { recursive: true });
	for (const a of applicants) {
		const options = {
			candidate: a.name,
			...(a.score !== undefined ? { score: a.score } : {}),
			...(a.outcome ? { outcome: a.outcome } : {}),
		};
		const docx = a.misnamedDocx || a.fileName.endsWith('.docx');
		writeFileSync(join(folder, a.fileName), docx ? makeDocx(options) : makePdf(options));
	}
	writeFileSync(
		join(folder, 'applicants.csv'),
		['fileName,email', ...applicants.map((a) => `${a.fileName},${a.email}`)].join('\n') + '\n',
	);
	return folder;
}

/** Points the folder example's Folder node at `filesDir` (what a user does once in the editor). */
export function pointFolderExample(wf: WorkflowJson, filesDir: string): WorkflowJson {
	const node = wf.nodes.find((n) => n.name === FOLDER_NODE);
	const assignments = (
		node?.parameters.assignments as
			{ assignments?: Array<{ name: string; value: unknown }> } | undefined
	)?.assignments;
	const folder = assignments?.find((a) => a.name === 'folder');
	if (!folder) throw new Error(`${wf.name}: no "${FOLDER_NODE}" node with a "folder" field`);
	folder.value = filesDir;
	return wf;
}

/** An execution stopped at a form: the node, and the address a recruiter opens. */
export interface WaitingForm {
	node: string;
	url: string;
}

/** A run as the editor starts it, followed until it has ended or waits (for a form, mostly). */
export async function runAsEditor(
	n8n: N8nInstance,
	workflowId: string,
	triggerName: string,
	timeoutMs = 300_000,
): Promise<ExecutionDetail> {
	const started = await clickExecute(n8n, workflowId, triggerName);
	if (!started.executionId)
		throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(started)}`);
	return await settled(n8n, started.executionId, timeoutMs);
}

/**
 * The editor's Execute workflow button (`POST /rest/workflows/{id}/run` from the trigger `triggerName`): a manual
 * trigger starts an execution (`executionId`); a webhook trigger makes n8n listen on its test URL
 * (`waitingForWebhook`) until one request arrives there or two minutes pass.
 */
export async function clickExecute(
	n8n: N8nInstance,
	workflowId: string,
	triggerName: string,
): Promise<{ executionId?: string; waitingForWebhook?: boolean }> {
	const path = `/workflows/${encodeURIComponent(workflowId)}`;
	// n8n 2.x runs the stored workflow; n8n 1.x's editor sends the workflow with the request, as this does there.
	const workflowData =
		n8n.host.line === '1' ? await n8n.rest<WorkflowJson & { id: string }>('GET', path) : undefined;
	return await n8n.rest<{ executionId?: string; waitingForWebhook?: boolean }>(
		'POST',
		`${path}/run`,
		{
			...(workflowData ? { workflowData } : {}),
			triggerToStartFrom: { name: triggerName },
		},
	);
}

/**
 * Registers a trigger node's two addresses with the local sandbox, for the events the node selects: its production
 * URL (`<webhookBase>/webhook/<id>/webhook`, served while the workflow is active) and its test URL
 * (`<editorBase>/webhook-test/<id>/webhook`, served while the editor's Execute workflow listens), so that a click in
 * the editor sees the next event. Returns the two URLs and the events.
 */
export async function registerTriggerReceivers(
	sandbox: { control: SandboxControl; seed: { workspaceId: string } },
	node: { webhookId?: unknown; parameters: Record<string, unknown> },
	bases: { webhookBase: string; editorBase: string },
): Promise<{ url: string; testUrl: string; events?: string[] }> {
	const events = (node.parameters.events as string[] | undefined)?.filter((e) => e !== '*');
	const selected = events?.length ? events : undefined;
	const url = `${bases.webhookBase}/webhook/${String(node.webhookId)}/webhook`;
	const testUrl = `${bases.editorBase}/webhook-test/${String(node.webhookId)}/webhook`;
	for (const address of [url, testUrl])
		await sandbox.control.registerWebhook(sandbox.seed.workspaceId, address, selected);
	return { url, testUrl, events: selected };
}

/** Follows an execution until it has ended or waits; returns it with its run data. */
export async function settled(
	n8n: N8nInstance,
	executionId: string,
	timeoutMs = 300_000,
): Promise<ExecutionDetail> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const detail = await n8n.getExecution(executionId);
		const ended =
			['success', 'error', 'crashed', 'canceled'].includes(detail.status) &&
			Boolean(detail.stoppedAt);
		if (ended || waitingForm(detail, n8n.baseUrl)) return detail;
		if (Date.now() > deadline)
			throw new Error(`execution ${executionId} still ${detail.status} after ${timeoutMs} ms`);
		await delay(500);
	}
}

/**
 * The form an execution waits on, if it waits on one: n8n 2.x keeps its (signed) address in the Wait node's run
 * metadata; n8n 1.x's is `<n8n>/form-waiting/<execution id>`.
 */
export function waitingForm(detail: ExecutionDetail, n8nBaseUrl: string): WaitingForm | undefined {
	if (detail.status !== 'waiting') return undefined;
	const resultData = detail.data.resultData as {
		runData?: Record<string, Array<{ metadata?: { resumeFormUrl?: string } }>>;
		lastNodeExecuted?: string;
	};
	const node = resultData.lastNodeExecuted;
	if (!node) return undefined;
	const url =
		resultData.runData?.[node]?.at(-1)?.metadata?.resumeFormUrl ??
		`${n8nBaseUrl}/form-waiting/${detail.id}`;
	return { node, url };
}

/** Submits a waiting form as a person does in the browser: the answers in the order of its fields. */
export async function answerForm(form: WaitingForm, answers: string[]): Promise<void> {
	const body = new FormData();
	answers.forEach((answer, index) => body.append(`field-${index}`, answer));
	const res = await fetch(form.url, { method: 'POST', body });
	const text = await res.text();
	if (res.status >= 400)
		throw new Error(`the form of "${form.node}" answered ${res.status}: ${text.slice(0, 300)}`);
}

/** The examples' approval question and its two answers (examples/*.json, the Recruiter Approves nodes). */
export const APPROVE = 'Yes, invite them';
export const DECLINE = 'No';

/** The example an applicant tracking system posts to (an n8n Webhook node), and its path. */
export const ATS_EXAMPLE = 'ats-application-to-interview.json';
export const ATS_PATH = 'ats-new-application';
/** The examples started by a webhook event of the sandbox, and the example whose run produces that event. */
export const REPORT_EVENT_EXAMPLE = 'report-result-to-ats.json';
export const INTERVIEW_EVENT_EXAMPLE = 'interview-result-decision.json';

/** The agent example (n8n 2.x), its Chat Trigger, and the name of the model credential it uses. */
export const AGENT_EXAMPLE = 'agent-chat-with-review.json';
export const CHAT_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.chatTrigger';
export const MODEL_CREDENTIAL_NAME = 'OpenAI-compatible model';
/** The example that needs a PostgreSQL credential, which `npm start` does not make. */
export const POSTGRES_EXAMPLE = 'webhook-each-event-once-postgres.json';

/** The OpenAI credential `npm start` makes for the agent example: its Base URL is the demo model's. */
export function modelCredentialData(demoModelBaseUrl: string): Record<string, unknown> {
	return { apiKey: 'demo-model-needs-no-key', url: demoModelBaseUrl };
}

/**
 * Makes the agent example's chat public (the Chat Trigger's "Make Chat Publicly Available", what a builder switches
 * on to share it), so that once the workflow is active its hosted chat page answers at `hostedChatUrl`.
 */
export function makeChatPublic(wf: WorkflowJson): WorkflowJson {
	const trigger = wf.nodes.find((n) => n.type === CHAT_TRIGGER_TYPE);
	if (!trigger) throw new Error(`${wf.name}: no Chat Trigger`);
	trigger.parameters = { ...trigger.parameters, public: true };
	return wf;
}

/** The production webhook path of a workflow's Chat Trigger (`<webhook id>/chat`). */
export function chatWebhookPath(wf: WorkflowJson): string {
	const trigger = wf.nodes.find((n) => n.type === CHAT_TRIGGER_TYPE);
	if (typeof trigger?.webhookId !== 'string')
		throw new Error(`${wf.name}: no Chat Trigger webhook id`);
	return `${trigger.webhookId}/chat`;
}

/** The hosted chat page of an active workflow's public Chat Trigger. */
export function hostedChatUrl(webhookBase: string, wf: WorkflowJson): string {
	return `${webhookBase}/webhook/${chatWebhookPath(wf)}`;
}

/** What `npm start` knows when it tells how to run each example from the editor. */
export interface HintContext {
	n8nBaseUrl: string;
	/** `<files>/resumes`, with the sample resumes (placeSampleFiles). */
	resumesDir: string;
	/** The local sandbox, when `npm start` runs one. */
	sandbox?: { baseUrl: string; workspaceId: string };
	/** The names of the examples, by file. */
	names: Record<string, string>;
	/** The demo model's Base URL and the agent example's hosted chat, when `npm start` serves them (n8n 2.x). */
	agent?: { demoModelUrl: string; chatUrl: string };
}

/**
 * The command that posts a sample application (Ada Lovelace's resume, which scores 9) to the ATS example's
 * Webhook node: `test` for its test URL (while the editor listens), or its production URL once it is active.
 */
export function postApplicationCommand(ctx: HintContext, test = true): string {
	const applicant = SAMPLE_APPLICANTS[0];
	return [
		'curl',
		'-F applicationId=APP-1001',
		`-F "name=${applicant.name}"`,
		`-F email=${applicant.email}`,
		`-F resume=@${join(ctx.resumesDir, applicant.fileName)}`,
		`${ctx.n8nBaseUrl}/${test ? 'webhook-test' : 'webhook'}/${ATS_PATH}`,
	].join(' ');
}

/** The command that completes the newest invited interview in the sandbox (scripts/complete-interview.ts). */
export function completeInterviewCommand(sandbox: {
	baseUrl: string;
	workspaceId: string;
}): string {
	return `npx tsx scripts/complete-interview.ts ${sandbox.baseUrl} ${sandbox.workspaceId}`;
}

/** Per example, what to click in the editor or what to send so that it runs: the lines `npm start` prints. */
export function exampleHints(file: string, ctx: HintContext): string[] {
	const click = 'click Execute workflow';
	const one = ctx.names['analyze-one-resume.json'] ?? 'analyze-one-resume.json';
	switch (file) {
		case ATS_EXAMPLE:
			return [
				`${click} (it listens for an application), then post one from a terminal:`,
				`   ${postApplicationCommand(ctx)}`,
			];
		case REPORT_EVENT_EXAMPLE:
			return ctx.sandbox
				? [
						`${click} (it listens), then run "${one}" (or any analysis): the sandbox sends report.result_ready to the test URL too`,
					]
				: [
						`${click} (it listens), then finish an analysis; the deployment must deliver report.result_ready to the test URL (webhook-test) for it to arrive`,
					];
		case INTERVIEW_EVENT_EXAMPLE:
			return ctx.sandbox
				? [
						`${click} (it listens), then complete an interview (approve an invitation first, e.g. the demo's form):`,
						`   ${completeInterviewCommand(ctx.sandbox)}`,
					]
				: [
						`${click} (it listens); an interview.result_ready arrives when a candidate's interview is evaluated`,
					];
		case FOLDER_EXAMPLE:
			return [`${click}: it analyses every resume in ${ctx.resumesDir}`];
		case AGENT_EXAMPLE:
			return ctx.agent
				? [
						`open its chat: ${ctx.agent.chatUrl} (the workflow is active and its chat public), then type`,
						`   read report rpt_…   (the report ID the run of "${one}" prints below): the free Read Report runs alone`,
						`   analyze report rpt_…   : the chat asks to approve Start Analysis; click Approve (Decline runs nothing; a report already analyzed is recovered, not charged again)`,
						`its model is npm start's demo model at ${ctx.agent.demoModelUrl}: a script, not an AI, that understands only those two sentences;`,
						`for a real model, set the Base URL and API key of the credential "${MODEL_CREDENTIAL_NAME}" to an OpenAI-compatible server (OpenAI, Ollama …)`,
					]
				: [
						`n8n 2.x only: set the credential "${MODEL_CREDENTIAL_NAME}" to an OpenAI-compatible server, then Open chat (examples/README.md)`,
					];
		case POSTGRES_EXAMPLE:
			return [
				'not runnable as started: it needs a PostgreSQL server and a Postgres credential for its four PostgreSQL nodes',
				'(npm start makes neither); its table is created by the first delivery (examples/README.md)',
			];
		default:
			return [`${click}`];
	}
}
