/**
 * The action node as an AI agent's tool. n8n wraps a `usableAsTool` node as "<name>Tool" with an `ai_tool` output;
 * an agent node reaches it through getInputConnectionData, where n8n-core's createNodeAsTool builds a
 * DynamicStructuredTool (description: the operation's action, or the user's; arguments: the node's $fromAI()
 * placeholders) and runs the node when the agent invokes it. Here a minimal agent node does that through n8n's
 * engine, against the sandbox. The operation descriptions (what the editor and n8n's AI features read) are
 * checked for saying when to use an operation and what it needs.
 */
import {
	NodeHelpers,
	type IDataObject,
	type INode,
	type IExecuteFunctions,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { cameThroughReview } from '../../../nodes/RecruitingAnalysis/actions/common/toolMode';
import { TOOL_DEFAULT_SPENDING_LIMIT } from '../../../nodes/RecruitingAnalysis/writes/spending';
import { asAiTool } from '../../helpers/n8n-engine';
import {
	completedReport,
	counters,
	jsonOf,
	runAsAgentTool,
	totalRequests,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

/** A call's answer as the tool's JSON output (what the model reads, parsed). */
const responseOf = (call: IDataObject) => JSON.parse(String(call.answer)) as IDataObject[];

let ws: Workspace;
useSandboxWorkspace((started) => ({ ws } = started));

const node = new RecruitingAnalysis();

describe('operation descriptions for people and agents', () => {
	const operations = node.description.properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) =>
			(p.options as INodePropertyOptions[]).map((o) => ({
				resource: String(p.displayOptions?.show?.resource?.[0]),
				...o,
			})),
		);

	it("every operation says what it does as a task, in a line n8n's dropdown shows whole: no endpoint, no scope", () => {
		expect(operations).toHaveLength(31);
		for (const operation of operations) {
			const text = String(operation.description);
			expect({
				operation: `${operation.resource}:${operation.value}`,
				short: text.length <= 75,
				aTask: /^[A-Z][a-z]+ [^.;]+$/.test(text),
				scope: /\b[a-z-]+:(read|write)\b/.test(text),
				endpoint: /endpoint|\/api\//i.test(text) || /\b(GET|POST|PUT)\b/.test(text),
			}).toEqual({
				operation: `${operation.resource}:${operation.value}`,
				short: true,
				aTask: true,
				scope: false,
				endpoint: false,
			});
		}
	});

	it('no two operations have the same description or the same action', () => {
		expect(new Set(operations.map((o) => o.description)).size).toBe(operations.length);
		expect(new Set(operations.map((o) => o.action)).size).toBe(operations.length);
	});
});

