/**
 * An AI Agent left alone with money, in real n8n (each line): the builder switched on "Run Without a Person's
 * Review" and set no Spending Limit, so the tools keep the default limit of an agent's tool (writes/spending.ts
 * TOOL_DEFAULT_SPENDING_LIMIT, 10 credits for the execution's total). Twelve resumes are uploaded (free) before the
 * agent; its chat model is the OpenAI-compatible stub of test/helpers/openai-stub.ts, playing a model that
 * starts the first analysis, invites that candidate, resends the invitation twice, starts an analysis on every
 * other report and then calls Invite ten times with ten addresses. A second model tries to set its own limit
 * through a tool whose Spending Limit was left to it ($fromAI). Checked: exact counts of analyses, interviews and
 * emails in the sandbox, and the credits they cost at the sandbox's prices.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { loadExample, nodeError, type WorkflowJson } from '../../scripts/n8n-host';
import {
	messageText,
	startOpenAiStub,
	type ChatReply,
	type ChatRequest,
	type OpenAiStub,
} from '../helpers/openai-stub';
import { NODE_TYPES, bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from './helpers';

const TOOLS = {
	start: 'Start Analysis',
	invite: 'Invite Candidate',
	resend: 'Resend Invitation',
	ownLimit: 'Start With Its Own Limit',
} as const;
const REPORTS = 12;
const INVITES = 10;
/** n8n names a node's tool after the node, with spaces and punctuation as underscores. */
const toolName = (nodeName: string) => nodeName.replace(/[^A-Za-z0-9-]+/g, '_');
const address = (i: number) => `limit-candidate-${i}@example.com`;

let env: RealN8n;
let stub: OpenAiStub;
let savedJobId: string;
let openAi: { id: string; name: string };
/** Which model the stub plays for the workflow being run. */
let playing: 'spender' | 'ownLimit' = 'spender';

function reportIdsOf(request: ChatRequest): string[] {
	const prompt = messageText(request.messages.find((m) => m.role === 'user') ?? { role: 'user' });
	return prompt.match(/rpt_[A-Za-z0-9]+/g) ?? [];
}

/**
 * The spender's turns, by the number of tool answers so far: Start r0, Invite r0, Resend twice, Start r1..r11, then
 * Invite r1..r10 with ten addresses.
 */
function spenderTurn(request: ChatRequest): ChatReply {
	const answers = request.messages.filter((m) => m.role === 'tool').map(messageText);
	const reports = reportIdsOf(request);
	if (reports.length !== REPORTS)
		return { text: `EXPECTED ${REPORTS} REPORTS, got ${reports.length}` };
	const n = answers.length;
	const call = (tool: string, args: Record<string, unknown>): ChatReply => ({
		toolCall: { name: toolName(tool), arguments: args },
	});
	if (n === 0) return call(TOOLS.start, { reportId: reports[0] });
	if (n === 1) return call(TOOLS.invite, { reportId: reports[0], candidateEmail: address(0) });
	if (n === 2 || n === 3) {
		const interviewId = /int_[A-Za-z0-9]+/.exec(answers[1])?.[0];
		if (!interviewId) return { text: `NO INTERVIEW in ${answers[1].slice(0, 300)}` };
		return call(TOOLS.resend, { interviewId });
	}
	const starts = REPORTS - 1;
	if (n < 4 + starts) return call(TOOLS.start, { reportId: reports[n - 3] });
	const i = n - 4 - starts + 1;
	if (i <= INVITES) return call(TOOLS.invite, { reportId: reports[i], candidateEmail: address(i) });
	return { text: `Done after ${n} tool calls.` };
}

/** The model that tries to set its own limit: one call with a limit of 1000 credits, then a last text. */
function ownLimitTurn(request: ChatRequest): ChatReply {
	const answers = request.messages.filter((m) => m.role === 'tool');
	if (answers.length > 0) return { text: 'Done.' };
	return {
		toolCall: {
			name: toolName(TOOLS.ownLimit),
			arguments: { reportId: reportIdsOf(request)[0], limit: 1000 },
		},
	};
}

