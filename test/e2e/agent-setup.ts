/**
 * The set-up the AI Agent end-to-end files share (test/e2e/ai-agent.test.ts, ai-agent-review.test.ts,
 * ai-agent-limit.test.ts, ai-agent-approval.test.ts, agent-example-chat.test.ts): the scripted OpenAI-compatible
 * model of test/helpers/openai-stub.ts with n8n's OpenAI credential on it; resumes uploaded (free) against the saved
 * job with the package's own Upload Resume; the workflow Manual Trigger → upload → AI Agent, with its Chat Model and
 * Recruiting Analysis Tool nodes; the tool answers of a run and the sandbox's counters after it; the wait for a
 * chat's execution to end. What differs between the files (the model's turns, the tools, the prompt, how many
 * resumes) is theirs.
 */
import { loadExample, nodeError, type WorkflowJson } from '../../scripts/n8n-host';
import {
	startOpenAiStub,
	type ChatReply,
	type ChatRequest,
	type OpenAiStub,
} from '../helpers/openai-stub';
import { NODE_TYPES, type RealN8n } from './helpers';

type WorkflowNode = WorkflowJson['nodes'][number];

/** n8n names a node's tool after the node, with spaces and punctuation as underscores. */
export const toolName = (nodeName: string) => nodeName.replace(/[^A-Za-z0-9-]+/g, '_');

/** A parameter the model fills: n8n's `$fromAI()` placeholder. */
export const fromAi = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;

/** A resource locator (by ID) whose value the model fills. */
export const fromAiId = (key: string, description: string) => ({
	__rl: true,
	mode: 'id',
	value: fromAi(key, description),
});

/** The scripted model on loopback, and n8n's OpenAI credential whose Base URL is the model's. */
export interface StubModel extends OpenAiStub {
	credential: { id: string; name: string };
}

/** Starts the scripted model answering with `reply` and makes its OpenAI credential in the file's n8n. */
export async function startStubModel(
	env: RealN8n,
	reply: (request: ChatRequest) => ChatReply,
): Promise<StubModel> {
	const stub = await startOpenAiStub(reply);
	try {
		const credential = await env.n8n.createCredential({
			name: 'OpenAI stub',
			type: 'openAiApi',
			data: { apiKey: 'sk-stub-not-a-key', url: stub.baseUrl },
		});
		return Object.assign(stub, { credential });
	} catch (error) {
		await stub.close();
		throw error;
	}
}

const mainTo = (node: string) => ({ main: [[{ node, type: 'main', index: 0 }]] });

export interface UploadOptions {
	/**
	 * The resumes: by default one, for the Candidate of examples/analyze-one-resume.json; `count` resumes from a Code
	 * node "Candidates" otherwise, candidate `<label> <time> <i>`.
	 */
	resumes?: { count: number; label: string };
	/** Upload Resume's node version (default 1, the only one). */
	uploadVersion?: number;
}

/**
 * Run (Manual Trigger) → the candidates → Resume File (the example's PDF builder, score 8) → Upload Resume against
 * the saved job: the nodes at x = 0 to 660, and their connections.
 */
function uploadChain(env: RealN8n, options: UploadOptions) {
	const example = loadExample('analyze-one-resume.json');
	const exampleNode = (name: string) => example.nodes.find((n) => n.name === name)!;
	const { resumes, uploadVersion = 1 } = options;
	const candidates: WorkflowNode = resumes
		? {
				id: 'candidates',
				name: 'Candidates',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: `return Array.from({ length: ${resumes.count} }, (_, i) => ({ json: { candidate: '${resumes.label} ${Date.now()} ' + i } }));`,
				},
			}
		: { ...exampleNode('Candidate'), position: [220, 0] };
	const nodes: WorkflowNode[] = [
		{
			id: 'trigger',
			name: 'Run',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		candidates,
		{ ...exampleNode('Resume File'), position: [440, 0] },
		{
			id: 'upload',
			name: 'Upload Resume',
			type: NODE_TYPES.action,
			typeVersion: uploadVersion,
			position: [660, 0],
			parameters: {
				resource: 'upload',
				operation: 'uploadResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: { __rl: true, mode: 'id', value: env.sandbox.seed.jobDescriptionId },
			},
			credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
		},
	];
	const connections: Record<string, unknown> = {
		Run: mainTo(candidates.name),
		[candidates.name]: mainTo('Resume File'),
		'Resume File': mainTo('Upload Resume'),
	};
	return { nodes, connections };
}

type UploadRuns = Record<
	string,
	Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }>> } }>
>;

