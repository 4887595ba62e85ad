/**
 * The agent example (examples/agent-chat-with-review.json) after `npm start`, as `npm start` leaves it and tells a
 * person to use it (scripts/start-kit.ts exampleHints): its *OpenAI-compatible model* credential on the scripted demo
 * model of scripts/demo-model.ts, its chat public and the workflow active (test/e2e/as-npm-start.ts
 * prepareAgentExample, with the functions scripts/start.ts uses). The test is the person in the hosted chat
 * (test/e2e/hosted-chat.ts): it types the two sentences `npm start` prints, answers the review's approval request
 * with Approve, and checks the chat's replies and the sandbox's counters. The report is one freshly uploaded (free),
 * so that an approved Start Analysis is a first analysis.
 *
 * n8n 2.x only: n8n 1.x has neither the Human review tools nor the Chat node the example uses (examples/README.md);
 * jest.e2e.config.js leaves this file out of the 1.x project.
 */
import { nodeOutput } from '../../scripts/n8n-host';
import { DEMO_MODEL_NOTE } from '../../scripts/demo-model';
import { AGENT_EXAMPLE, exampleHints, type HintContext } from '../../scripts/start-kit';
import { countedSince, endedExecution, sandboxCounters, uploadReports } from './agent-setup';
import { prepareAgentExample, type AgentExampleAsNpmStart } from './as-npm-start';
import { HostedChat } from './hosted-chat';
import { bootRealN8n, n8nUnderTest, type RealN8n } from './helpers';

let env: RealN8n;
let agent: AgentExampleAsNpmStart;
let reportId: string;

/** What the sandbox counted since `before`: analyses (1 credit each in the sandbox), interviews, emails. */
async function since(before: Record<string, unknown>) {
	const delta = await countedSince(env, before);
	return {
		analyses: delta('attemptsCreated'),
		interviews: delta('interviewsCreated'),
		emails: delta('emailsSent'),
	};
}

const ranNodes = (execution: { data: { resultData: { runData?: unknown } } }) =>
	Object.keys((execution.data.resultData.runData ?? {}) as Record<string, unknown>).sort();

beforeAll(async () => {
	env = await bootRealN8n('e2e-agent-example-chat');
	agent = await prepareAgentExample(env);
	// A resume uploaded with the package's own Upload Resume in a one-off workflow (free: no analysis).
	[reportId] = await uploadReports(env, 'A resume for the agent example');
}, 600_000);

afterAll(async () => {
	await agent?.demoModel.close();
	await env?.close();
});

test(`${n8nUnderTest()}: npm start's lines for the agent example name the hosted chat, the two sentences, Approve and that the model is a script`, () => {
	const ctx: HintContext = {
		n8nBaseUrl: env.n8n.baseUrl,
		resumesDir: '/unused',
		names: {},
		agent: { demoModelUrl: agent.demoModel.baseUrl, chatUrl: agent.chatUrl },
	};
	const lines = exampleHints(AGENT_EXAMPLE, ctx).join('\n');
	expect(lines).toContain(`open its chat: ${agent.chatUrl}`);
	expect(lines).toContain('read report rpt_…');
	expect(lines).toContain('analyze report rpt_…');
	expect(lines).toContain('click Approve');
	expect(lines).toContain('a script, not an AI');
	expect(lines).toContain('"OpenAI-compatible model"');
});

test(`${n8nUnderTest()}: "read report rpt_…" in the agent example's chat runs the free Read Report alone: a reply, nothing charged`, async () => {
	const before = await sandboxCounters(env);
	const chat = await HostedChat.send(env.n8n, agent.chatUrl, `read report ${reportId}`);
	try {
		const reply = await chat.message("the agent's reply", (t) => t.includes(DEMO_MODEL_NOTE));
		expect(reply).toMatch(new RegExp(`^Read_Report: .*\\b${reportId}\\b`, 'm'));
		expect(chat.received.filter((t) => t.includes('"with-buttons"'))).toEqual([]);
		const execution = await endedExecution(env, chat.executionId);
		expect(execution.status).toBe('success');
		expect(ranNodes(execution)).toEqual(
			expect.arrayContaining(['Read Report', 'Recruiting Agent', 'Reply in Chat']),
		);
		expect(ranNodes(execution)).not.toContain('Start Analysis');
		expect(await since(before)).toEqual({ analyses: 0, interviews: 0, emails: 0 });
	} finally {
		chat.close();
	}
});

test(`${n8nUnderTest()}: "analyze report rpt_…" asks for approval in the chat; after Approve exactly one analysis (1 credit) and the reply`, async () => {
	const before = await sandboxCounters(env);
	const chat = await HostedChat.send(env.n8n, agent.chatUrl, `analyze report ${reportId}`);
	try {
		const review = await chat.review();
		expect(review.text).toContain('Start_Analysis');
		expect(review.text).toContain(reportId);
		expect(review.buttons.map((b) => b.text)).toEqual(expect.arrayContaining(['Approve']));
		// Nothing is started while the request waits for the person.
		expect(await since(before)).toEqual({ analyses: 0, interviews: 0, emails: 0 });
		await chat.answer(review, 'Approve');
		const reply = await chat.message("the agent's reply after Approve", (t) =>
			t.includes(DEMO_MODEL_NOTE),
		);
		expect(reply).toContain(`Start_Analysis: `);
		expect(reply).toContain(`reportId ${reportId}`);
		expect(reply).toContain('status completed');
		const execution = await endedExecution(env, chat.executionId, 360_000);
		expect(execution.status).toBe('success');
		expect(ranNodes(execution)).toEqual(
			expect.arrayContaining(['Recruiter Approves in Chat', 'Start Analysis']),
		);
		expect(nodeOutput(execution.data, 'Reply in Chat')).toHaveLength(1);
		expect(await since(before)).toEqual({ analyses: 1, interviews: 0, emails: 0 });
	} finally {
		chat.close();
	}
});
