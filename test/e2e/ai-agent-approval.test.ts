/**
 * A charged tool call that a person approves, in a real, active n8n 2.41.1: the agent example
 * (examples/agent-chat-with-review.json: Chat Trigger → AI Agent → Reply in Chat; Start Analysis behind n8n's Human
 * review "Recruiter Approves in Chat") with its chat made public and its model the OpenAI-compatible stub of
 * test/helpers/openai-stub.ts. The test is the recruiter: it sends a chat message to the Chat Trigger's public
 * webhook, follows the execution over n8n's chat WebSocket (/chat, as n8n's hosted chat page does), receives the
 * review's approval request there (a second request of the same review node from the execution's run data: see
 * Chat.reviewRequestInExecution) and answers it by opening the Approve or Decline link of that message (the
 * signed /webhook-waiting link n8n-nodes-base's send-and-wait builds). Checked with the sandbox's counters: a
 * declined call starts nothing and charges nothing; an approved one starts exactly one analysis (1 credit); the
 * same call made again by the model and approved again is recovered, not started or charged again. The tool's
 * "Run Without a Person's Review" stays off: the calls run because they came through the review
 * (actions/common/toolMode.ts).
 *
 * n8n 2.x only: n8n 1.x has neither the Human review tools nor the Chat node the example uses (examples/README.md);
 * jest.e2e.config.js leaves this file out of the 1.x project.
 */

import { chatWebhookPath, hostedChatUrl, makeChatPublic } from '../../scripts/start-kit';
import { messageText, type ChatReply, type ChatRequest } from '../helpers/openai-stub';
import {
	countedSince,
	endedExecution,
	sandboxCounters,
	startStubModel,
	toolAnswers,
	toolName,
	uploadReports,
	type StubModel,
} from './agent-setup';
import { bootRealN8n, n8nUnderTest, type RealN8n } from './helpers';
import { HostedChat, type ChatReview } from './hosted-chat';

const EXAMPLE = 'agent-chat-with-review.json';
const TOOL = 'Start Analysis';
const REVIEW = 'Recruiter Approves in Chat';
const TOOL_NAME = toolName(TOOL);

let env: RealN8n;
let stub: StubModel;
let chatUrl: string;
let reportIds: string[];

/**
 * The model: Start Analysis on the report the recruiter names, once, or twice with the same arguments when the
 * message says "twice"; then a last text. Through a review node n8n offers the tool with its arguments under
 * `toolParameters` (n8n-core get-input-connection-data.ts, createHitlToolkit).
 */
function modelTurn(request: ChatRequest): ChatReply {
	const asked = messageText(request.messages.find((m) => m.role === 'user') ?? { role: 'user' });
	const reportId = /rpt_[A-Za-z0-9]+/.exec(asked)?.[0];
	if (!reportId) return { text: 'NO REPORT ID in the message' };
	const answers = request.messages.filter((m) => m.role === 'tool').length;
	const calls = asked.includes('twice') ? 2 : 1;
	if (answers < calls)
		return {
			toolCall: {
				name: TOOL_NAME,
				arguments: { toolParameters: { reportId }, hitlParameters: {} },
			},
		};
	return { text: `Done after ${answers} tool answers.` };
}

/**
 * The review's `runs`-th request, read where n8n keeps it: the review node's run in the waiting execution. n8n's
 * chat session does not forward a second request of the same review node that comes within one of its 3-second
 * polls after the first was answered through the link: it still counts that node as waiting for the chat
 * (n8n 2.41.1, n8n/dist/chat/chat-service.js lines 131-133, waitForChatResponseOrContinue, and line 25,
 * CHECK_FOR_RESPONSE_INTERVAL); a reopened /chat session did not forward it either. The message and its links
 * are the ones the chat shows.
 */