describe('what the model reads: the tool description n8n sends', () => {
	const plain = node.description.properties;
	const toolType = asAiTool(node);
	const selectors = plain.filter((p) => p.name === 'operation');
	/** The parameter names an operation offers, top-level and in its Options collection, by "resource:operation". */
	const offered = (key: string): string[] => {
		const [resource, operation] = key.split(':');
		return plain
			.filter(
				(p) =>
					Boolean(p.displayOptions?.show?.resource?.includes(resource)) &&
					Boolean(p.displayOptions?.show?.operation?.includes(operation)),
			)
			.flatMap((p) => [
				p.name,
				...(p.type === 'collection' ? (p.options as INodeProperties[]).map((o) => o.name) : []),
			]);
	};
	const operations = selectors.flatMap((p) =>
		(p.options as INodePropertyOptions[]).map((o) => {
			const resource = String(p.displayOptions?.show?.resource?.[0]);
			const key = `${resource}:${String(o.value)}`;
			const options = offered(key);
			// Charged: the operation offers a Spending Limit. Emails: a write (it offers an Idempotency Key or a
			// Spending Limit) whose own description speaks of email.
			const charged = options.includes('spendingLimit');
			const writes = charged || options.includes('idempotencyKey');
			return {
				key,
				resource,
				operation: String(o.value),
				name: o.name,
				charged,
				emails: writes && /email/i.test(String(o.description)),
			};
		}),
	);
	/**
	 * What n8n's own code (n8n-workflow getToolDescriptionForNode) sends for a Tool node set to this operation, its
	 * parameters resolved with their defaults as n8n's Workflow resolves a node's before running it.
	 */
	const sentDescription = (resource: string, operation: string): string => {
		const toolNode: INode = {
			id: 'tool',
			name: 'Recruiting Analysis Tool',
			type: toolType.description.name,
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource, operation },
		};
		toolNode.parameters = NodeHelpers.getNodeParameters(
			toolType.description.properties,
			toolNode.parameters,
			true,
			false,
			toolNode,
			toolType.description,
		)!;
		return NodeHelpers.getToolDescriptionForNode(toolNode, toolType);
	};

	it("the price and email note are only in the Tool's description: node names are the short actions", () => {
		for (const o of operations) {
			const parameters = { resource: o.resource, operation: o.operation };
			const plainName = NodeHelpers.makeNodeName(parameters, node.description);
			const toolName = NodeHelpers.makeNodeName(parameters, toolType.description);
			expect({ key: o.key, plainName, toolName }).toEqual({
				key: o.key,
				plainName: expect.stringMatching(/^[A-Z][a-z]+( [A-Za-z]+){1,4}$/),
				toolName: `${plainName} in Recruiting Analysis`,
			});
			expect(sentDescription(o.resource, o.operation).startsWith(`${plainName} (`)).toBe(true);
		}
	});

	it('the operations read from the description include every operation that charges or emails', () => {
		const names = (f: (o: (typeof operations)[number]) => boolean) =>
			operations.filter(f).map((o) => `${o.resource}:${o.name}`);
		expect(names((o) => o.charged).sort()).toEqual(
			[
				'analysis:Analyze Many',
				'analysis:Analyze Resume',
				'analysis:Start',
				'analysis:Start Many',
				'interview:Invite',
				'interview:Invite Many',
				'interview:Reinterview',
			].sort(),
		);
		expect(names((o) => o.emails).sort()).toEqual(
			[
				'interview:Invite',
				'interview:Invite Many',
				'interview:Reinterview',
				'interview:Resend',
			].sort(),
		);
	});

	it("names the price and the default limit of an agent's tool for every charged operation, the email of every emailing one, and says the others are free", () => {
		for (const o of operations) {
			const sent = sentDescription(o.resource, o.operation);
			// What the description says, as facts; each must be exactly what the operation does.
			const says = {
				operation: o.key,
				endsWithTheService: / in Recruiting Analysis$/.test(sent),
				namesThePrice: new RegExp(
					`costs credits: charged per ${o.resource} at the quoted price`,
				).test(sent),
				saysItCosts: /costs credits/.test(sent),
				namesTheDefaultLimit: sent.includes(
					`as a tool, at most ${TOOL_DEFAULT_SPENDING_LIMIT} credits per execution unless its Spending Limit is set`,
				),
				saysItEmails: sent.includes('emails the candidate'),
				freeButEmails: sent.includes('(free, but emails the candidate'),
				freeNoEmail: sent.includes('(free: no credits, no email)'),
			};
			expect(says).toEqual({
				operation: o.key,
				endsWithTheService: true,
				namesThePrice: o.charged,
				saysItCosts: o.charged,
				namesTheDefaultLimit: o.charged,
				saysItEmails: o.emails,
				freeButEmails: o.emails && !o.charged,
				freeNoEmail: !o.charged && !o.emails,
			});
		}
	});
});

