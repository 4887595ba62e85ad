/**
 * An AI Agent that wants to spend, in real n8n (each line): a Manual Trigger, the example's resume uploaded against
 * the saved job (Upload Resume), then n8n's AI Agent whose chat model is the OpenAI-compatible stub of
 * test/helpers/openai-stub.ts. The stub plays a model that starts the analysis of the uploaded report and then
 * calls Invite ten times with ten addresses, one call per round. The two tools are Recruiting Analysis Tool nodes
 * (Start, Invite) whose arguments are $fromAI() placeholders, wired straight to the agent, without n8n's Human
 * review. Checked: what n8n told the model each tool costs, what each tool answered, and the exact counts of
 * analyses, interviews and emails in the sandbox: none while nobody reviews; once the builder switched on "Run
 * Without a Person's Review" (actions/common/toolMode.ts), the calls run: one analysis, and one interview for the
 * report (the node refuses the nine other addresses: one invitation per report without a New Attempt Label).
 */
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
	type StubModel,
} from './agent-setup';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from './helpers';

const TOOLS = { start: 'Start Analysis', invite: 'Invite Candidate' } as const;
const INVITES = 10;
const address = (i: number) => `agent-candidate-${i}@example.com`;

let env: RealN8n;
let stub: StubModel;

/** The model's turn: Start on the uploaded report, then Invite ten times, then a last text. */
function modelTurn(request: ChatRequest): ChatReply {
	const answers = request.messages.filter((m) => m.role === 'tool').map(messageText);
	const uploaded = /rpt_[A-Za-z0-9]+/.exec(
		messageText(request.messages.find((m) => m.role === 'user') ?? { role: 'user' }),
	)?.[0];
	if (!uploaded) return { text: 'NO REPORT ID in the prompt' };
	if (answers.length === 0)
		return { toolCall: { name: toolName(TOOLS.start), arguments: { reportId: uploaded } } };
	if (answers.length <= INVITES)
		return {
			toolCall: {
				name: toolName(TOOLS.invite),
				arguments: { reportId: uploaded, candidateEmail: address(answers.length) },
			},
		};
	return { text: `Done after ${answers.length} tool calls.` };
}

/** Manual Trigger → the example's resume uploaded → AI Agent with Start and Invite. */
function startAndInviteWorkflow(runWithoutReview: boolean) {
	const review = runWithoutReview ? { runWithoutReview: true } : {};
	return agentWorkflow(env, {
		name: `AI Agent that spends ${runWithoutReview ? 'alone' : 'unreviewed'}`,
		uploadVersion: 1,
		prompt:
			"={{ 'The resume is uploaded as report ' + ($json.reportId || $json.id) + '. Analyze it and invite the candidates.' }}",
		// Room for the model's twelve turns (n8n's default is 10 rounds).
		agentOptions: { maxIterations: 20 },
		model: stub,
		toolVersion: 1,
		tools: [
			{
				name: TOOLS.start,
				parameters: {
					resource: 'analysis',
					operation: 'start',
					reportId: fromAiId('reportId', 'ID of the report'),
					options: { waitForCompletion: true, waitTimeout: 300 },
					...review,
				},
			},
			{
				name: TOOLS.invite,
				parameters: {
					resource: 'interview',
					operation: 'invite',
					reportId: fromAiId('reportId', 'ID of the report'),
					candidateEmail: fromAi('candidateEmail', 'the candidate address'),
					delivery: 'email',
					...review,
				},
			},
		],
	});
}

/** Runs the agent workflow and returns each tool's answers and the sandbox's counts (emails once delivered). */
async function runAgent(runWithoutReview: boolean, expectedEmails: number) {
	const before = await sandboxCounters(env);
	const { runError, requests, answers } = await runAgentWorkflow(
		env,
		stub,
		startAndInviteWorkflow(runWithoutReview),
		300_000,
	);
	const delta = await countedSince(env, before, { emails: expectedEmails });
	return {
		runError,
		requests,
		start: answers(TOOLS.start),
		invite: answers(TOOLS.invite),
		counts: {
			analyses: delta('attemptsCreated'),
			interviews: delta('interviewsCreated'),
			emails: delta('emailsSent'),
		},
	};
}

