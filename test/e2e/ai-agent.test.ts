/**
 * The action node under n8n's own AI Agent, in real n8n (each line): a Manual Trigger, the example's candidate and
 * resume PDF uploaded against the saved job (Upload Resume), then an AI Agent whose chat model (n8n's OpenAI Chat
 * Model, Chat Completions) is served on loopback by test/helpers/openai-stub.ts. The stub answers with tool calls
 * the way a model would: list the saved jobs, start the analysis of the uploaded report (waiting for it), read
 * the report's result, then say the score. The three tools are Recruiting Analysis Tool nodes whose arguments are
 * $fromAI() placeholders. Checked: what n8n offered the model, the tool inputs n8n passed to each node (its run
 * data), what each tool answered, and the sandbox's counters (one upload, one analysis).
 *
 * The file is uploaded before the agent because a tool node gets no binary data from the agent's input item (n8n
 * 2.41.1 answered an Analyze Resume tool with "expects the node's input data to contain a binary file 'data', but
 * none was found"): an agent can start and read analyses, not send files.
 */
import { nodeError } from '../../scripts/n8n-host';
import { messageText, type ChatReply, type ChatRequest } from '../helpers/openai-stub';
import {
	agentWorkflow,
	countedSince,
	fromAiId,
	sandboxCounters,
	startStubModel,
	toolName,
	type StubModel,
	type ToolRun,
} from './agent-setup';
import { bootRealN8n, n8nUnderTest, type RealN8n } from './helpers';

const TOOLS = { list: 'List Saved Jobs', analyze: 'Start Analysis', read: 'Read Result' } as const;

let env: RealN8n;
let stub: StubModel;
let savedJobId: string;

/** The model's turn: which tool to call next, from the tool answers so far (or the final text). */
function modelTurn(request: ChatRequest): ChatReply {
	const offered = (request.tools ?? []).map((t) => t.function.name);
	const missing = Object.values(TOOLS)
		.map(toolName)
		.filter((name) => !offered.includes(name));
	if (missing.length > 0)
		return { text: `MISSING TOOLS ${missing.join(', ')}; offered: ${offered.join(', ')}` };
	const answers = request.messages.filter((m) => m.role === 'tool').map(messageText);
	const uploaded = /rpt_[A-Za-z0-9]+/.exec(
		messageText(request.messages.find((m) => m.role === 'user') ?? { role: 'user' }),
	)?.[0];
	if (!uploaded) return { text: 'NO REPORT ID in the prompt' };
	if (answers.length === 0) return { toolCall: { name: toolName(TOOLS.list), arguments: {} } };
	if (answers.length === 1) {
		if (!answers[0].includes(savedJobId))
			return { text: `NO SAVED JOB in the list: ${answers[0].slice(0, 300)}` };
		return { toolCall: { name: toolName(TOOLS.analyze), arguments: { reportId: uploaded } } };
	}
	if (answers.length === 2) {
		if (!answers[1].includes(uploaded))
			return {
				text: `NOT THE UPLOADED REPORT in the analysis answer: ${answers[1].slice(0, 300)}`,
			};
		return { toolCall: { name: toolName(TOOLS.read), arguments: { reportId: uploaded } } };
	}
	const score = /"score":\s*(\d+(?:\.\d+)?)/.exec(answers[2])?.[1];
	return { text: `The candidate scored ${score ?? 'NO SCORE'}.` };
}

/** Manual Trigger → the example's resume uploaded → AI Agent with the three tools. */
function listAnalyzeReadWorkflow() {
	return agentWorkflow(env, {
		name: 'AI Agent with Recruiting Analysis tools',
		uploadVersion: 1,
		prompt:
			"={{ 'The resume is uploaded as report ' + ($json.reportId || $json.id) + '. List the saved jobs, start the analysis of that report, read its result and give the score.' }}",
		model: stub,
		toolVersion: 1,
		tools: [
			{
				name: TOOLS.list,
				parameters: {
					resource: 'jobDescription',
					operation: 'getMany',
					returnAll: false,
					limit: 10,
				},
			},
			{
				name: TOOLS.analyze,
				parameters: {
					resource: 'analysis',
					operation: 'start',
					reportId: fromAiId('reportId', 'ID of the uploaded report to analyze'),
					// The builder lets this agent start analyses without a person's review (off by default).
					runWithoutReview: true,
					options: { waitForCompletion: true, waitTimeout: 300 },
				},
			},
			{
				name: TOOLS.read,
				parameters: {
					resource: 'report',
					operation: 'getResult',
					reportId: fromAiId('reportId', 'ID of the report to read'),
				},
			},
		],
	});
}

