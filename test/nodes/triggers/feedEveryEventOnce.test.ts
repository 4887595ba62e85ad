/**
 * Every event once: the feed trigger through n8n's poll engine (PollContext + PollTriggerExecutor, one context
 * per activation, ticks fired without waiting for each other as n8n's cron does) against the sandbox, with its
 * fault controls for slow pages and 429s. Where the sandbox cannot answer as the spec allows (a last page with
 * `nextCursor: null`, a page that keeps failing, a 410 in the middle of a drain), a small scripted API stands in.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { transportSettings } from '../../../nodes/RecruitingAnalysis/transport';
import type { SandboxHandle } from '../../../sandbox/src';
import { buildSingleNodeWorkflow, saveStaticData } from '../../helpers/engine/single-node';
import {
	allEvents,
	apiCredential,
	control,
	credentialTypes,
	newWorkspace,
	seedEvents,
	withSandbox,
} from './helpers';

let sb: SandboxHandle;
const servers: Server[] = [];
const retryBefore = { ...transportSettings.retry };
beforeAll(async () => {
	sb = await withSandbox();
});
afterEach(async () => {
	await control({ baseUrl: sb.baseUrl }, 'DELETE', '/_sandbox/faults');
	Object.assign(transportSettings.retry, retryBefore);
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});
afterAll(async () => {
	await sb.close();
});

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

interface Activation {
	/** Every item handed to an execution, in order, across ticks. */
	emitted: IDataObject[];
	/** One poll: the first is the activation poll (its error fails the activation), the next ones cron ticks. */
	tick(): Promise<void>;
	/** Errors of cron ticks (n8n records them as error executions). */
	errors: Error[];
}

/** One activation of the feed trigger as n8n runs it; `budgetMs` is what n8n 2.x tells the poll. */
async function activate(
	credential: ICredentialDataDecryptedObject,
	stored: IDataObject,
	parameters: INodeParameters,
	budgetMs?: number,
): Promise<Activation> {
	const loaded = await buildSingleNodeWorkflow({
		nodeType: new RecruitingAnalysisFeedTrigger(),
		credentialTypes,
		credentials: { recruitingAnalysisApi: credential },
		parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
		staticData: stored,
	});
	const emitted: IDataObject[] = [];
	const errors: Error[] = [];
	const context = new PollContext(
		loaded.workflow,
		loaded.node,
		loaded.additionalData,
		'trigger',
		'activate',
		(data) => {
			// The CLI's __emit: save the static data, then start the execution.
			saveStaticData(loaded.workflow, stored);
			emitted.push(...data[0].map((item) => item.json));
		},
		(error) => errors.push(error),
		undefined,
		undefined,
		undefined,
		budgetMs === undefined ? undefined : () => budgetMs,
	);
	const execute = Container.get(PollTriggerExecutor).create(
		loaded.workflow,
		loaded.node,
		context,
		() => true,
	);
	let ticks = 0;
	return {
		emitted,
		errors,
		tick: async () => {
			await execute(ticks++ === 0);
		},
	};
}

const idsOf = (items: IDataObject[]) =>
	items.filter((i) => i.notice === undefined).map((i) => i.id);
const noticesOf = (items: IDataObject[]) => items.filter((i) => i.notice !== undefined);

async function faults(body: IDataObject) {
	await control({ baseUrl: sb.baseUrl }, 'PUT', '/_sandbox/faults', body);
}

describe('feed trigger: one poll at a time, within its budget', () => {
	it('a tick that fires while the previous poll still runs is skipped: slow pages, 300 events handed over once', async () => {
		const ws = await newWorkspace(sb);
		const run = await activate(apiCredential(ws), {}, { events: ['*'], startAt: 'oldest' });
		await run.tick();
		await seedEvents(ws, 300);
		await faults({
			rules: [{ method: 'GET', path: '/api/v1/events', mode: 'latency', latencyMs: 300 }],
		});

		const first = run.tick();
		await sleep(200);
		await Promise.all([first, run.tick()]);
		await run.tick(); // whatever a skipped tick left is read by the next one

		const ids = idsOf(run.emitted);
		expect(ids).toHaveLength(300);
		expect(new Set(ids).size).toBe(300);
		expect(ids).toEqual((await allEvents(ws)).map((e) => e.id));
	});

	it('Fetch Resource reads count in the poll budget: what does not fit waits for the next poll, each event once', async () => {
		const ws = await newWorkspace(sb);
		const run = await activate(
			apiCredential(ws),
			{},
			{ events: ['*'], startAt: 'oldest', fetchResource: true },
			1000,
		);
		await run.tick();
		await seedEvents(ws, 20);
		await faults({
			rules: [{ method: 'GET', path: '/api/v1/reports/', mode: 'latency', latencyMs: 250 }],
		});

		await run.tick();
		const firstPoll = run.emitted.length;
		expect(firstPoll).toBeGreaterThan(0);
		expect(firstPoll).toBeLessThan(20); // 0.7 × 1 s fits three rounds of five 250 ms reads
		for (let i = 0; i < 5 && run.emitted.length < 20; i++) await run.tick();

		expect(idsOf(run.emitted)).toEqual((await allEvents(ws)).map((e) => e.id));
		for (const event of run.emitted) expect(event).toHaveProperty('resourceKind', 'reportStatus');
	});
});

