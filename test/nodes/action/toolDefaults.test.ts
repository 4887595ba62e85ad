/**
 * What an AI agent's Recruiting Analysis Tool does when its builder left it as n8n created it:
 * - a fresh Tool node is Report > Get, a free read, and so is a fresh plain node (actions/common/toolMode.ts
 *   DEFAULT_RESOURCE). Parameters are resolved by
 *   n8n-workflow's getNodeParameters as n8n's Workflow does for every node it runs (defaults for what the saved
 *   node leaves out), and the fresh Tool runs through n8n's engine under a minimal agent;
 * - a Tool without a Spending Limit stops at the default limit of the execution's total
 *   (writes/spending.ts TOOL_DEFAULT_SPENDING_LIMIT), and the builder can set another.
 */
import {
	NodeHelpers,
	type IDataObject,
	type INode,
	type INodeParameters,
	type INodeType,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
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

let ws: Workspace;
useSandboxWorkspace((started) => ({ ws } = started));

const plain = new RecruitingAnalysis();
const tool = asAiTool(plain);
const NEWEST = plain.description.version as number;

/** The resource and operation n8n runs for a saved node with these parameters (n8n's Workflow resolves them so). */
function resolved(type: INodeType, typeVersion: number, parameters: INodeParameters) {
	const node: INode = {
		id: 'n',
		name: 'Node',
		type: type.description.name,
		typeVersion,
		position: [0, 0],
		parameters,
	};
	const all = NodeHelpers.getNodeParameters(
		type.description.properties,
		parameters,
		true,
		false,
		node,
		type.description,
	);
	return { resource: all?.resource, operation: all?.operation, all: all! };
}

describe('the operation a node starts on', () => {
	it('a fresh Tool node is Report > Get, which n8n describes to the model as free', () => {
		expect(NEWEST).toBe(1);
		const { all, ...fresh } = resolved(tool, NEWEST, {});
		expect(fresh).toEqual({ resource: 'report', operation: 'get' });
		const sent = NodeHelpers.getToolDescriptionForNode(
			{
				id: 't',
				name: 'Recruiting Analysis Tool',
				type: tool.description.name,
				typeVersion: NEWEST,
				position: [0, 0],
				parameters: all,
			},
			tool,
		);
		expect(sent).toBe('Get a report (free: no credits, no email) in Recruiting Analysis');
	});

	it('a fresh plain node is Report > Get as well (one Resource selector: the nodes panel lists each action once)', () => {
		expect(resolved(plain, NEWEST, {})).toEqual(
			expect.objectContaining({ resource: 'report', operation: 'get' }),
		);
		// A node that chose only its resource gets that resource's first operation.
		expect(resolved(plain, NEWEST, { resource: 'analysis' })).toEqual(
			expect.objectContaining({ resource: 'analysis', operation: 'analyzeResume' }),
		);
		// What the builder chose is kept.
		expect(resolved(tool, NEWEST, { resource: 'analysis', operation: 'start' })).toEqual(
			expect.objectContaining({ resource: 'analysis', operation: 'start' }),
		);
	});

	it('a fresh Tool node given to an agent reads the report and charges nothing', async () => {
		const reportId = await completedReport(ws, { candidate: 'Fresh Tool' });
		const before = await counters(ws);
		// A fresh Tool: no resource or operation, only the report the model names.
		const result = await runAsAgentTool(
			ws,
			{
				reportId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('reportId', 'ID of the report to read', 'string') }}",
				},
			},
			[{ reportId }],
			{ toolErrors: 'answer' },
		);
		const [call] = jsonOf(result);
		expect(call.description).toBe(
			'Get a report (free: no credits, no email) in Recruiting Analysis',
		);
		expect(JSON.parse(String(call.answer))).toEqual([
			expect.objectContaining({
				id: reportId,
				candidate: expect.objectContaining({ name: 'Fresh Tool' }),
			}),
		]);
		const after = await counters(ws);
		expect({
			requests: totalRequests(after) - totalRequests(before),
			analyses: after.attemptsCreated - before.attemptsCreated,
			interviews: after.interviewsCreated - before.interviewsCreated,
		}).toEqual({ requests: 1, analyses: 0, interviews: 0 });
	});
});