/** Uploads the resumes (free: no analysis) in a one-off workflow; the report IDs, checked to be report IDs. */
export async function uploadReports(
	env: RealN8n,
	name: string,
	options: UploadOptions = {},
): Promise<string[]> {
	const { nodes, connections } = uploadChain(env, options);
	const wf: WorkflowJson = {
		name: `${name} ${Date.now()}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
	const { id } = await env.n8n.createWorkflow(wf);
	const execution = await env.n8n.runManually(id, { timeoutMs: 300_000 });
	const runData = execution.data.resultData.runData as unknown as UploadRuns | undefined;
	const items = runData?.['Upload Resume']?.[0]?.data?.main?.[0] ?? [];
	const ids = items.map((i) => String(i.json.reportId ?? i.json.id));
	expect(ids).toEqual(
		Array.from({ length: options.resumes?.count ?? 1 }, () => expect.stringMatching(/^rpt_/)),
	);
	return ids;
}

/** A Recruiting Analysis Tool node of the agent: its name (the model's tool is `toolName(name)`) and parameters. */
export interface AgentTool {
	name: string;
	parameters: Record<string, unknown>;
}

export interface AgentWorkflowOptions extends UploadOptions {
	name: string;
	/** The AI Agent's prompt: an expression over the upload's output item (or over `reportIds` with gatherReports). */
	prompt: string;
	/** The AI Agent's options (e.g. maxIterations). */
	agentOptions?: Record<string, unknown>;
	/** A Code node "Reports" between the upload and the agent: one item, every uploaded report's ID in `reportIds`. */
	gatherReports?: boolean;
	model: StubModel;
	tools: AgentTool[];
	/** The Tool nodes' version. */
	toolVersion: number;
}

/**
 * The upload chain, then n8n's AI Agent (node version 3) with the stub as its OpenAI Chat Model (model id
 * "stub-model") and the Tool nodes wired straight to it (no review node).
 */
export function agentWorkflow(env: RealN8n, options: AgentWorkflowOptions): WorkflowJson {
	const { nodes, connections } = uploadChain(env, options);
	let last = 'Upload Resume';
	let x = 880;
	if (options.gatherReports) {
		nodes.push({
			id: 'reports',
			name: 'Reports',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [x, 0],
			parameters: {
				jsCode:
					'return [{ json: { reportIds: $input.all().map((i) => i.json.reportId || i.json.id) } }];',
			},
		});
		connections[last] = mainTo('Reports');
		last = 'Reports';
		x += 220;
	}
	const api = { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi };
	nodes.push(
		{
			id: 'agent',
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3,
			position: [x, 0],
			parameters: {
				promptType: 'define',
				text: options.prompt,
				options: options.agentOptions ?? {},
			},
		},
		{
			id: 'model',
			name: 'Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [x - 100, 220],
			parameters: { model: { __rl: true, mode: 'id', value: 'stub-model' }, options: {} },
			credentials: { openAiApi: options.model.credential },
		},
		...options.tools.map((tool, i): WorkflowNode => ({
			id: `tool-${toolName(tool.name)}`,
			name: tool.name,
			type: `${NODE_TYPES.action}Tool`,
			typeVersion: options.toolVersion,
			position: [x + 100 + 140 * i, 220],
			parameters: tool.parameters,
			credentials: api,
		})),
	);
	connections[last] = mainTo('AI Agent');
	connections['Chat Model'] = {
		ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
	};
	for (const tool of options.tools)
		connections[tool.name] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return {
		name: `${options.name} ${Date.now()}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/** A tool node's run as n8n keeps it in the execution's run data. */
export interface ToolRun {
	inputOverride?: { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> };
	data?: { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> };
	error?: { message: string };
}

/** A tool node's answers, one a call (its first item's JSON), from an execution's run data. */
export function toolAnswers(runData: Record<string, unknown>, name: string) {
	return ((runData[name] ?? []) as ToolRun[]).map((r) => r.data?.ai_tool?.[0]?.[0]?.json ?? {});
}

/**
 * Creates and runs an agent workflow: the error that ended the execution (if one did), each tool's answers and the
 * model's requests during the run. n8n 2.x hands a tool's error back to the model and the agent goes on; n8n 1.123
 * ends the execution at the first tool error (the error is the node's, and nothing after it runs). Either way the
 * AI Agent node itself did not fail, and the execution is ok exactly when no error ended it.
 */
export async function runAgentWorkflow(
	env: RealN8n,
	model: StubModel,
	wf: WorkflowJson,
	timeoutMs: number,
) {
	const asked = model.requests.length;
	const { id } = await env.n8n.createWorkflow(wf);
	const execution = await env.n8n.runManually(id, { timeoutMs });
	const run = execution.data;
	const runError = (run.resultData as { error?: { message?: string } }).error?.message;
	const ok = execution.status === 'success';
	expect({ agentError: nodeError(run, 'AI Agent')?.message, ok }).toEqual({
		agentError: undefined,
		ok: runError === undefined,
	});
	const runData = run.resultData.runData as unknown as Record<string, unknown>;
	return {
		runError,
		requests: model.requests.slice(asked),
		answers: (name: string) => toolAnswers(runData, name),
	};
}

/** The sandbox's counters for the file's workspace. */
export async function sandboxCounters(env: RealN8n): Promise<Record<string, unknown>> {
	return await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the sandbox counted since `before`, as a difference per counter. With `emails`: emails are sent by the
 * sandbox's worker shortly after the write, so it waits until that many arrived (20 s at most), then a little
 * longer, so that one email too many would be seen.
 */
export async function countedSince(
	env: RealN8n,
	before: Record<string, unknown>,
	options: { emails?: number } = {},
): Promise<(key: string) => number> {
	let after = await sandboxCounters(env);
	if (options.emails !== undefined) {
		const deadline = Date.now() + 20_000;
		while (
			Number(after.emailsSent) - Number(before.emailsSent) < options.emails &&
			Date.now() < deadline
		) {
			await sleep(200);
			after = await sandboxCounters(env);
		}
		await sleep(1_000);
		after = await sandboxCounters(env);
	}
	return (key: string) => Number(after[key]) - Number(before[key] ?? 0);
}

/** Waits until an execution has ended (success, error, crashed or canceled), within `timeoutMs`. */
export async function endedExecution(env: RealN8n, executionId: string, timeoutMs = 120_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await env.n8n.getExecution(executionId);
		if (['success', 'error', 'crashed', 'canceled'].includes(String(execution.status)))
			return execution;
		if (Date.now() > deadline)
			throw new Error(
				`execution ${executionId}: still ${execution.status} after ${timeoutMs / 1000} s\n${env.n8n.logTail(20)}`,
			);
		await sleep(500);
	}
}
