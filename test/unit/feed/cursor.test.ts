/**
 * Pure cursor bookkeeping, driven by an in-memory page source that follows the feed rules
 * (opaque cursor, hasMore, type filter, 410 for a cursor that fell out of retention).
 * The same behaviour is exercised against the real sandbox in test/nodes/triggers.
 */
import {
	CURSOR_EXPIRED,
	filterKey,
	readFeedState,
	readLatestEvents,
	runFeedPoll,
	type FeedEvent,
	type FeedPage,
	type FeedPollArgs,
} from '../../../nodes/RecruitingAnalysis/feed/cursor';

class MemoryFeed {
	events: FeedEvent[] = [];
	retainedFrom = 0; // index of the oldest retained event
	requests: Array<{ cursor: string | null; limit: number; type?: string }> = [];

	add(n: number, type = 'report.completed') {
		for (let i = 0; i < n; i++) {
			const seq = this.events.length;
			this.events.push({
				id: `evt-${seq}`,
				type,
				schemaVersion: 1,
				occurredAt: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
				data: {},
			});
		}
	}

	fetchPage = async (q: {
		cursor: string | null;
		limit: number;
		type?: string;
	}): Promise<FeedPage | typeof CURSOR_EXPIRED> => {
		this.requests.push(q);
		let from = q.cursor === null ? this.retainedFrom : Number(q.cursor.slice(2));
		if (from < this.retainedFrom) return CURSOR_EXPIRED;
		const items: FeedEvent[] = [];
		while (from < this.events.length && items.length < q.limit) {
			const e = this.events[from++];
			if (q.type === undefined || e.type === q.type) items.push(e);
		}
		return { items, nextCursor: `c:${from}`, hasMore: from < this.events.length };
	};
}

function args(feed: MemoryFeed, stored: unknown, over: Partial<FeedPollArgs> = {}): FeedPollArgs {
	return {
		stored,
		filters: { types: ['*'] },
		baseUrl: 'https://api.example.test',
		startAt: 'oldest',
		maxEvents: 500,
		pageSize: 100,
		now: () => Date.now(),
		deadline: Date.now() + 60_000,
		fetchPage: feed.fetchPage,
		...over,
	};
}

const ids = (events: FeedEvent[]) => events.map((e) => e.id);