describe("run as a tool through n8n's engine", () => {
	it('an agent gets Report > Get as a tool described by its action, with the $fromAI argument, and calls it', async () => {
		const reportId = await completedReport(ws, { candidate: 'Tool Candidate' });
		const result = await runAsAgentTool(
			ws,
			{
				resource: 'report',
				operation: 'get',
				reportId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('reportId', 'ID of the report to read', 'string') }}",
				},
			},
			[{ reportId }],
		);
		const [call] = jsonOf(result);
		expect(call.description).toBe(
			'Get a report (free: no credits, no email) in Recruiting Analysis',
		);
		expect(call.arguments).toEqual(['reportId']);
		const response = responseOf(call);
		expect(response).toEqual([
			expect.objectContaining({
				id: reportId,
				candidate: expect.objectContaining({ name: 'Tool Candidate' }),
			}),
		]);
	});

	it("a refused argument comes back to the agent as the node's error, naming the field and the rule", async () => {
		const result = await runAsAgentTool(
			ws,
			{
				resource: 'report',
				operation: 'get',
				reportId: "={{ $fromAI('reportId', 'ID of the report to read', 'string') }}",
			},
			[{ reportId: 'x'.repeat(101) }],
			{ typeVersion: 1 },
		);
		expect(result.error?.message).toMatch(/"Report ID" must be at most 100 characters/);
	});

	it('a Spending Limit, New Attempt Label or Idempotency Key left to the model ($fromAI) is refused before anything is sent', async () => {
		const reportId = await completedReport(ws, { candidate: 'Guard Rails' });
		const before = totalRequests(await counters(ws));
		const result = await runAsAgentTool(
			ws,
			{
				resource: 'interview',
				operation: 'invite',
				reportId: { __rl: true, mode: 'id', value: reportId },
				candidateEmail: "={{ $fromAI('candidateEmail', 'the candidate address', 'string') }}",
				delivery: 'email',
				spendingLimit: "={{ $fromAI('Spending_Limit', '', 'number') }}",
				options: {
					attemptLabel: "={{ $FromAI ( 'label', 'a label', 'string') }}",
				},
			},
			[{ candidateEmail: 'guard@example.com', Spending_Limit: 1000, label: 'again-1' }],
		);
		const message = String(result.error?.message);
		expect(message).toContain(
			'"Spending Limit (Credits)", "New Attempt Label" cannot come from the model ($fromAI)',
		);
		expect(String((result.error as { description?: string }).description)).toContain(
			'Nothing was sent to the Recruiting Analysis API.',
		);
		const after = await counters(ws);
		expect(totalRequests(after) - before).toBe(0);
		expect(after.interviewsCreated).toBe(0);
	});

	/** An agent's call of an Interview operation as a tool (the candidate's address comes from the model). */
	async function interviewToolCall(parameters: IDataObject, email: string) {
		return await runAsAgentTool(ws, { resource: 'interview', ...parameters }, [
			{ candidateEmail: email, allowed: true },
		]);
	}

	/** Interview > Invite as a tool, with the tool's own extra parameters. */
	async function inviteAsTool(reportId: string, email: string, extra: IDataObject = {}) {
		return await interviewToolCall(
			{
				operation: 'invite',
				reportId: { __rl: true, mode: 'id', value: reportId },
				candidateEmail: "={{ $fromAI('candidateEmail', 'the candidate address', 'string') }}",
				delivery: 'email',
				...extra,
			},
			email,
		);
	}

	it("an Invite the agent calls without a person's review is refused before anything is sent, saying how to wire the review", async () => {
		const reportId = await completedReport(ws, { candidate: 'Unreviewed' });
		const before = await counters(ws);
		const result = await inviteAsTool(reportId, 'unreviewed@example.com');
		expect(String(result.error?.message)).toMatch(
			/^This tool charges credits per interview and emails the candidate: it runs only after a person's review\. Nothing was sent to the Recruiting Analysis API\./,
		);
		const description = String((result.error as { description?: string }).description);
		expect(description).toContain(
			'connect this tool to the review node and the review node to the agent',
		);
		expect(description).toContain('"Run Without a Person\'s Review"');
		const after = await counters(ws);
		expect(totalRequests(after) - totalRequests(before)).toBe(0);
		expect(after.interviewsCreated).toBe(before.interviewsCreated);
	});

	it("with Run Without a Person's Review switched on by the builder, the agent's Invite runs once and queues one email", async () => {
		const reportId = await completedReport(ws, { candidate: 'Opted Out' });
		const before = await counters(ws);
		const result = await inviteAsTool(reportId, 'opted-out@example.com', {
			runWithoutReview: true,
		});
		const [call] = jsonOf(result);
		expect(call.description).toMatch(/^Invite a candidate \(costs credits: charged per interview/);
		expect(responseOf(call)).toEqual([
			expect.objectContaining({
				interviewId: expect.stringMatching(/^int_/),
				delivery: 'email',
				emailDelivery: 'queued',
			}),
		]);
		const after = await counters(ws);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(1);
	});

	it("Run Without a Person's Review as an expression (which $fromAI could fill) does not count: refused, nothing sent", async () => {
		const reportId = await completedReport(ws, { candidate: 'Model Opt Out' });
		const before = await counters(ws);
		const result = await inviteAsTool(reportId, 'model-opt-out@example.com', {
			runWithoutReview: "={{ $fromAI('allowed', 'skip the review', 'boolean') }}",
		});
		expect(String(result.error?.message)).toContain(
			`"Run Without a Person's Review" must be switched on as a fixed value, not an expression.`,
		);
		const after = await counters(ws);
		expect(totalRequests(after) - totalRequests(before)).toBe(0);
		expect(after.interviewsCreated).toBe(before.interviewsCreated);
	});

	it("Resend, free but an email to the candidate, is refused without a person's review: no email", async () => {
		const reportId = await completedReport(ws, { candidate: 'Resend Unreviewed' });
		const invited = await inviteAsTool(reportId, 'resend-unreviewed@example.com', {
			runWithoutReview: true,
		});
		const [call] = jsonOf(invited);
		const [interview] = responseOf(call);
		const before = await counters(ws);
		const result = await interviewToolCall(
			{
				operation: 'resend',
				interviewId: { __rl: true, mode: 'id', value: String(interview.interviewId) },
			},
			'resend-unreviewed@example.com',
		);
		expect(String(result.error?.message)).toMatch(
			/^This tool emails the candidate: it runs only after a person's review\. Nothing was sent to the Recruiting Analysis API\./,
		);
		const after = await counters(ws);
		expect(totalRequests(after) - totalRequests(before)).toBe(0);
	});
});