beforeAll(async () => {
	env = await bootRealN8n('e2e-ai-agent');
	savedJobId = env.sandbox.seed.jobDescriptionId;
	stub = await startStubModel(env, modelTurn);
}, 300_000);

afterAll(async () => {
	await stub?.close();
	await env?.close();
});

test(`${n8nUnderTest()}: an AI Agent lists saved jobs, analyzes the uploaded resume and reads its result through the Recruiting Analysis tool`, async () => {
	const before = await sandboxCounters(env);
	const { id } = await env.n8n.createWorkflow(listAnalyzeReadWorkflow());
	const execution = await env.n8n.runManually(id, { timeoutMs: 300_000 });
	const run = execution.data;
	expect({ status: execution.status, agentError: nodeError(run, 'AI Agent')?.message }).toEqual({
		status: 'success',
		agentError: undefined,
	});

	// n8n offered the model the three tools, described by their operations; the model was asked four times.
	expect(stub.requests).toHaveLength(4);
	const offered = stub.requests[0].tools!.map((t) => t.function);
	expect(offered.map((t) => t.name).sort()).toEqual(Object.values(TOOLS).map(toolName).sort());
	const analyzeTool = offered.find((t) => t.name === toolName(TOOLS.analyze))!;
	expect(analyzeTool.description).toBe(
		'Start an analysis (costs credits: charged per analysis at the quoted price; as a tool, at most 10 credits per execution unless its Spending Limit is set) in Recruiting Analysis',
	);
	expect(Object.keys(analyzeTool.parameters?.properties ?? {})).toEqual(['reportId']);

	// Each tool node ran once, with the arguments the model chose, as n8n passed them to the node.
	const runData = run.resultData.runData as unknown as Record<string, ToolRun[]>;
	const inputOf = (name: string) =>
		runData[name]?.map((r) => r.inputOverride?.ai_tool?.[0]?.[0]?.json);
	const outputOf = (name: string) =>
		runData[name]?.[0]?.data?.ai_tool?.[0]?.map((i) => i.json) ?? [];
	const reportId = String(
		(
			runData['Upload Resume'] as unknown as Array<{
				data: { main: Array<Array<{ json: { reportId?: string } }>> };
			}>
		)[0].data.main[0][0].json.reportId,
	);
	expect(reportId).toMatch(/^rpt_/);
	expect(inputOf(TOOLS.analyze)).toEqual([expect.objectContaining({ reportId })]);
	expect(outputOf(TOOLS.analyze)).toEqual([
		expect.objectContaining({ reportId, status: 'completed' }),
	]);
	expect(inputOf(TOOLS.read)).toEqual([expect.objectContaining({ reportId })]);
	expect(runData[TOOLS.list]).toHaveLength(1);
	expect(outputOf(TOOLS.list).map((j) => j.id)).toContain(savedJobId);

	// The result the tool read is the analysis the example's resume asks for (RA-SANDBOX-SCORE), and the agent's
	// answer is the model's last turn, made from that result.
	const read = outputOf(TOOLS.read)[0] as { result?: { score?: number } };
	// What the tool returned is the sandbox's own result for that report (read here over the API, not from the
	// stub), with the score the example's resume asks for (RA-SANDBOX-SCORE=8 in examples/analyze-one-resume.json).
	const stored = await fetch(
		`${env.sandbox.baseUrl}/api/v1/reports/${encodeURIComponent(reportId)}/result`,
		{ headers: { authorization: `Bearer ${env.sandbox.seed.apiKey}` } },
	);
	expect(stored.status).toBe(200);
	const sandboxResult = (
		(await stored.json()) as { data: { reportId: string; result: { score?: number } | null } }
	).data;
	expect(sandboxResult.reportId).toBe(reportId);
	expect(sandboxResult.result?.score).toBe(8);
	expect(read.result?.score).toBe(sandboxResult.result?.score);
	const agentOut = (
		runData['AI Agent'] as unknown as Array<{
			data: { main: Array<Array<{ json: { output?: string } }>> };
		}>
	)[0].data.main[0][0].json;
	expect(agentOut.output).toBe(`The candidate scored ${read.result!.score}.`);

	// One upload and one analysis in the sandbox, nothing else written.
	const delta = await countedSince(env, before);
	expect({
		reports: delta('reportsCreated'),
		attempts: delta('attemptsCreated'),
		puts: delta('storagePuts'),
		batches: delta('batchesCreated'),
		interviews: delta('interviewsCreated'),
	}).toEqual({
		reports: 1,
		attempts: 1,
		puts: 1,
		batches: 0,
		interviews: 0,
	});
});
