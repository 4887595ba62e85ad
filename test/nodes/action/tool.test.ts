/**
 * The action node as an AI agent's tool. n8n wraps a `usableAsTool` node as "<name>Tool" with an `ai_tool` output;
 * an agent node reaches it through getInputConnectionData, where n8n-core's createNodeAsTool builds a
 * DynamicStructuredTool (description: the operation's action, or the user's; arguments: the node's $fromAI()
 * placeholders) and runs the node when the agent invokes it. Here a minimal agent node does that through n8n's
 * engine, against the sandbox. The operation descriptions (what the editor and n8n's AI features read) are
 * checked for saying when to use an operation and what it needs.
 */
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { asAiTool, executeNode } from '../../helpers/n8n-engine';
import { RecruitingAnalysisApi } from '../../../credentials/RecruitingAnalysisApi.credentials';
import {
	completedReport,
	counters,
	credentialsFor,
	totalRequests,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

interface AgentTool {
	name: string;
	description: string;
	schema: { shape: Record<string, unknown> };
	invoke(args: IDataObject): Promise<string>;
}

/** An agent reduced to what matters here: it lists its tools and calls each with the item's `args`. */
class HarnessAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Agent',
		name: 'harnessAgent',
		group: ['transform'],
		version: 1,
		description: 'Calls the connected tools with the arguments of its input item',
		defaults: { name: 'Harness Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as AgentTool[];
		const args = (this.getInputData()[0].json.args ?? {}) as IDataObject;
		const called: IDataObject[] = [];
		for (const tool of tools) {
			const response = await tool.invoke(args);
			called.push({
				name: tool.name,
				description: tool.description,
				arguments: Object.keys(tool.schema.shape),
				response: JSON.parse(response),
			});
		}
		return [called.map((json) => ({ json }))];
	}
}

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

	it('every operation says when to use it and what it needs (inputs and API key scope)', () => {
		expect(operations).toHaveLength(31);
		for (const operation of operations) {
			expect({
				operation: `${operation.resource}:${operation.value}`,
				description: operation.description,
			}).toEqual({
				operation: `${operation.resource}:${operation.value}`,
				description: expect.stringMatching(/^Use (to|when) .+\. Needs .+; scopes? [a-z:-]+/),
			});
		}
	});

	it('no two operations have the same description or the same action', () => {
		expect(new Set(operations.map((o) => o.description)).size).toBe(operations.length);
		expect(new Set(operations.map((o) => o.action)).size).toBe(operations.length);
	});
});

describe("run as a tool through n8n's engine", () => {
	it('an agent gets Report > Get as a tool described by its action, with the $fromAI argument, and calls it', async () => {
		const reportId = await completedReport(ws, { candidate: 'Tool Candidate' });
		const result = await executeNode({
			nodeType: new HarnessAgent(),
			parameters: {},
			items: [{ json: { args: { reportId } } }],
			tools: [
				{
					nodeType: asAiTool(node),
					credentials: credentialsFor(ws),
					parameters: {
						resource: 'report',
						operation: 'get',
						reportId: {
							__rl: true,
							mode: 'id',
							value: "={{ $fromAI('reportId', 'ID of the report to read', 'string') }}",
						},
					},
				},
			],
			credentialTypes: [new RecruitingAnalysisApi()],
		});
		if (result.error) throw result.error;
		const [call] = result.output[0].map((item) => item.json);
		expect(call.description).toBe('Get a report in Recruiting Analysis');
		expect(call.arguments).toEqual(['reportId']);
		const response = call.response as IDataObject[];
		expect(response).toEqual([
			expect.objectContaining({
				id: reportId,
				candidate: expect.objectContaining({ name: 'Tool Candidate' }),
			}),
		]);
	});

	it("a refused argument comes back to the agent as the node's error, naming the field and the rule", async () => {
		const result = await executeNode({
			nodeType: new HarnessAgent(),
			parameters: {},
			items: [{ json: { args: { reportId: 'x'.repeat(101) } } }],
			tools: [
				{
					nodeType: asAiTool(node),
					credentials: credentialsFor(ws),
					parameters: {
						resource: 'report',
						operation: 'get',
						reportId: "={{ $fromAI('reportId', 'ID of the report to read', 'string') }}",
					},
					typeVersion: 1,
				},
			],
			credentialTypes: [new RecruitingAnalysisApi()],
		});
		expect(result.error?.message).toMatch(/"Report ID" must be at most 100 characters/);
	});

	it('a Spending Limit, New Attempt Label or Idempotency Key left to the model ($fromAI) is refused before anything is sent', async () => {
		const reportId = await completedReport(ws, { candidate: 'Guard Rails' });
		const before = totalRequests(await counters(ws));
		const result = await executeNode({
			nodeType: new HarnessAgent(),
			parameters: {},
			items: [
				{
					json: {
						args: { candidateEmail: 'guard@example.com', Spending_Limit: 1000, label: 'again-1' },
					},
				},
			],
			tools: [
				{
					nodeType: asAiTool(node),
					credentials: credentialsFor(ws),
					parameters: {
						resource: 'interview',
						operation: 'invite',
						reportId: { __rl: true, mode: 'id', value: reportId },
						candidateEmail: "={{ $fromAI('candidateEmail', 'the candidate address', 'string') }}",
						delivery: 'email',
						options: {
							spendingLimit: "={{ $fromAI('Spending_Limit', '', 'number') }}",
							attemptLabel: "={{ $FromAI ( 'label', 'a label', 'string') }}",
						},
					},
				},
			],
			credentialTypes: [new RecruitingAnalysisApi()],
		});
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
});