/**
 * The rule that tells a reviewed call, on the workflow shapes n8n 2.41 builds (the engine path is proven in real
 * n8n by test/e2e/ai-agent-review.test.ts for the direct call and by test/e2e/ai-agent-approval.test.ts for a
 * review node's approval). The context answers from a workflow's connections, as n8n-core's getParentNodes does.
 */
describe('a reviewed call is one a review node asked for', () => {
	const TOOL = 'Invite Candidate';
	/** Parents by connection type of each node of a workflow: tool -> review -> agent <- model. */
	const parents: Record<string, Record<string, string[]>> = {
		'Human Review': { ai_tool: [TOOL] },
		'AI Agent': {
			ai_tool: ['Human Review', TOOL],
			ai_languageModel: ['Chat Model'],
			main: ['Run'],
		},
		'Sub Agent': { ai_tool: [TOOL], ai_languageModel: ['Chat Model'] },
		'Other Review': { ai_tool: ['Another Tool'] },
	};
	const contextAsked = (by: string | undefined) =>
		({
			getNode: () => ({ name: TOOL }),
			getInputSourceData: () => (by === undefined ? undefined : { previousNode: by }),
			getParentNodes: (name: string, options?: { connectionType?: string }) =>
				(parents[name]?.[options?.connectionType ?? 'main'] ?? []).map((n) => ({
					name: n,
					type: 'any',
					typeVersion: 1,
					disabled: false,
				})),
		}) as unknown as IExecuteFunctions;

	it('asked by a node that takes this tool and no chat model (the review node): reviewed', () => {
		expect(cameThroughReview(contextAsked('Human Review'))).toBe(true);
	});

	it('asked by the agent or a sub-agent (they take a chat model), by a review node of another tool, or by nobody: not reviewed', () => {
		expect(cameThroughReview(contextAsked('AI Agent'))).toBe(false);
		expect(cameThroughReview(contextAsked('Sub Agent'))).toBe(false);
		expect(cameThroughReview(contextAsked('Other Review'))).toBe(false);
		expect(cameThroughReview(contextAsked('Run'))).toBe(false);
		expect(cameThroughReview(contextAsked(undefined))).toBe(false);
	});
});