describe('feed cursor bookkeeping', () => {
	it('drains hasMore across pages in order, then continues from the saved position', async () => {
		const feed = new MemoryFeed();
		feed.add(250);
		const first = await runFeedPoll(args(feed, undefined, { pageSize: 100 }));
		expect(ids(first.events)).toEqual(feed.events.map((e) => e.id));
		expect(feed.requests).toHaveLength(3);
		expect(first.nextState?.cursor).toBe('c:250');

		feed.add(2);
		const second = await runFeedPoll(args(feed, first.nextState));
		expect(ids(second.events)).toEqual(['evt-250', 'evt-251']);
	});

	it('stops at the per-poll cap and leaves the rest, in order, to the next poll', async () => {
		const feed = new MemoryFeed();
		feed.add(25);
		const a = await runFeedPoll(args(feed, undefined, { maxEvents: 10, pageSize: 4 }));
		expect(ids(a.events)).toEqual(feed.events.slice(0, 10).map((e) => e.id));
		expect(a.truncated).toBe(true);
		expect(Math.max(...feed.requests.map((r) => r.limit))).toBeLessThanOrEqual(4);
		const b = await runFeedPoll(args(feed, a.nextState, { maxEvents: 10, pageSize: 4 }));
		expect(ids(b.events)).toEqual(feed.events.slice(10, 20).map((e) => e.id));
		const c = await runFeedPoll(args(feed, b.nextState, { maxEvents: 10, pageSize: 4 }));
		expect(ids(c.events)).toEqual(feed.events.slice(20).map((e) => e.id));
		expect(c.truncated).toBe(false);
	});

	it('first activation "now" walks to the current end without emitting', async () => {
		const feed = new MemoryFeed();
		feed.add(130);
		const first = await runFeedPoll(args(feed, undefined, { startAt: 'now' }));
		expect(first.events).toEqual([]);
		expect(first.nextState).toMatchObject({ phase: 'following', cursor: 'c:130' });
		feed.add(1);
		const next = await runFeedPoll(args(feed, first.nextState, { startAt: 'now' }));
		expect(ids(next.events)).toEqual(['evt-130']);
	});

	it('returns no state to write when nothing changed', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const first = await runFeedPoll(args(feed, undefined));
		const again = await runFeedPoll(args(feed, JSON.parse(JSON.stringify(first.nextState))));
		expect(again.events).toEqual([]);
		expect(again.nextState).toBeUndefined();
	});

	it('a filter change starts a fresh position', async () => {
		const feed = new MemoryFeed();
		feed.add(3, 'report.completed');
		feed.add(2, 'interview.started');
		const all = await runFeedPoll(args(feed, undefined));
		expect(all.events).toHaveLength(5);
		const narrowed = await runFeedPoll(
			args(feed, all.nextState, { filters: { types: ['interview.started'] } }),
		);
		expect(ids(narrowed.events)).toEqual(['evt-3', 'evt-4']);
		expect(feed.requests.at(-1)?.type).toBe('interview.started');
		expect(narrowed.nextState?.filterKey).toBe(filterKey({ types: ['interview.started'] }));
	});

	it('several selected types are filtered locally, unknown types pass only with "all"', async () => {
		const feed = new MemoryFeed();
		feed.add(1, 'report.completed');
		feed.add(1, 'batch.completed');
		feed.add(1, 'report.archived');
		const two = await runFeedPoll(
			args(feed, undefined, { filters: { types: ['batch.completed', 'report.completed'] } }),
		);
		expect(ids(two.events)).toEqual(['evt-0', 'evt-1']);
		expect(feed.requests.every((r) => r.type === undefined)).toBe(true);
		const all = await runFeedPoll(args(feed, undefined, { filters: { types: ['*'] } }));
		expect(ids(all.events)).toEqual(['evt-0', 'evt-1', 'evt-2']);
	});

	it('410 EVENT_CURSOR_EXPIRED: a notice saying since when, then the oldest retained events', async () => {
		const feed = new MemoryFeed();
		feed.add(5);
		const first = await runFeedPoll(args(feed, undefined));
		feed.add(10);
		feed.retainedFrom = 8; // events 5..7 fell out of retention before they were read
		const after = await runFeedPoll(args(feed, first.nextState));
		expect(after.notices).toHaveLength(1);
		expect(after.notices[0]).toMatchObject({
			notice: 'EVENT_CURSOR_EXPIRED',
			eventsMayBeMissedSince: feed.events[4].occurredAt,
			lastEventId: 'evt-4',
			resumedFrom: 'oldestRetained',
		});
		expect(ids(after.events)).toEqual(feed.events.slice(8).map((e) => e.id));
		expect(after.nextState?.cursor).toBe('c:15');
	});

	it('410 EVENT_CURSOR_EXPIRED with Start From Now: the retained events not yet delivered still arrive, from the oldest retained event', async () => {
		const feed = new MemoryFeed();
		feed.add(5);
		const activation = await runFeedPoll(args(feed, undefined, { startAt: 'now' }));
		feed.add(3);
		const first = await runFeedPoll(args(feed, activation.nextState, { startAt: 'now' }));
		expect(ids(first.events)).toEqual(['evt-5', 'evt-6', 'evt-7']);
		feed.add(10);
		feed.retainedFrom = 10; // events 8 and 9 fell out of retention before they were read
		const after = await runFeedPoll(args(feed, first.nextState, { startAt: 'now' }));
		expect(after.notices).toEqual([
			expect.objectContaining({
				notice: 'EVENT_CURSOR_EXPIRED',
				eventsMayBeMissedSince: feed.events[7].occurredAt,
				lastEventId: 'evt-7',
				resumedFrom: 'oldestRetained',
				message: expect.stringContaining('the trigger continues from the oldest retained event'),
			}),
		]);
		// Those events occurred before this poll: a restart from "now" would drop every one of them.
		expect(ids(after.events)).toEqual(feed.events.slice(10).map((e) => e.id));
		expect(after.nextState).toMatchObject({ phase: 'following', cursor: 'c:18' });
	});

	it('any other failure rejects the poll (nothing is stored)', async () => {
		const boom = async () => {
			throw new Error('503');
		};
		await expect(
			runFeedPoll({ ...args(new MemoryFeed(), undefined), fetchPage: boom }),
		).rejects.toThrow('503');
	});

	it('stops requesting pages once the time budget is spent', async () => {
		const feed = new MemoryFeed();
		feed.add(300);
		let t = 0;
		const r = await runFeedPoll(args(feed, undefined, { now: () => (t += 10), deadline: 25 }));
		expect(feed.requests.length).toBeLessThan(3);
		expect(r.truncated).toBe(true);
		expect(r.nextState?.cursor).toBe(`c:${r.events.length}`);
	});

	it('ignores unreadable stored state', () => {
		expect(readFeedState({ version: 2 })).toBeUndefined();
		expect(readFeedState('x')).toBeUndefined();
	});

	it('manual mode reads the latest events and takes no state', async () => {
		const feed = new MemoryFeed();
		feed.add(240);
		const r = await readLatestEvents({
			filters: { types: [] },
			count: 5,
			now: () => Date.now(),
			deadline: Date.now() + 60_000,
			maxPages: 10,
			fetchPage: feed.fetchPage,
		});
		expect(ids(r.events)).toEqual(['evt-235', 'evt-236', 'evt-237', 'evt-238', 'evt-239']);
		expect(r.complete).toBe(true);
	});
});

describe('feed position bound to the server-side filters', () => {
	it('a position saved before the base URL was recorded keeps its cursor, and its key becomes the server-side part', () => {
		const v1 = {
			version: 1,
			filterKey: JSON.stringify({
				types: ['report.completed', 'report.failed'],
				reportId: null,
				interviewId: null,
			}),
			cursor: 'c:7',
			phase: 'following',
		};
		const state = readFeedState(v1);
		expect(state).toMatchObject({ version: 2, cursor: 'c:7', baseUrl: null, skipThrough: null });
		expect(state?.filterKey).toBe(filterKey({ types: ['*'] }));
		expect(filterKey({ types: ['report.completed', 'interview.completed'] })).toBe(
			filterKey({ types: ['*'] }),
		);
		expect(filterKey({ types: ['report.completed'] })).not.toBe(
			filterKey({ types: ['report.completed', 'report.failed'] }),
		);
	});
});