beforeAll(async () => {
	env = await bootRealN8n('e2e-ai-agent-review');
	stub = await startStubModel(env, modelTurn);
}, 300_000);

afterAll(async () => {
	await stub?.close();
	await env?.close();
});

const refusal =
	/it runs only after a person's review\. Nothing was sent to the Recruiting Analysis API\./;
const WITHOUT_REVIEW = `${n8nUnderTest()}: without a person's review, a model that starts an analysis and invites ten candidates charges and emails nothing`;
const WITH_SWITCH = `${n8nUnderTest()}: with Run Without a Person's Review switched on, the same model gets one analysis, one interview and one email`;

/** n8n told the model what each tool costs and that Invite emails the candidate. */
function expectPricedTools(requests: Awaited<ReturnType<typeof runAgent>>['requests']): void {
	const offered = requests[0].tools!.map((t) => t.function);
	expect(offered.find((t) => t.name === toolName(TOOLS.start))?.description).toBe(
		'Start an analysis (costs credits: charged per analysis at the quoted price; as a tool, at most 10 credits per execution unless its Spending Limit is set) in Recruiting Analysis',
	);
	expect(offered.find((t) => t.name === toolName(TOOLS.invite))?.description).toBe(
		'Invite a candidate (costs credits: charged per interview at the quoted price; as a tool, at most 10 credits per execution unless its Spending Limit is set; emails the candidate) in Recruiting Analysis',
	);
}

// n8n 1.123 ends an agent's execution at the first tool error; n8n 2.x hands the error to the model, which goes
// on calling. One pair of tests per line, each asserting what that line does.
if (n8nLineUnderTest() === '1') {
	test(WITHOUT_REVIEW, async () => {
		const { runError, requests, counts } = await runAgent(false, 0);
		expectPricedTools(requests);
		// The execution ends at the first refusal (the model's Start): nothing was charged.
		expect(runError).toMatch(refusal);
		expect(requests).toHaveLength(1);
		expect(counts).toEqual({ analyses: 0, interviews: 0, emails: 0 });
	});

	test(WITH_SWITCH, async () => {
		const { runError, start, invite, counts } = await runAgent(true, 1);
		expect(start).toEqual([expect.objectContaining({ status: 'completed' })]);
		// The execution ends at the second Invite's refusal; the first was sent.
		expect(runError).toMatch(/already has interview int_\w+ .*nothing was sent/);
		expect(invite[0]).toEqual(
			expect.objectContaining({ interviewId: expect.stringMatching(/^int_/), delivery: 'email' }),
		);
		expect(counts).toEqual({ analyses: 1, interviews: 1, emails: 1 });
	});
} else {
	test(WITHOUT_REVIEW, async () => {
		const { runError, requests, start, invite, counts } = await runAgent(false, 0);
		expectPricedTools(requests);
		// The model made its eleven calls; each was refused, and the model read why.
		expect(runError).toBeUndefined();
		expect(requests).toHaveLength(1 + 1 + INVITES);
		expect(start).toHaveLength(1);
		expect(invite).toHaveLength(INVITES);
		expect([...start, ...invite].map((answer) => String(answer.error))).toEqual(
			Array.from({ length: 1 + INVITES }, () => expect.stringMatching(refusal)),
		);
		expect(counts).toEqual({ analyses: 0, interviews: 0, emails: 0 });
	});

	test(WITH_SWITCH, async () => {
		const { runError, start, invite, counts } = await runAgent(true, 1);
		expect(start).toEqual([expect.objectContaining({ status: 'completed' })]);
		expect(runError).toBeUndefined();
		// The node keeps one invitation per report unless a New Attempt Label asks for another
		// (actions/interview/invite.operation.ts): the first address is invited, the nine others are refused before
		// sending, and the model is told that nothing was sent.
		expect(invite).toHaveLength(INVITES);
		expect(invite[0]).toEqual(
			expect.objectContaining({ interviewId: expect.stringMatching(/^int_/), delivery: 'email' }),
		);
		expect(invite.slice(1).map((answer) => String(answer.error))).toEqual(
			Array.from({ length: INVITES - 1 }, () =>
				expect.stringMatching(/already has interview int_\w+ .*nothing was sent/),
			),
		);
		expect(counts).toEqual({ analyses: 1, interviews: 1, emails: 1 });
	});
}