describe('feed trigger: a position that follows the account and the filters', () => {
	it('a credential switched to another workspace restarts the position with a notice instead of failing every poll', async () => {
		const a = await newWorkspace(sb);
		const b = await newWorkspace(sb);
		await seedEvents(a, 2);
		const stored: IDataObject = {};
		const run = await activate(apiCredential(a), stored, { events: ['*'], startAt: 'oldest' });
		await run.tick();
		expect(idsOf(run.emitted)).toHaveLength(2);

		// The user switches the credential to a key of workspace b; n8n activates the workflow with what it stored.
		await seedEvents(b, 3);
		const switched = await activate(apiCredential(b), stored, { events: ['*'], startAt: 'oldest' });
		await switched.tick();
		await switched.tick();
		expect(switched.errors).toEqual([]);
		const afterSwitch = switched.emitted;
		expect(afterSwitch[0]).toMatchObject({
			notice: 'FEED_POSITION_RESTARTED',
			reason: 'CURSOR_INVALID',
			resumedFrom: 'oldestRetained',
		});
		expect(idsOf(afterSwitch)).toEqual((await allEvents(b)).map((e) => e.id));
	});

	it('a credential pointed at another base URL restarts the position there with a notice', async () => {
		const other = await withSandbox();
		try {
			const a = await newWorkspace(sb);
			const b = await newWorkspace(other);
			await seedEvents(a, 1);
			const stored: IDataObject = {};
			const run = await activate(apiCredential(a), stored, { events: ['*'], startAt: 'oldest' });
			await run.tick();
			expect(run.emitted).toHaveLength(1);
			await seedEvents(b, 2);
			const switched = await activate(apiCredential(b), stored, {
				events: ['*'],
				startAt: 'oldest',
			});
			await switched.tick();
			expect(switched.emitted[0]).toMatchObject({
				notice: 'FEED_POSITION_RESTARTED',
				reason: 'BASE_URL_CHANGED',
			});
			expect(idsOf(switched.emitted)).toEqual((await allEvents(b)).map((e) => e.id));
		} finally {
			await other.close();
		}
	});

	it('adding an event type filtered locally keeps the position: pending events of the types that stay are delivered', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const before = await activate(apiCredential(ws), stored, {
			events: ['report.completed', 'report.failed'],
			startAt: 'now',
		});
		await before.tick();
		await seedEvents(ws, 1, 'report.failed');
		await before.tick();
		expect(before.emitted).toHaveLength(1);

		await seedEvents(ws, 2, 'report.completed');
		const after = await activate(apiCredential(ws), stored, {
			events: ['report.completed', 'report.failed', 'interview.completed'],
			startAt: 'now',
		});
		await after.tick();
		expect(noticesOf(after.emitted)).toEqual([]);
		expect(idsOf(after.emitted)).toEqual((await allEvents(ws)).slice(1).map((e) => e.id));
	});

	it('a change of the type sent to the API says in a notice what was skipped and from when', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const before = await activate(apiCredential(ws), stored, {
			events: ['report.failed'],
			startAt: 'now',
		});
		await before.tick();
		await seedEvents(ws, 1, 'report.failed');
		await before.tick();
		const delivered = before.emitted[0];

		const after = await activate(apiCredential(ws), stored, {
			events: ['report.failed', 'report.completed'],
			startAt: 'now',
		});
		await after.tick();
		expect(after.emitted).toEqual([
			expect.objectContaining({
				notice: 'FEED_POSITION_RESTARTED',
				reason: 'FILTERS_CHANGED',
				eventsMayBeMissedSince: delivered.occurredAt,
				lastEventId: delivered.id,
				resumedFrom: 'now',
			}),
		]);
	});
});