async function reviewRequestInExecution(
	executionId: string,
	runs: number,
	timeoutMs = 180_000,
): Promise<ChatReview> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await env.n8n.getExecution(executionId);
		const runData = execution.data.resultData.runData as unknown as Record<
			string,
			Array<{ data?: { ai_tool?: Array<Array<{ sendMessage?: ChatReview }>> } }> | undefined
		>;
		const asked = runData[REVIEW]?.[runs - 1]?.data?.ai_tool?.[0]?.[0]?.sendMessage;
		if (execution.status === 'waiting' && asked) return asked;
		if (Date.now() > deadline)
			throw new Error(
				`the review's request #${runs}: the execution did not wait for it within ${timeoutMs / 1000} s\n${await describeExecution(executionId)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** One recruiter's chat: the message posted to the public chat webhook, what n8n says back over /chat. */
const sendChat = (chatInput: string) =>
	HostedChat.send(env.n8n, chatUrl, chatInput, describeExecution);

/** An execution's status and, per node, its runs and the last run's output or error (for failure messages). */
async function describeExecution(executionId: string): Promise<string> {
	const execution = await env.n8n.getExecution(executionId);
	const runData = execution.data.resultData.runData as unknown as Record<
		string,
		Array<{ error?: { message?: string }; data?: Record<string, unknown> }>
	>;
	const nodes = Object.entries(runData).map(
		([name, runs]) =>
			`${name} ×${runs.length}: ${JSON.stringify(runs.at(-1)?.error?.message ?? runs.at(-1)?.data).slice(0, 400)}`,
	);
	const last = String(execution.data.resultData.lastNodeExecuted);
	return [`execution ${executionId}: ${execution.status} after ${last}`, ...nodes].join('\n');
}

/** What the sandbox counted since `before`: analyses and their credits (1 each at the sandbox's prices: README). */
async function counts(before: Record<string, unknown>) {
	const delta = await countedSince(env, before);
	return { analyses: delta('attemptsCreated'), credits: delta('attemptsCreated') * 1 };
}

beforeAll(async () => {
	env = await bootRealN8n('e2e-ai-agent-approval');
	stub = await startStubModel(env, modelTurn);
	reportIds = await uploadReports(env, 'Resumes for the approval test', {
		resumes: { count: 2, label: 'Approval' },
	});
	const { id, wf } = await env.importExample(EXAMPLE, (example) => {
		example.name = `${example.name} ${Date.now()}`;
		// The builder makes the chat public (the Chat Trigger's "Make Chat Publicly Available").
		makeChatPublic(example);
		for (const node of example.nodes)
			if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')
				node.credentials = { openAiApi: stub.credential };
	});
	const tool = wf.nodes.find((n) => n.name === TOOL)!;
	// The example leaves the review on: the tool runs only behind the review node.
	if (tool.parameters.runWithoutReview !== undefined)
		throw new Error(`${EXAMPLE}: ${TOOL} must not set Run Without a Person's Review`);
	chatUrl = hostedChatUrl(env.webhookBaseUrl, wf);
	await env.n8n.activateWorkflow(id);
	await env.n8n.waitForWebhook(chatWebhookPath(wf), 30_000, 'GET');
}, 600_000);

afterAll(async () => {
	await stub?.close();
	await env?.close();
});

test(`${n8nUnderTest()}: a Start Analysis call the recruiter declines in the chat's review starts nothing and charges nothing`, async () => {
	const before = await sandboxCounters(env);
	const chat = await sendChat(`Please analyze report ${reportIds[0]}.`);
	try {
		const review = await chat.review();
		// The recruiter reads what is asked: the tool and its arguments (not "[object Object]").
		expect(review.text).toContain(
			`wants to run ${TOOL_NAME} with:\n${JSON.stringify({ reportId: reportIds[0] })}`,
		);
		await chat.answer(review, 'Decline');
		const reply = await chat.message("the agent's reply after the declined call", (t) =>
			t.startsWith('Done after'),
		);
		expect(reply).toBe('Done after 1 tool answers.');
		const execution = await endedExecution(env, chat.executionId);
		expect(execution.status).toBe('success');
		const runData = execution.data.resultData.runData as Record<string, unknown>;
		// The review ran once; the tool never did.
		expect((runData[REVIEW] as unknown[] | undefined)?.length).toBeGreaterThanOrEqual(1);
		expect(runData[TOOL]).toBeUndefined();
		const after = await counts(before);
		expect({ analyses: after.analyses, credits: after.credits }).toEqual({
			analyses: 0,
			credits: 0,
		});
	} finally {
		chat.close();
	}
});

test(`${n8nUnderTest()}: an approved Start Analysis call starts exactly one analysis (1 credit); the same call approved again is recovered, not charged`, async () => {
	const before = await sandboxCounters(env);
	const chat = await sendChat(`Please analyze report ${reportIds[1]}, twice.`);
	try {
		const first = await chat.review();
		expect(first.text).toContain(reportIds[1]);
		await chat.answer(first, 'Approve');
		// The model's second call with the same arguments waits for its own review: by then the first ran.
		const second = await reviewRequestInExecution(chat.executionId, 2);
		expect(second.text).toContain(reportIds[1]);
		const afterFirst = await counts(before);
		expect({ analyses: afterFirst.analyses, credits: afterFirst.credits }).toEqual({
			analyses: 1,
			credits: 1,
		});
		await chat.answer(second, 'Approve');
		const reply = await chat.message("the agent's reply after two approved calls", (t) =>
			t.startsWith('Done after'),
		);
		expect(reply).toBe('Done after 2 tool answers.');
		const execution = await endedExecution(env, chat.executionId);
		expect(execution.status).toBe('success');
		const answers = toolAnswers(execution.data.resultData.runData as Record<string, unknown>, TOOL);
		expect(answers).toEqual([
			expect.objectContaining({ reportId: reportIds[1], status: 'completed' }),
			expect.objectContaining({ reportId: reportIds[1], status: 'completed', recovered: true }),
		]);
		const after = await counts(before);
		expect({ analyses: after.analyses, credits: after.credits }).toEqual({
			analyses: 1,
			credits: 1,
		});
	} finally {
		chat.close();
	}
});