function agentWorkflow(): WorkflowJson {
	const example = loadExample('analyze-one-resume.json');
	const resumeFile = example.nodes.find((n) => n.name === 'Resume File')!;
	const api = { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi };
	const fromAi = (key: string, description: string, type = 'string') =>
		`={{ $fromAI('${key}', '${description}', '${type}') }}`;
	const reportId = { __rl: true, mode: 'id', value: fromAi('reportId', 'ID of the report') };
	const tool = (name: string, position: [number, number], parameters: Record<string, unknown>) => ({
		id: `tool-${toolName(name)}`,
		name,
		type: `${NODE_TYPES.action}Tool`,
		typeVersion: 2.1,
		position,
		// Alone: the builder let the agent run without a person's review, and set no Spending Limit.
		parameters: { ...parameters, runWithoutReview: true },
		credentials: api,
	});
	const run = Date.now();
	const tools =
		playing === 'spender'
			? [
					tool(TOOLS.start, [760, 220], {
						resource: 'analysis',
						operation: 'start',
						reportId,
						options: { waitForCompletion: true, waitTimeout: 120 },
					}),
					tool(TOOLS.invite, [900, 220], {
						resource: 'interview',
						operation: 'invite',
						reportId,
						candidateEmail: fromAi('candidateEmail', 'the candidate address'),
						delivery: 'email',
					}),
					tool(TOOLS.resend, [1040, 220], {
						resource: 'interview',
						operation: 'resend',
						interviewId: {
							__rl: true,
							mode: 'id',
							value: fromAi('interviewId', 'ID of the interview'),
						},
					}),
				]
			: [
					tool(TOOLS.ownLimit, [760, 220], {
						resource: 'analysis',
						operation: 'start',
						reportId,
						options: { spendingLimit: fromAi('limit', 'credits you may spend', 'number') },
					}),
				];
	return {
		name: `AI Agent alone with the default limit (${playing}) ${run}`,
		nodes: [
			{
				id: 'trigger',
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'candidates',
				name: 'Candidates',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: `return Array.from({ length: ${REPORTS} }, (_, i) => ({ json: { candidate: 'Limit ${run} ' + i } }));`,
				},
			},
			{ ...resumeFile, position: [440, 0] },
			{
				id: 'upload',
				name: 'Upload Resume',
				type: NODE_TYPES.action,
				typeVersion: 2.1,
				position: [660, 0],
				parameters: {
					resource: 'upload',
					operation: 'uploadResume',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'existing',
					jobDescriptionId: { __rl: true, mode: 'id', value: savedJobId },
				},
				credentials: api,
			},
			{
				id: 'reports',
				name: 'Reports',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [880, 0],
				parameters: {
					jsCode:
						'return [{ json: { reportIds: $input.all().map((i) => i.json.reportId || i.json.id) } }];',
				},
			},
			{
				id: 'agent',
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 3,
				position: [1100, 0],
				parameters: {
					promptType: 'define',
					text: "={{ 'The resumes are uploaded as reports ' + $json.reportIds.join(', ') + '. Analyze them and invite the candidates.' }}",
					// Room for the spender's 26 turns (n8n's default is 10 rounds).
					options: { maxIterations: 40 },
				},
			},
			{
				id: 'model',
				name: 'Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [1000, 220],
				parameters: { model: { __rl: true, mode: 'id', value: 'stub-model' }, options: {} },
				credentials: { openAiApi: openAi },
			},
			...tools,
		],
		connections: {
			Run: { main: [[{ node: 'Candidates', type: 'main', index: 0 }]] },
			Candidates: { main: [[{ node: 'Resume File', type: 'main', index: 0 }]] },
			'Resume File': { main: [[{ node: 'Upload Resume', type: 'main', index: 0 }]] },
			'Upload Resume': { main: [[{ node: 'Reports', type: 'main', index: 0 }]] },
			Reports: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'Chat Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				tools.map((t) => [
					t.name,
					{ ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
		settings: { executionOrder: 'v1' },
	} as unknown as WorkflowJson;
}

interface ToolRun {
	data?: { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> };
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the agent workflow; each tool's answers, the credits they say they charged, and the sandbox's counts. */
async function runAgent(model: typeof playing, expectedEmails: number) {
	playing = model;
	const workspaceId = env.sandbox.seed.workspaceId;
	const before = await env.sandbox.control.counters(workspaceId);
	const asked = stub.requests.length;
	const { id } = await env.n8n.createWorkflow(agentWorkflow());
	const result = await env.n8n.executeWorkflow(id, { timeoutMs: 600_000 });
	const run = result.run!.data;
	const runError = (run.resultData as { error?: { message?: string } }).error?.message;
	expect({ agentError: nodeError(run, 'AI Agent')?.message, ok: result.ok }).toEqual({
		agentError: undefined,
		ok: runError === undefined,
	});
	const runData = run.resultData.runData as unknown as Record<string, ToolRun[]>;
	const answers = (name: string) =>
		(runData[name] ?? []).map((r) => r.data?.ai_tool?.[0]?.[0]?.json ?? {});
	// Emails are sent by the sandbox's worker shortly after the write: wait for the expected count, then a little
	// longer, so that one email too many would be seen.
	const deadline = Date.now() + 20_000;
	let after = await env.sandbox.control.counters(workspaceId);
	while (
		Number(after.emailsSent) - Number(before.emailsSent) < expectedEmails &&
		Date.now() < deadline
	) {
		await sleep(200);
		after = await env.sandbox.control.counters(workspaceId);
	}
	await sleep(1_000);
	after = await env.sandbox.control.counters(workspaceId);
	const delta = (key: string) => Number(after[key]) - Number(before[key]);
	return {
		runError,
		requests: stub.requests.slice(asked),
		start: answers(TOOLS.start),
		invite: answers(TOOLS.invite),
		resend: answers(TOOLS.resend),
		ownLimit: answers(TOOLS.ownLimit),
		counts: {
			analyses: delta('attemptsCreated'),
			interviews: delta('interviewsCreated'),
			emails: delta('emailsSent'),
			// At the sandbox's prices (README: 1 credit per analysis, 2.5 per interview).
			credits: delta('attemptsCreated') * 1 + delta('interviewsCreated') * 2.5,
		},
	};
}

beforeAll(async () => {
	env = await bootRealN8n('e2e-ai-agent-limit');
	savedJobId = env.sandbox.seed.jobDescriptionId;
	stub = await startOpenAiStub((request) =>
		playing === 'spender' ? spenderTurn(request) : ownLimitTurn(request),
	);
	openAi = await env.n8n.createCredential({
		name: 'OpenAI stub',
		type: 'openAiApi',
		data: { apiKey: 'sk-stub-not-a-key', url: stub.baseUrl },
	});
}, 300_000);

afterAll(async () => {
	await stub?.close();
	await env?.close();
});

const DEFAULT_LIMIT =
	/The default Execution Spending Limit of an agent's tool, 10 credits per execution, reached: this (analysis|invitation) was not sent/;
const ALONE = `${n8nUnderTest()}: alone with the default limit, a model that starts every analysis, invites, resends twice and invites ten more gets 7 analyses, 1 interview, 2 emails and 9.5 credits`;
const OWN_LIMIT = `${n8nUnderTest()}: a model that tries to set its own Spending Limit is refused before anything is sent`;

/** The spender's counts on both lines: 1 + 6 analyses (1 credit each) and 1 interview (2.5) are 9.5 credits. */
const SPENT = { analyses: 7, interviews: 1, emails: 2, credits: 9.5 };

if (n8nLineUnderTest() === '1') {
	// n8n 1.123 ends an agent's execution at the first tool error: here the first refusal by the limit.
	test(ALONE, async () => {
		const { runError, start, invite, resend, counts } = await runAgent('spender', 2);
		expect(runError).toMatch(DEFAULT_LIMIT);
		expect(start.slice(0, 7)).toEqual(
			Array.from({ length: 7 }, () => expect.objectContaining({ status: 'completed' })),
		);
		expect(invite[0]).toEqual(
			expect.objectContaining({ interviewId: expect.stringMatching(/^int_/) }),
		);
		expect(resend).toHaveLength(2);
		expect(counts).toEqual(SPENT);
	});
} else {
	test(ALONE, async () => {
		const { runError, requests, start, invite, resend, counts } = await runAgent('spender', 2);
		expect(runError).toBeUndefined();
		// Every call the model made was answered: 1 + 11 starts, 1 + 10 invitations, 2 resends, and a last text.
		expect(requests).toHaveLength(1 + REPORTS + (1 + INVITES) + 2);
		expect(start).toHaveLength(REPORTS);
		// The first seven analyses fit (1 credit each, with the 2.5 of the interview: 9.5); the next five would
		// pass 10 and were not sent.
		expect(start.slice(0, 7)).toEqual(
			Array.from({ length: 7 }, () => expect.objectContaining({ status: 'completed' })),
		);
		expect(start.slice(7).map((a) => String(a.error))).toEqual(
			Array.from({ length: 5 }, () => expect.stringMatching(DEFAULT_LIMIT)),
		);
		expect(invite).toHaveLength(1 + INVITES);
		expect(invite[0]).toEqual(
			expect.objectContaining({ interviewId: expect.stringMatching(/^int_/), creditsUsed: 2.5 }),
		);
		// Invitations on the six other analyzed reports would pass the limit; the last four reports were never
		// analyzed. Nothing was sent for any of the ten.
		expect(invite.slice(1, 7).map((a) => String(a.error))).toEqual(
			Array.from({ length: 6 }, () => expect.stringMatching(DEFAULT_LIMIT)),
		);
		expect(invite.slice(7).map((a) => a.error)).toEqual(
			Array.from({ length: 4 }, () => expect.any(String)),
		);
		// The second resend in the same execution is the same write (its key is the interview and the execution):
		// one more email, not two.
		expect(resend).toEqual([
			expect.objectContaining({ interviewId: invite[0].interviewId }),
			expect.objectContaining({ interviewId: invite[0].interviewId }),
		]);
		expect(counts).toEqual(SPENT);
	});
}

test(OWN_LIMIT, async () => {
	const { runError, ownLimit, counts } = await runAgent('ownLimit', 0);
	const refused =
		/"Execution Spending Limit \(Credits\)" cannot come from the model \(\$fromAI\): it is a guard rail the workflow's builder sets/;
	// n8n 1.123 ends the execution at the tool's error; n8n 2.x hands it to the model as the tool's answer.
	const told =
		n8nLineUnderTest() === '1' ? runError : ownLimit.map((a) => String(a.error)).join('\n');
	expect(told).toMatch(refused);
	expect(counts).toEqual({ analyses: 0, interviews: 0, emails: 0, credits: 0 });
});

/**
 * The agent example (examples/agent-chat-with-review.json) against this n8n's own node list (the langchain package's
 * dist/types/nodes.json, what the editor loads): every node type at its version, the review node being the Human
 * review tool n8n 2.x builds from a node with a send-and-wait operation (n8n's own hasSendAndWaitOperation). On
 * n8n 1.x exactly the two nodes examples/README.md names are missing. The file imports on both lines.
 */
test(`${n8nUnderTest()}: the agent example imports, and its nodes are this n8n's (on 1.x all but the review and reply nodes)`, async () => {
	const example = loadExample('agent-chat-with-review.json');
	const { id } = await env.n8n.createWorkflow({
		...example,
		name: `${example.name} ${Date.now()}`,
	});
	expect(id).toBeTruthy();
	const hostModules = join(env.n8n.host.hostDir, 'node_modules');
	const langchain = JSON.parse(
		readFileSync(join(hostModules, '@n8n/n8n-nodes-langchain/dist/types/nodes.json'), 'utf8'),
	) as Array<INodeTypeDescription & { webhooks?: unknown[] }>;
	const hitl = join(hostModules, 'n8n/dist/tool-generation/hitl-tools.js');
	const hasSendAndWait = existsSync(hitl)
		? (createRequire(hitl)(hitl) as { hasSendAndWaitOperation: (d: unknown) => boolean })
				.hasSendAndWaitOperation
		: () => false;
	const missing: string[] = [];
	for (const node of example.nodes) {
		if (node.type.startsWith('n8n-nodes-recruiting-analysis.')) continue;
		const short = node.type.replace('@n8n/n8n-nodes-langchain.', '');
		const review = short.endsWith('HitlTool');
		const base = review ? short.slice(0, -'HitlTool'.length) : short;
		const has = langchain.some(
			(d) =>
				[base, `@n8n/n8n-nodes-langchain.${base}`].includes(d.name) &&
				[d.version].flat().includes(node.typeVersion) &&
				(!review || hasSendAndWait(d)),
		);
		if (!has) missing.push(node.name);
	}
	expect(missing).toEqual(
		n8nLineUnderTest() === '1' ? ['Reply in Chat', 'Recruiter Approves in Chat'] : [],
	);
});
