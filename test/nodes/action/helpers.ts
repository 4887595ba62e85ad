/**
 * Shared set-up of the action node tests: run the node through n8n's engine against a sandbox workspace,
 * and talk to the sandbox's control endpoints (counters, mail sink, interview controls) over loopback HTTP.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { DOCX_MIME, PDF_MIME, makeDocx, makePdf, type ResumeOptions } from '../../fixtures/resumes';
import {
	asAiTool,
	executeNode,
	type ExecuteNodeOptions,
	type ExecuteNodeResult,
	type InputItem,
} from '../../helpers/n8n-engine';
import {
	apiBaseUrl,
	http,
	useTestSandbox,
	type TestSandbox,
	type UseTestSandboxOptions,
} from '../../helpers/sandbox';
import type { Counters } from '../../../sandbox/src';

export type { Counters };

export interface Workspace {
	baseUrl: string;
	workspaceId: string;
	apiKey: string;
	jobDescriptionId: string;
	webhookSecret?: string;
}

/** A fresh workspace (own key, own counters) on a running sandbox. */
export async function newWorkspace(
	baseUrl: string,
	settings: IDataObject = {},
): Promise<Workspace> {
	const { status, body } = await http(baseUrl, 'POST', '/_sandbox/workspaces', settings);
	if (status !== 200 && status !== 201)
		throw new Error(`workspace creation failed: ${status} ${JSON.stringify(body)}`);
	return { baseUrl, ...(body as unknown as Omit<Workspace, 'baseUrl'>) };
}

/**
 * The usual set-up of an action test file: one sandbox (see `useTestSandbox`) and one fresh workspace on it, made
 * in the same beforeAll and handed to `onStart` (assign them to the file's own variables there).
 */
export function useSandboxWorkspace(
	onStart: (started: { sandbox: TestSandbox; ws: Workspace }) => unknown,
	options: UseTestSandboxOptions = {},
): void {
	useTestSandbox(async (sandbox) => {
		await onStart({ sandbox, ws: await newWorkspace(sandbox.baseUrl) });
	}, options);
}

export async function counters(ws: Workspace): Promise<Counters> {
	const { body } = await http(ws.baseUrl, 'GET', `/_sandbox/workspaces/${ws.workspaceId}/counters`);
	return body as unknown as Counters;
}

/** Total API requests the workspace has received (every route). */
export function totalRequests(c: Counters): number {
	return Object.values(c.requests ?? {}).reduce((sum, n) => sum + n, 0);
}

/** Direct API call with the workspace key (to arrange state or read it back, not to test the node). */
export async function apiCall(
	ws: Workspace,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
) {
	return await http(ws.baseUrl, method, path, body, {
		authorization: `Bearer ${ws.apiKey}`,
		...headers,
	});
}

/** The node's credential: the sandbox, or Prism's validating proxy in front of it when the tests run with RA_PRISM=1. */
export function credentialsFor(ws: Workspace) {
	return {
		recruitingAnalysisApi: {
			environment: 'sandbox',
			baseUrl: apiBaseUrl(ws.baseUrl),
			apiKey: ws.apiKey,
		},
	};
}

export type RunOptions = Partial<Omit<ExecuteNodeOptions, 'nodeType' | 'parameters'>>;

