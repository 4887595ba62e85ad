/**
 * The feed trigger through n8n's poll engine (PollContext + PollTriggerExecutor) against the sandbox's
 * GET /api/v1/events, with static data saved exactly when n8n saves it (see test/helpers/engine/poll.ts).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import type { SandboxHandle } from '../../../sandbox/src';
import { createPollSession, runPoll, type PollSession } from '../../helpers/n8n-engine';
import {
	allEvents,
	analyse,
	apiCredential,
	control,
	credentialTypes,
	eventually,
	newWorkspace,
	seedEvents,
	withSandbox,
	type Workspace,
} from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
	sb = await withSandbox();
});
afterAll(async () => {
	await sb.close();
});

function options(
	ws: Workspace,
	staticData: IDataObject,
	parameters: INodeParameters,
	mode: 'trigger' | 'manual' = 'trigger',
) {
	return {
		nodeType: new RecruitingAnalysisFeedTrigger(),
		credentialTypes,
		credentials: { recruitingAnalysisApi: apiCredential(ws) },
		parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
		staticData,
		mode,
	};
}

const jsonOf = (output: INodeExecutionData[][] | null) =>
	output ? output[0].map((i) => i.json) : [];
const idsOf = (output: INodeExecutionData[][] | null) => jsonOf(output).map((j) => j.id);

async function tickOk(session: PollSession) {
	const r = await session.tick();
	if (r.error) throw r.error;
	return r;
}

describe('Recruiting Analysis Feed Trigger against the sandbox', () => {
	it('starts at the current end on first activation: old events are not emitted, new ones are, in order', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 130);
		// History beyond the first read's page occurred over a second before the activation (by the API's clock): an
		// event of the very second that read's Date names cannot be told from a new one (docs/triggers.md).
		sb.clock.advance(1500);
		const stored: IDataObject = {};
		const session = await createPollSession(options(ws, stored, { events: ['*'], startAt: 'now' }));

		const activation = await tickOk(session);
		expect(activation.output).toBeNull();

		await seedEvents(ws, 3);
		const next = await tickOk(session);
		const expected = (await allEvents(ws)).slice(130).map((e) => e.id);
		expect(idsOf(next.output)).toEqual(expected);
		expect(next.saved).toBe(true);
		const nodeData = Object.entries(stored).find(([k]) =>
			k.startsWith('node:'),
		)?.[1] as IDataObject;
		expect(nodeData.feed).toMatchObject({ phase: 'following', lastEventId: expected.at(-1) });
	});

	it('drains hasMore up to the per-poll cap, keeps feed order, and continues on the next polls', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 250);
		const feed = (await allEvents(ws)).map((e) => e.id);
		const stored: IDataObject = {};
		const session = await createPollSession(
			options(ws, stored, {
				events: ['*'],
				startAt: 'oldest',
				options: { maxEventsPerPoll: 100, pageSize: 40 },
			}),
		);
		const got: unknown[] = [];
		for (let i = 0; i < 3; i++) {
			const r = await tickOk(session);
			expect(jsonOf(r.output)).toHaveLength(i < 2 ? 100 : 50);
			got.push(...idsOf(r.output));
		}
		expect(got).toEqual(feed);
		expect((await tickOk(session)).output).toBeNull();
	});

	it('persists the position across polls and restarts: nothing replayed, nothing lost', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 4);
		const stored: IDataObject = {};
		let session = await createPollSession(
			options(ws, stored, { events: ['*'], startAt: 'oldest' }),
		);
		const first = await tickOk(session);
		expect(idsOf(first.output)).toHaveLength(4);
		expect(first.saved).toBe(true);

		// An empty poll saves nothing (n8n writes static data only when a poll emits) ...
		const empty = await tickOk(session);
		expect(empty.output).toBeNull();
		expect(empty.saved).toBe(false);

		// ... and a restart reloads the last saved position: the four are not replayed.
		await session.restart();
		await seedEvents(ws, 2);
		const afterRestart = await tickOk(session);
		const feed = (await allEvents(ws)).map((e) => e.id);
		expect(idsOf(afterRestart.output)).toEqual(feed.slice(4));

		// A fresh load (another activation) from the stored data continues from the same place.
		session = await createPollSession(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		await seedEvents(ws, 1);
		expect(idsOf((await tickOk(session)).output)).toEqual(
			(await allEvents(ws)).slice(6).map((e) => e.id),
		);
	});

	it('a change of the server-side filter starts a fresh position bound to it, announced by a notice', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 3, 'report.completed');
		await seedEvents(ws, 2, 'report.failed');
		const stored: IDataObject = {};
		const all = await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		expect(idsOf(all)).toHaveLength(5);

		const failedOnly = await runPoll(
			options(ws, stored, { events: ['report.failed'], startAt: 'oldest' }),
		);
		const [notice, ...failed] = jsonOf(failedOnly);
		expect(notice).toMatchObject({
			notice: 'FEED_POSITION_RESTARTED',
			reason: 'FILTERS_CHANGED',
			resumedFrom: 'oldestRetained',
		});
		expect(failed.map((e) => e.type)).toEqual(['report.failed', 'report.failed']);

		// The cursor now belongs to the report.failed filter: the API accepts it unchanged.
		await seedEvents(ws, 1, 'report.failed');
		await seedEvents(ws, 1, 'report.completed');
		const next = await runPoll(
			options(ws, stored, { events: ['report.failed'], startAt: 'oldest' }),
		);
		expect(jsonOf(next).map((e) => e.type)).toEqual(['report.failed']);
	});

	it('the report filter is sent to the API and bound to the position', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 6);
		const target = (await allEvents(ws))[3];
		const reportId = (target.data as IDataObject).reportId as string;
		const stored: IDataObject = {};
		const filtered = await runPoll(
			options(ws, stored, { events: ['*'], startAt: 'oldest', filters: { reportId } }),
		);
		expect(idsOf(filtered)).toEqual([target.id]);
		await seedEvents(ws, 2);
		expect(
			await runPoll(
				options(ws, stored, { events: ['*'], startAt: 'oldest', filters: { reportId } }),
			),
		).toBeNull();
	});

	it('several selected types: only those are emitted; "all" also passes types it does not list', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 1, 'report.completed');
		await seedEvents(ws, 1, 'batch.completed');
		await seedEvents(ws, 1, 'report.failed');
		await seedEvents(ws, 1, 'report.archived'); // a type this package does not know (a future type)
		const two = await runPoll(
			options(ws, {}, { events: ['report.failed', 'batch.completed'], startAt: 'oldest' }),
		);
		expect(jsonOf(two).map((e) => e.type)).toEqual(['batch.completed', 'report.failed']);
		const all = await runPoll(options(ws, {}, { events: ['*'], startAt: 'oldest' }));
		expect(jsonOf(all).map((e) => e.type)).toEqual([
			'report.completed',
			'batch.completed',
			'report.failed',
			'report.archived',
		]);
	});

	it('410 EVENT_CURSOR_EXPIRED: a notice saying since when, then a fresh position from the oldest retained event', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 3);
		const stored: IDataObject = {};
		const first = await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		const lastDelivered = jsonOf(first).at(-1)!;

		await seedEvents(ws, 5); // never read: they fall out of retention
		await control(ws, 'POST', '/_sandbox/clock/advance', { ms: 31 * 24 * 3600 * 1000 });
		await seedEvents(ws, 2);
		const retained = (await allEvents(ws)).map((e) => e.id);
		expect(retained).toHaveLength(2);

		const recovered = await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		const items = jsonOf(recovered);
		expect(items[0]).toMatchObject({
			notice: 'EVENT_CURSOR_EXPIRED',
			eventsMayBeMissedSince: lastDelivered.occurredAt,
			lastEventId: lastDelivered.id,
			resumedFrom: 'oldestRetained',
		});
		expect(items.slice(1).map((e) => e.id)).toEqual(retained);

		// The fresh position was saved with them: the next poll neither repeats the notice nor the events.
		expect(await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }))).toBeNull();
	});

	it('Fetch Resource: each event comes with the resource it names and the attempt check, as in the webhook trigger', async () => {
		const ws = await newWorkspace(sb);
		const { reportId, attemptId } = await analyse(ws);
		await eventually(async () =>
			(await allEvents(ws)).some((e) => e.type === 'report.result_ready') ? true : undefined,
		);
		const session = await createPollSession(
			options(
				ws,
				{},
				{
					events: ['report.completed', 'report.result_ready'],
					startAt: 'oldest',
					fetchResource: true,
				},
			),
		);
		const byType = Object.fromEntries(
			jsonOf((await tickOk(session)).output).map((o) => [o.type, o]),
		);
		expect(byType['report.completed']).toMatchObject({
			data: { reportId, attemptId, status: 'completed' },
			resourceKind: 'reportStatus',
			resource: { id: reportId, status: 'completed', attemptId },
			attemptCheck: { eventAttemptId: attemptId, currentAttemptId: attemptId, isCurrent: true },
			delayedEvent: false,
		});
		expect(byType['report.result_ready']).toMatchObject({
			resourceKind: 'reportResult',
			resource: { reportId, attemptId, schemaVersion: 1 },
		});
	});

	it('Fetch Resource: events of a deleted report are tombstones naming nothing, so nothing is read and the poll succeeds', async () => {
		const ws = await newWorkspace(sb);
		const { reportId } = await analyse(ws);
		await eventually(async () =>
			(await allEvents(ws)).some((e) => e.type === 'report.completed') ? true : undefined,
		);
		await control(ws, 'POST', `/_sandbox/reports/${reportId}/delete`);
		const session = await createPollSession(
			options(ws, {}, { events: ['report.completed'], startAt: 'oldest', fetchResource: true }),
		);
		const [event] = jsonOf((await tickOk(session)).output);
		expect(event.type).toBe('report.completed');
		expect(event.data).toBeUndefined();
		expect(event).not.toHaveProperty('resourceKind');
		expect(event).not.toHaveProperty('resource');
	});

	it('manual mode returns the latest events and moves nothing', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 30);
		const stored: IDataObject = {};
		await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		const before = JSON.stringify(stored);
		await seedEvents(ws, 2);

		const manual = await runPoll(
			options(
				ws,
				stored,
				{ events: ['*'], startAt: 'oldest', options: { manualCount: 5 } },
				'manual',
			),
		);
		expect(idsOf(manual)).toEqual((await allEvents(ws)).slice(-5).map((e) => e.id));
		expect(JSON.stringify(stored)).toBe(before);

		// The active trigger still delivers the two new events exactly once.
		const active = await runPoll(options(ws, stored, { events: ['*'], startAt: 'oldest' }));
		expect(idsOf(active)).toEqual((await allEvents(ws)).slice(30).map((e) => e.id));
	});
});

describe('one activation across a key replacement (n8n keeps one poll context per activation)', () => {
	it('a revoked key fails the poll; after the key is replaced in the credential the next poll reads with it', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const session = await createPollSession(options(ws, stored, { events: ['*'], startAt: 'now' }));
		await tickOk(session);

		await control(ws, 'POST', '/_sandbox/keys/revoke', { apiKey: ws.apiKey });
		const refused = await session.tick();
		expect(String(refused.error?.message)).toContain('401');

		const { apiKey } = (await control(
			ws,
			'POST',
			`/_sandbox/workspaces/${ws.workspaceId}/keys`,
			{},
		)) as { apiKey: string };
		const { node, credentialsHelper } = session.current;
		await credentialsHelper.updateCredentials(
			node.credentials!.recruitingAnalysisApi,
			'recruitingAnalysisApi',
			{
				...apiCredential(ws),
				apiKey,
			},
		);
		await seedEvents({ ...ws, apiKey }, 2);
		const recovered = await tickOk(session);
		expect(jsonOf(recovered.output)).toHaveLength(2);
	});
});

describe('410 EVENT_CURSOR_EXPIRED with Start From Now (the default)', () => {
	// A sandbox of its own: its clock is never advanced, so the API and the node read the same time, as in production.
	let own: SandboxHandle;
	beforeAll(async () => {
		own = await withSandbox();
	});
	afterAll(async () => {
		await own.close();
	});

	it('restarts from the oldest retained event, not from now: retained events not yet delivered still arrive, and the notice says so', async () => {
		const ws = await newWorkspace(own);
		const stored: IDataObject = {};
		const session = await createPollSession(options(ws, stored, { events: ['*'], startAt: 'now' }));
		expect((await tickOk(session)).output).toBeNull(); // the activation walks to the (empty) end
		await seedEvents(ws, 3);
		const first = jsonOf((await tickOk(session)).output);
		expect(first).toHaveLength(3);
		const lastDelivered = first.at(-1)!;
		await seedEvents(ws, 2); // published before the poll that finds the position expired, not yet delivered
		const retained = (await allEvents(ws)).map((e) => e.id);
		expect(retained).toHaveLength(5);

		// The API answers the saved position with 410 EVENT_CURSOR_EXPIRED once (as past the 30-day retention).
		await control(ws, 'PUT', '/_sandbox/faults', {
			rules: [{ method: 'GET', path: '/api/v1/events', status: 410, count: 1 }],
		});
		const recovered = jsonOf((await tickOk(session)).output);
		await control(ws, 'DELETE', '/_sandbox/faults');

		expect(recovered[0]).toMatchObject({
			notice: 'EVENT_CURSOR_EXPIRED',
			eventsMayBeMissedSince: lastDelivered.occurredAt,
			lastEventId: lastDelivered.id,
			resumedFrom: 'oldestRetained',
		});
		expect(recovered[0].message).toBe(
			'The saved feed position is older than the retained history, so events may have been missed. ' +
				'Reconcile current reports and interviews; the trigger continues from the oldest retained event.',
		);
		// Every retained event, the two never delivered among them; restarting from "now" would drop them all.
		expect(recovered.slice(1).map((e) => e.id)).toEqual(retained);
		expect((await tickOk(session)).output).toBeNull();
	});
});
