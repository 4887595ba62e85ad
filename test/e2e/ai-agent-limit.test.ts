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

import { loadExample } from '../../scripts/n8n-host';
import { messageText, type ChatReply, type ChatRequest } from '../helpers/openai-stub';
import {
	agentWorkflow,
	countedSince,
	fromAi,
	fromAiId,
	runAgentWorkflow,
	sandboxCounters,
	startStubModel,
	toolName,
	type AgentTool,
	type StubModel,
} from './agent-setup';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from './helpers';

const TOOLS = {
	start: 'Start Analysis',
	invite: 'Invite Candidate',
	resend: 'Resend Invitation',
	ownLimit: 'Start With Its Own Limit',
} as const;
const REPORTS = 12;
const INVITES = 10;
const address = (i: number) => `limit-candidate-${i}@example.com`;

let env: RealN8n;
let stub: StubModel;
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

/** The tools of the model being played, as its builder left them: alone (no review) and no Spending Limit. */
function toolsFor(model: typeof playing): AgentTool[] {
	const reportId = fromAiId('reportId', 'ID of the report');
	const tools: AgentTool[] =
		model === 'spender'
			? [
					{
						name: TOOLS.start,
						parameters: {
							resource: 'analysis',
							operation: 'start',
							reportId,
							options: { waitForCompletion: true, waitTimeout: 120 },
						},
					},
					{
						name: TOOLS.invite,
						parameters: {
							resource: 'interview',
							operation: 'invite',
							reportId,
							candidateEmail: fromAi('candidateEmail', 'the candidate address'),
							delivery: 'email',
						},
					},
					{
						name: TOOLS.resend,
						parameters: {
							resource: 'interview',
							operation: 'resend',
							interviewId: fromAiId('interviewId', 'ID of the interview'),
						},
					},
				]
			: [
					{
						name: TOOLS.ownLimit,
						parameters: {
							resource: 'analysis',
							operation: 'start',
							reportId,
							spendingLimit: fromAi('limit', 'credits you may spend', 'number'),
						},
					},
				];
	// Alone: the builder let the agent run without a person's review, and set no Spending Limit.
	return tools.map((t) => ({ ...t, parameters: { ...t.parameters, runWithoutReview: true } }));
}

/** Runs the agent workflow; each tool's answers, the credits they say they charged, and the sandbox's counts. */
async function runAgent(model: typeof playing, expectedEmails: number) {
	playing = model;
	const before = await sandboxCounters(env);
	const wf = agentWorkflow(env, {
		name: `AI Agent alone with the default limit (${model})`,
		resumes: { count: REPORTS, label: 'Limit' },
		gatherReports: true,
		prompt:
			"={{ 'The resumes are uploaded as reports ' + $json.reportIds.join(', ') + '. Analyze them and invite the candidates.' }}",
		// Room for the spender's 26 turns (n8n's default is 10 rounds).
		agentOptions: { maxIterations: 40 },
		model: stub,
		tools: toolsFor(model),
		toolVersion: 1,
	});
	const { runError, requests, answers } = await runAgentWorkflow(env, stub, wf, 600_000);
	const delta = await countedSince(env, before, { emails: expectedEmails });
	return {
		runError,
		requests,
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
	stub = await startStubModel(env, (request) =>
		playing === 'spender' ? spenderTurn(request) : ownLimitTurn(request),
	);
}, 300_000);

afterAll(async () => {
	await stub?.close();
	await env?.close();
});

const DEFAULT_LIMIT =
	/Spending Limit of 10 credits reached( \(an agent's tool that sets none keeps this one\))?: this (analysis|invitation) costs/;
const ALONE = `${n8nUnderTest()}: alone with the default limit, a model that starts every analysis, invites, resends twice and invites ten more gets 7 analyses, 1 interview, 2 emails and 9.5 credits`;
const OWN_LIMIT = `${n8nUnderTest()}: a model that tries to set its own Spending Limit is refused before anything is sent`;

/** The spender's counts on both lines: 1 + 6 analyses (1 credit each) and 1 interview (2.5) are 9.5 credits. */
const SPENT = { analyses: 7, interviews: 1, emails: 2, credits: 9.5 };

/** What the model was told about each tool (n8n sends each Tool's description with every request). */
function toolDescriptions(
	requests: Array<{ tools?: Array<{ function: { description?: string } }> }>,
) {
	return (requests[0]?.tools ?? []).map((t) => String(t.function.description));
}

/** The price and email notes reach the model through the Tool's description, not through the node's name. */
const TOLD = [
	expect.stringMatching(
		/^Start an analysis \(costs credits: charged per analysis at the quoted price/,
	),
	expect.stringMatching(
		/^Invite a candidate \(costs credits: charged per interview .*; emails the candidate\) in Recruiting Analysis$/,
	),
	expect.stringMatching(/^Resend an invitation \(free, but emails the candidate each time\)/),
];

if (n8nLineUnderTest() === '1') {
	// n8n 1.123 ends an agent's execution at the first tool error: here the first refusal by the limit.
	test(ALONE, async () => {
		const { runError, requests, start, invite, resend, counts } = await runAgent('spender', 2);
		expect(toolDescriptions(requests)).toEqual(expect.arrayContaining(TOLD));
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
		expect(toolDescriptions(requests)).toEqual(expect.arrayContaining(TOLD));
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
		/"Spending Limit \(Credits\)" cannot come from the model \(\$fromAI\): it is a guard rail the workflow's builder sets/;
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