/** Run the action node with `parameters` on `items` against the workspace. */
export async function runNode(
	ws: Workspace,
	parameters: INodeParameters,
	items: InputItem[] = [{ json: {} }],
	options: RunOptions = {},
): Promise<ExecuteNodeResult> {
	return await executeNode({
		nodeType: new RecruitingAnalysis(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: credentialsFor(ws),
		// No Spending Limit unless the test sets one: most tests charge more than the node's default of 10 credits
		// per execution, which description.test.ts and the spending tests prove.
		parameters: { spendingLimit: 0, ...parameters },
		items,
		...options,
	});
}

/** The node's first output, failing the test with the run's error when the node stopped. */
export function outputOf(result: ExecuteNodeResult): INodeExecutionData[] {
	if (result.error) throw result.error;
	return result.output[0] ?? [];
}

export function jsonOf(result: ExecuteNodeResult): IDataObject[] {
	return outputOf(result).map((item) => item.json);
}

/** Hints the node added to its task data. */
export function hintsOf(result: ExecuteNodeResult): string[] {
	return result.taskData.flatMap((task) => (task.hints ?? []).map((hint) => hint.message));
}

/** An input item holding a PDF resume in binary property `data`. */
export function pdfItem(
	options: ResumeOptions = {},
	fileName = 'resume.pdf',
	json: IDataObject = {},
): InputItem {
	return { json, binary: { data: { data: makePdf(options), mimeType: PDF_MIME, fileName } } };
}

export function docxItem(
	options: ResumeOptions = {},
	fileName = 'resume.docx',
	json: IDataObject = {},
): InputItem {
	return { json, binary: { data: { data: makeDocx(options), mimeType: DOCX_MIME, fileName } } };
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Poll a report's status through the API until it is terminal (arranging state for interview tests). */
export async function waitForReportStatus(
	ws: Workspace,
	reportId: string,
	timeoutMs = 20000,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const { body } = await apiCall(ws, 'GET', `/api/v1/reports/${reportId}/status`);
		const status = (body.data as IDataObject | undefined)?.status as string | undefined;
		if (status && ['completed', 'requires_action', 'failed'].includes(status)) return status;
		if (Date.now() > deadline)
			throw new Error(`report ${reportId} still ${status} after ${timeoutMs} ms`);
		await sleep(50);
	}
}

/** Analyze Resume parameters against the workspace's saved job. */
/**
 * Analyze Resume's parameters. `waitForCompletion` and `spendingLimit` (top-level fields; in the node, on and 10
 * credits by default) are given here as the test asks: no wait and no limit unless asked, so that each test names
 * the path it runs. The rest goes to Options.
 */
export function analyzeParams(ws: Workspace, options: IDataObject = {}): INodeParameters {
	const { waitForCompletion, spendingLimit = 0, ...rest } = options;
	return {
		resource: 'analysis',
		operation: 'analyzeResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
		waitForCompletion: waitForCompletion === true,
		spendingLimit: spendingLimit as number,
		options: rest as INodeParameters,
	};
}

/**
 * Analyze Many on the workspace's saved job: `spendingLimit` (0, no limit, when absent) and `simplify` (the node's
 * default when absent) are fields of their own, the rest go into Options.
 */
export function analyzeManyParams(ws: Workspace, options: IDataObject = {}): INodeParameters {
	const { spendingLimit = 0, simplify, ...rest } = options;
	return {
		resource: 'analysis',
		operation: 'analyzeMany',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
		...(simplify === undefined ? {} : { simplify: simplify as boolean }),
		spendingLimit: spendingLimit as number,
		options: rest as INodeParameters,
	};
}

/** `count` PDF resumes named `<tag>-<i>.pdf`, each of a candidate "<tag> <i>". */
export const pdfFiles = (count: number, tag: string) =>
	Array.from({ length: count }, (_, i) => pdfItem({ candidate: `${tag} ${i}` }, `${tag}-${i}.pdf`));

/** A completed report, made through the node (Analyze Resume + Wait for Completion). */
export async function completedReport(ws: Workspace, resume: ResumeOptions = {}): Promise<string> {
	const result = await runNode(
		ws,
		analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
		[pdfItem(resume)],
	);
	const [item] = jsonOf(result);
	if (item.status !== 'completed')
		throw new Error(`expected a completed report, got ${JSON.stringify(item)}`);
	// The waited output is the report summary, whose id field is `id`.
	const reportId = item.reportId ?? item.id;
	if (typeof reportId !== 'string') throw new Error(`no report id in ${JSON.stringify(item)}`);
	return reportId;
}

/** A tool as n8n-core's createNodeAsTool hands it to an agent (a LangChain DynamicStructuredTool). */
interface AgentTool {
	name: string;
	description: string;
	schema?: { shape?: Record<string, unknown> };
	invoke(args: IDataObject): Promise<string>;
}

/**
 * n8n's AI Agent reduced to a model's calls, for running the action node as a tool through n8n's engine: every input
 * item is one call of each connected tool with the item's `args`; one output item per call, with the tool's name,
 * description, argument names and answer (the text the model reads). A tool's error: with `toolErrors` 'answer' it
 * is the call's answer, `ERROR <message>`, as the AI Agent hands it to the model; with 'stop' it stops the agent
 * node (the run's error).
 */
export function standInAgent(toolErrors: 'answer' | 'stop'): INodeType {
	const description: INodeTypeDescription = {
		displayName: 'Stand-in Agent',
		name: 'standInAgent',
		group: ['transform'],
		version: 1,
		description: 'Calls the connected tools with the arguments of each input item',
		defaults: { name: 'Stand-in Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};
	async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as AgentTool[];
		const calls: INodeExecutionData[] = [];
		for (const item of this.getInputData()) {
			const args = (item.json.args ?? {}) as IDataObject;
			for (const tool of tools) {
				const call = tool.invoke(args);
				const answer =
					toolErrors === 'answer'
						? await call.catch((error: Error) => `ERROR ${error.message}`)
						: await call;
				const json = {
					name: tool.name,
					description: tool.description,
					arguments: Object.keys(tool.schema?.shape ?? {}),
					answer,
				};
				calls.push({ json });
			}
		}
		return [calls];
	}
	return { description, execute };
}

/**
 * One execution of the stand-in agent (`standInAgent`) with the action node as its one tool ("Recruiting Analysis
 * Tool", set to `parameters`, at `typeVersion` or the newest): one call per entry of `calls`, with those arguments.
 */
export async function runAsAgentTool(
	ws: Workspace,
	parameters: INodeParameters,
	calls: IDataObject[],
	options: { toolErrors?: 'answer' | 'stop'; typeVersion?: number } = {},
): Promise<ExecuteNodeResult> {
	return await executeNode({
		nodeType: standInAgent(options.toolErrors ?? 'stop'),
		parameters: {},
		items: calls.map((args) => ({ json: { args } })),
		tools: [
			{
				nodeType: asAiTool(new RecruitingAnalysis()),
				credentials: credentialsFor(ws),
				parameters,
				typeVersion: options.typeVersion,
			},
		],
		credentialTypes: [new RecruitingAnalysisApi()],
	});
}