describe("a Tool's Spending Limit when its builder set none", () => {
	/** One execution in which the agent calls Invite once per report (2.5 credits per interview in the sandbox). */
	async function inviteEach(reportIds: string[], limit: INodeParameters) {
		const before = await counters(ws);
		const result = await runAsAgentTool(
			ws,
			{
				resource: 'interview',
				operation: 'invite',
				reportId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('reportId', 'ID of the report', 'string') }}",
				},
				candidateEmail: "={{ $fromAI('candidateEmail', 'the candidate address', 'string') }}",
				delivery: 'email',
				runWithoutReview: true,
				...limit,
			},
			reportIds.map((reportId, i) => ({
				reportId,
				candidateEmail: `limit-${i}-${reportId}@example.com`,
			})),
			{ toolErrors: 'answer' },
		);
		if (result.error) throw result.error;
		const answers = result.output[0].map((item) => String(item.json.answer));
		const after = await counters(ws);
		return {
			description: String(result.output[0][0].json.description),
			answers,
			interviews: after.interviewsCreated - before.interviewsCreated,
		};
	}

	const reports: string[] = [];
	beforeAll(async () => {
		for (let i = 0; i < 5; i++)
			reports.push(await completedReport(ws, { candidate: `Limit ${i}` }));
	}, 120_000);

	it(`is ${TOOL_DEFAULT_SPENDING_LIMIT} credits per execution: five invitations at 2.5 credits, four sent, the fifth refused naming the default`, async () => {
		// Set to 0 (none): an agent's tool keeps the default all the same.
		const run = await inviteEach(reports, { spendingLimit: 0 });
		expect(run.description).toBe(
			`Invite a candidate (costs credits: charged per interview at the quoted price; as a tool, at most ${TOOL_DEFAULT_SPENDING_LIMIT} credits per execution unless its Spending Limit is set; emails the candidate) in Recruiting Analysis`,
		);
		expect(run.interviews).toBe(4);
		expect(run.answers.slice(0, 4).map((a) => JSON.parse(a) as IDataObject[])).toEqual(
			Array.from({ length: 4 }, () => [
				expect.objectContaining({ interviewId: expect.stringMatching(/^int_/), creditsUsed: 2.5 }),
			]),
		);
		expect(run.answers[4]).toContain(
			`ERROR Spending Limit of ${TOOL_DEFAULT_SPENDING_LIMIT} credits reached (an agent's tool that sets none keeps this one): this invitation costs 2.5 credits and 10 were already spent. Nothing was sent.`,
		);
	});

	it('the builder sets another limit on the tool: 5 credits lets two invitations through, the third is refused', async () => {
		const others: string[] = [];
		for (let i = 0; i < 3; i++) others.push(await completedReport(ws, { candidate: `Five ${i}` }));
		const run = await inviteEach(others, { spendingLimit: 5 });
		expect(run.interviews).toBe(2);
		expect(run.answers[2]).toContain(
			'ERROR Spending Limit of 5 credits reached: this invitation costs 2.5 credits and 5 were already spent. Nothing was sent.',
		);
	});

	it('an invitation the API refuses because the report already has one counts nothing against the limit', async () => {
		const three: string[] = [];
		for (let i = 0; i < 3; i++)
			three.push(await completedReport(ws, { candidate: `Refused ${i}` }));
		// Four calls on the first report (one invitation, three refused), then one on each other report: 7.5 credits.
		const run = await inviteEach([three[0], three[0], three[0], three[0], three[1], three[2]], {});
		expect(run.interviews).toBe(3);
		expect(run.answers.slice(1, 4)).toEqual(
			Array.from({ length: 3 }, () =>
				expect.stringMatching(
					/^ERROR Report rpt_\w+ already has interview int_\w+ .*nothing was sent/,
				),
			),
		);
		expect(run.answers.slice(4).map((a) => JSON.parse(a) as IDataObject[])).toEqual([
			[expect.objectContaining({ creditsUsed: 2.5 })],
			[expect.objectContaining({ creditsUsed: 2.5 })],
		]);
	});
});