describe('feed trigger: Start From Now over a long history', () => {
	it('activation reads a bounded number of pages, survives a 429 that outlasts the retries, and then delivers every later event once', async () => {
		transportSettings.retry.baseDelayMs = 10;
		transportSettings.retry.maxDelayMs = 20;
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 10_000);
		const requests = async () =>
			((
				(await control(ws, 'GET', `/_sandbox/workspaces/${ws.workspaceId}/counters`))
					.requests as IDataObject
			)['GET /api/v1/events'] as number) ?? 0;

		// Four answers 429: every attempt the transport makes for the first page.
		await faults({
			rules: [
				{
					method: 'GET',
					path: '/api/v1/events',
					status: 429,
					retryAfterSeconds: 1,
					count: transportSettings.retry.maxAttempts,
				},
			],
		});
		const run = await activate(apiCredential(ws), {}, { events: ['*'], startAt: 'now' });
		await run.tick(); // the activation poll: throws (fails the activation) if the 429 is not survived
		expect(run.emitted).toEqual([]);

		await seedEvents(ws, 5);
		// The next read's Date (whole seconds) falls after these events: they are later than the refused activation
		// read all the same, and must not be taken for history.
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		let ticks = 0;
		while (run.emitted.length < 5 && ticks < 10) {
			const before = await requests();
			await run.tick();
			expect((await requests()) - before).toBeLessThanOrEqual(20);
			ticks++;
		}
		await run.tick();
		expect(run.errors).toEqual([]);
		expect(idsOf(run.emitted)).toEqual((await allEvents(ws)).slice(10_000).map((e) => e.id));
	});
});

/**
 * A scripted events API for answers the spec allows and the sandbox does not give: the last page carries
 * `nextCursor: null`; `failFrom` makes every read of a page starting at that index answer 503; `expireAt` makes the
 * read starting at that index answer 410 once, after which the events before `purgeTo` are out of retention.
 */
class ScriptedFeed {
	events: IDataObject[] = [];
	retainedFrom = 0;
	failFrom?: number;
	expire?: { at: number; purgeTo: number };
	url = '';
	private seq = 0;

	/** Appends `n` events that occurred `agoMs` before now (by this server's clock, the one its Date header gives). */
	add(n: number, agoMs = 0) {
		for (let i = 0; i < n; i++) {
			const seq = this.seq++;
			const occurredAt = new Date(Date.now() - agoMs).toISOString();
			this.events.push({
				id: `evt-${seq}`,
				type: 'report.completed',
				schemaVersion: 1,
				occurredAt,
				data: { reportId: `rpt_${seq}` },
			});
		}
	}

	credential(): ICredentialDataDecryptedObject {
		return { environment: 'sandbox', baseUrl: this.url, apiKey: 'svc_test_scripted' };
	}

	async start(): Promise<void> {
		const server = createServer((req, res) => {
			const url = new URL(req.url ?? '/', 'http://localhost');
			const send = (status: number, body: unknown) => {
				res.writeHead(status, {
					'content-type': 'application/json',
					'x-request-id': '00000000-0000-4000-8000-000000000000',
				});
				res.end(JSON.stringify(body));
			};
			if (url.pathname !== '/api/v1/events')
				return send(404, { error: { code: 'NOT_FOUND', message: 'not here' } });
			const cursor = url.searchParams.get('cursor');
			const limit = Number(url.searchParams.get('limit') ?? 25);
			const from = cursor === null ? this.retainedFrom : Number(cursor.slice(2));
			if (this.expire && cursor !== null && from === this.expire.at) {
				this.retainedFrom = this.expire.purgeTo;
				this.expire = undefined;
			}
			if (from < this.retainedFrom)
				return send(410, { error: { code: 'EVENT_CURSOR_EXPIRED', message: 'expired' } });
			if (this.failFrom !== undefined && from === this.failFrom)
				return send(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } });
			const items = this.events.slice(from, from + limit);
			const hasMore = from + limit < this.events.length;
			send(200, { data: { items, nextCursor: hasMore ? `c:${from + limit}` : null, hasMore } });
		});
		servers.push(server);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}
}

async function scripted(): Promise<ScriptedFeed> {
	const feed = new ScriptedFeed();
	await feed.start();
	return feed;
}

describe('feed trigger: every page end handled as the spec says', () => {
	it('a last page with nextCursor null ends the list: the next polls deliver only what came after it', async () => {
		const feed = await scripted();
		feed.add(3);
		const run = await activate(feed.credential(), {}, { events: ['*'], startAt: 'oldest' });
		await run.tick();
		await run.tick();
		expect(idsOf(run.emitted)).toEqual(['evt-0', 'evt-1', 'evt-2']);
		feed.add(2);
		await run.tick();
		await run.tick();
		expect(idsOf(run.emitted)).toEqual(['evt-0', 'evt-1', 'evt-2', 'evt-3', 'evt-4']);
	});

	it('Start From Now with a last page without a cursor does not re-emit the history on the next poll', async () => {
		const feed = await scripted();
		feed.add(150, 1500); // history beyond the first read's page, over a second before the activation
		const run = await activate(feed.credential(), {}, { events: ['*'], startAt: 'now' });
		await run.tick();
		await run.tick();
		expect(run.emitted).toEqual([]);
		feed.add(1);
		await run.tick();
		expect(idsOf(run.emitted)).toEqual(['evt-150']);
	});
});

