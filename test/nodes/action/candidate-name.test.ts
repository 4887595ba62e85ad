/**
 * Outputs name the person (actions/common/candidateName.ts), through n8n's engine against the sandbox: invitations,
 * interviews, interview results and report results carry `candidateName`, taken from the input item when it is
 * about the same report (no request), else read once from the report summary (a free read), else null with a
 * notice; never a name from an item about another report, and never a charge more.
 */
import type { IDataObject } from 'n8n-workflow';

import { waitFor, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	hintsOf,
	jsonOf,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Counters,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;
/** Analyze Resume's simplified items (candidateName, reportId, ...), one per candidate below. */
let analyzed: IDataObject[] = [];
const NAMES = [
	'Ada Lovelace',
	'Grace Hopper',
	'Alan Turing',
	'Barbara Liskov',
	'Edsger Dijkstra',
	'Margaret Hamilton',
	'Donald Knuth',
	'Frances Allen',
];

useSandboxWorkspace((started) => ({ sandbox, ws } = started));
beforeAll(async () => {
	const result = await runNode(
		ws,
		analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
		NAMES.map((candidate, i) => pdfItem({ candidate, score: 8 }, `named-${i}.pdf`)),
	);
	analyzed = jsonOf(result);
	// The arrangement every test relies on: each analysis read its candidate's name.
	const read = analyzed.map((item) => `${String(item.status)} ${String(item.candidateName)}`);
	if (read.join('|') !== NAMES.map((name) => `completed ${name}`).join('|'))
		throw new Error(`arranging ${NAMES.length} named analyses gave ${read.join(', ')}`);
});

const reportId = (i: number) => String(analyzed[i].reportId);

/** Requests of one route, and what was charged and sent, between two counter reads. */
function added(after: Counters, before: Counters) {
	const route = (name: string) => (after.requests?.[name] ?? 0) - (before.requests?.[name] ?? 0);
	return {
		reportReads: route('GET /api/v1/reports/{id}'),
		reportPages: route('GET /api/v1/reports'),
		attempts: after.attemptsCreated - before.attemptsCreated,
		interviews: after.interviewsCreated - before.interviewsCreated,
	};
}

const invite = (i: number, email: string) => ({
	resource: 'interview',
	operation: 'invite',
	reportId: reportId(i),
	candidateEmail: email,
});

describe('outputs name the person', () => {
	it('Invite given the Analyze Resume item names its candidate without any extra request', async () => {
		const before = await counters(ws);
		const [item] = jsonOf(await runNode(ws, invite(0, 'ada@example.com'), [{ json: analyzed[0] }]));
		const after = await counters(ws);
		expect(item).toEqual(
			expect.objectContaining({ reportId: reportId(0), candidateName: 'Ada Lovelace' }),
		);
		// Right after reportId, where a person reads the output.
		const keys = Object.keys(item);
		expect(keys[keys.indexOf('reportId') + 1]).toBe('candidateName');
		expect(item.interviewId).toMatch(/^int_/);
		expect(added(after, before)).toEqual({
			reportReads: 0,
			reportPages: 0,
			attempts: 0,
			interviews: 1,
		});
	});

	it('Invite given an item that does not name the candidate reads the report once (free) and names them', async () => {
		const before = await counters(ws);
		const [item] = jsonOf(await runNode(ws, invite(1, 'grace@example.com'), [{ json: {} }]));
		const after = await counters(ws);
		expect(item.candidateName).toBe('Grace Hopper');
		expect(added(after, before)).toEqual({
			reportReads: 1,
			reportPages: 0,
			attempts: 0,
			interviews: 1,
		});
	});

	it('an input item about another report never lends its name', async () => {
		const [item] = jsonOf(
			await runNode(ws, invite(2, 'alan@example.com'), [
				{ json: { reportId: reportId(0), candidateName: 'Ada Lovelace' } },
			]),
		);
		expect(item).toEqual(
			expect.objectContaining({ reportId: reportId(2), candidateName: 'Alan Turing' }),
		);
	});

	it('a recovered invitation (the same run again) names its candidate too', async () => {
		const [item] = jsonOf(await runNode(ws, invite(0, 'ada@example.com'), [{ json: {} }]));
		expect(item).toEqual(
			expect.objectContaining({
				recovered: true,
				reportId: reportId(0),
				candidateName: 'Ada Lovelace',
			}),
		);
	});

	it('a name the analysis could not read stays null: never invented, and not read again', async () => {
		const before = await counters(ws);
		const [item] = jsonOf(
			await runNode(ws, invite(1, 'grace@example.com'), [
				{ json: { reportId: reportId(1), candidateName: null } },
			]),
		);
		const after = await counters(ws);
		expect(item.recovered).toBe(true);
		expect(item.candidateName).toBeNull();
		expect(added(after, before).reportReads).toBe(0);
	});

	it('Invite Many names every candidate: from the items that say it, the rest from one report list page', async () => {
		const before = await counters(ws);
		const items = [
			{ json: { target: reportId(3), ...analyzed[3] } },
			{ json: { target: reportId(4) } },
			// About report 5, carrying another report's name: that name is not taken.
			{ json: { target: reportId(5), reportId: reportId(0), candidateName: 'Ada Lovelace' } },
		];
		const result = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.target }}',
				candidateEmail: '={{ "many-" + $itemIndex + "@example.com" }}',
			},
			items,
		);
		const after = await counters(ws);
		const out = jsonOf(result);
		expect(out.map((item) => [item.reportId, item.candidateName])).toEqual([
			[reportId(3), 'Barbara Liskov'],
			[reportId(4), 'Edsger Dijkstra'],
			[reportId(5), 'Margaret Hamilton'],
		]);
		expect(out.every((item) => item.state === 'succeeded')).toBe(true);
		const counts = added(after, before);
		expect({ reportReads: counts.reportReads, attempts: counts.attempts }).toEqual({
			reportReads: 0,
			attempts: 0,
		});
		expect(counts.reportPages).toBe(1);
	});

	it('Interview > Get and Get Result given only the event name the candidate, reading the report once per run', async () => {
		const [invited] = jsonOf(
			await runNode(ws, invite(6, 'donald@example.com'), [{ json: analyzed[6] }]),
		);
		const interviewId = String(invited.interviewId);
		// The sandbox applies interview controls once the questions are prepared.
		await waitFor(
			async () =>
				((await apiCall(ws, 'GET', `/api/v1/interviews/${interviewId}`)).body.data as IDataObject)
					.preparation === 'ready',
			10_000,
		);
		for (const type of ['interview.started', 'interview.completed', 'interview.result_ready'])
			await sandbox.control.interviewEvent(interviewId, type);
		// What the webhook trigger outputs for interview.result_ready: ids only (spec "Events").
		const event = { json: { type: 'interview.result_ready', data: { interviewId } } };
		const before = await counters(ws);
		const [got] = jsonOf(
			await runNode(ws, { resource: 'interview', operation: 'get', interviewId }, [event]),
		);
		const results = jsonOf(
			await runNode(
				ws,
				{ resource: 'interview', operation: 'getResult', interviewId, simplify: true },
				[event, event],
			),
		);
		const after = await counters(ws);
		expect(got).toEqual(
			expect.objectContaining({
				id: interviewId,
				reportId: reportId(6),
				candidateName: 'Donald Knuth',
			}),
		);
		expect(results.map((r) => [r.interviewId, r.candidateName])).toEqual([
			[interviewId, 'Donald Knuth'],
			[interviewId, 'Donald Knuth'],
		]);
		expect(results[0].decision).toEqual(expect.any(String));
		// One read in each node run: Get's, and one for Get Result's two items about the same report.
		expect(added(after, before).reportReads).toBe(2);
	});

	it('Report > Get Result names the candidate, Simplify on or off', async () => {
		for (const simplify of [true, false]) {
			const [item] = jsonOf(
				await runNode(ws, {
					resource: 'report',
					operation: 'getResult',
					reportId: reportId(3),
					simplify,
				}),
			);
			expect({ simplify, reportId: item.reportId, name: item.candidateName }).toEqual({
				simplify,
				reportId: reportId(3),
				name: 'Barbara Liskov',
			});
		}
	});

	it('a key without reports:read: the invitation is made and output with candidateName null, and a notice says why', async () => {
		const { apiKey } = await sandbox.control.createKey(ws.workspaceId, {
			scopes: ['interviews:write'],
		});
		const result = await runNode({ ...ws, apiKey }, invite(7, 'frances@example.com'), [
			{ json: {} },
		]);
		const [item] = jsonOf(result);
		expect(item.interviewId).toMatch(/^int_/);
		expect(item.candidateName).toBeNull();
		expect(hintsOf(result).join('\n')).toContain(
			'"candidateName" is null on some items: the API key lacks the reports:read scope',
		);
	});
});