describe('feed trigger: Start From Now never emits history', () => {
	it('the position expires (410) while Start From Now walks to the current end: no old event is emitted, new ones are', async () => {
		const feed = await scripted();
		feed.add(500, 1500); // history, occurred over a second before the position starts
		feed.expire = { at: 200, purgeTo: 300 }; // the walk's read from index 200 finds its cursor out of retention
		const run = await activate(feed.credential(), {}, { events: ['*'], startAt: 'now' });
		await run.tick();
		await run.tick();
		expect(feed.expire).toBeUndefined(); // the 410 was served
		expect(run.emitted).toEqual([]);
		await sleep(5);
		feed.add(2);
		await run.tick();
		expect(idsOf(run.emitted)).toEqual(['evt-500', 'evt-501']);
		expect(run.errors).toEqual([]);
	});

	it('a walk that expires after it handed over new events goes on from the oldest retained event without repeating them', async () => {
		const feed = await scripted();
		// More than one poll's walk (20 pages of 100), occurred over a second before the activation: an event of the
		// second the first read's Date names, beyond that read's page, cannot be told from a new one and is delivered.
		feed.add(2100, 1500);
		const run = await activate(
			feed.credential(),
			{},
			{ events: ['*'], startAt: 'now', options: { maxEventsPerPoll: 2 } },
		);
		await run.tick(); // the activation poll starts the position and walks 20 pages
		await sleep(5);
		feed.add(4); // evt-2100..2103 occur after the position started
		await run.tick(); // the walk reaches them and hands over evt-2100 and evt-2101 (two events per poll)
		expect(idsOf(run.emitted)).toEqual(['evt-2100', 'evt-2101']);
		// The next read of that page finds it out of retention, evt-2101 still retained.
		feed.expire = { at: 2100, purgeTo: 2101 };
		await run.tick();
		await run.tick();
		expect(feed.expire).toBeUndefined();
		expect(noticesOf(run.emitted)).toEqual([]);
		expect(idsOf(run.emitted)).toEqual(['evt-2100', 'evt-2101', 'evt-2102', 'evt-2103']);
		expect(run.errors).toEqual([]);
	});
});

describe('feed trigger: smaller points of every event once', () => {
	it('a page that keeps failing: what was read before it is handed over, the next poll retries only the failing read', async () => {
		transportSettings.retry.baseDelayMs = 1;
		transportSettings.retry.maxDelayMs = 2;
		const feed = await scripted();
		feed.add(30);
		feed.failFrom = 20;
		const run = await activate(
			feed.credential(),
			{},
			{ events: ['*'], startAt: 'oldest', options: { pageSize: 10 } },
		);
		await run.tick();
		expect(idsOf(run.emitted)).toHaveLength(20);
		feed.failFrom = undefined;
		await run.tick();
		expect(idsOf(run.emitted)).toEqual(feed.events.map((e) => e.id));
	});

	it('a 410 in the middle of a drain: the notice comes after the events read before it, in its place', async () => {
		const feed = await scripted();
		feed.add(2);
		const run = await activate(
			feed.credential(),
			{},
			{ events: ['*'], startAt: 'oldest', options: { pageSize: 2 } },
		);
		await run.tick();
		feed.add(6);
		feed.expire = { at: 4, purgeTo: 6 }; // the read from index 4 finds the position out of retention
		await run.tick();
		const [e2, e3, notice, ...rest] = run.emitted.slice(2);
		expect([e2.id, e3.id]).toEqual(['evt-2', 'evt-3']);
		expect(notice).toMatchObject({
			notice: 'EVENT_CURSOR_EXPIRED',
			eventsMayBeMissedSince: e3.occurredAt,
			lastEventId: 'evt-3',
		});
		expect(rest.map((e) => e.id)).toEqual(['evt-6', 'evt-7']);
	});

	it('Fetch Resource: a report event whose read failed says delayedEvent false (unknown), beside the error', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 1, 'report.completed'); // a synthetic report the API does not know: the read answers 404
		const run = await activate(
			apiCredential(ws),
			{},
			{ events: ['*'], startAt: 'oldest', fetchResource: true },
		);
		await run.tick();
		expect(run.emitted[0]).toMatchObject({
			resource: null,
			resourceError: { httpCode: '404' },
			delayedEvent: false,
		});
	});
});
