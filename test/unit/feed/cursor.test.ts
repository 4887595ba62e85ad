/**
 * Pure cursor bookkeeping, driven by an in-memory page source that follows the feed rules
 * (opaque cursor, hasMore, type filter, 410 for a cursor that fell out of retention).
 * The same behaviour is exercised against the real sandbox in test/nodes/triggers.
 */
import {
	CURSOR_EXPIRED,
	CURSOR_INVALID,
	filterKey,
	readFeedState,
	readLatestEvents,
	runFeedPoll,
	type FeedEvent,
	type FeedPage,
	type FeedPollArgs,
	type FeedState,
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
	}): Promise<FeedPage | typeof CURSOR_EXPIRED | typeof CURSOR_INVALID> => {
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
// Notices are the output items that are not events.
const noticesOf = (poll: { items: object[] }) => poll.items.filter((item) => 'notice' in item);

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
		expect(noticesOf(after)).toHaveLength(1);
		expect(noticesOf(after)[0]).toMatchObject({
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
		expect(noticesOf(after)).toEqual([
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
	it('several selected types share the key of all types (filtered locally); one type is filtered by the API and has its own', () => {
		expect(filterKey({ types: ['report.completed', 'interview.completed'] })).toBe(
			filterKey({ types: ['*'] }),
		);
		expect(filterKey({ types: ['report.completed'] })).not.toBe(
			filterKey({ types: ['report.completed', 'report.failed'] }),
		);
	});
});

const BASE = 'https://api.example.test';
const DAY_MS = 24 * 60 * 60_000;
const msOf = (e: FeedEvent) => Date.parse(String(e.occurredAt));

/** A stored position in the middle of a Start From Now walk that began at `since` (ms) and delivered `last`. */
function seekingState(since: number, cursor: string, last: FeedEvent): FeedState {
	return {
		version: 2,
		filterKey: filterKey({ types: ['*'] }),
		baseUrl: BASE,
		cursor,
		skipThrough: null,
		phase: 'seekingEnd',
		positionSince: new Date(since).toISOString(),
		lastEventAt: String(last.occurredAt),
		lastEventId: String(last.id),
	};
}

describe('feed positions a user keeps across upgrades', () => {
	it('the key a saved position is bound to keeps its exact form (a different form would restart every saved position)', () => {
		expect(filterKey({ types: ['*'] })).toBe('{"type":null,"reportId":null,"interviewId":null}');
		expect(filterKey({ types: ['report.failed'], reportId: 'rpt_1', interviewId: 'int_1' })).toBe(
			'{"type":"report.failed","reportId":"rpt_1","interviewId":"int_1"}',
		);
	});

	it('reads every valid saved position, and nothing else', () => {
		const valid = {
			version: 2,
			filterKey: 'k',
			cursor: null,
			skipThrough: 'evt-3',
			phase: 'seekingEnd',
			positionSince: '2026-01-01T00:00:00.000Z',
			walkResumedAfter: '2026-01-02T00:00:00.000Z',
		};
		expect(readFeedState(valid)).toEqual({
			version: 2,
			filterKey: 'k',
			baseUrl: null,
			cursor: null,
			skipThrough: 'evt-3',
			phase: 'seekingEnd',
			positionSince: '2026-01-01T00:00:00.000Z',
			lastEventAt: null,
			lastEventId: null,
			walkResumedAfter: '2026-01-02T00:00:00.000Z',
		});
		expect(readFeedState(null)).toBeUndefined();
		expect(readFeedState({ ...valid, version: 1 })).toBeUndefined();
		expect(readFeedState({ ...valid, version: 3 })).toBeUndefined();
		expect(readFeedState({ ...valid, filterKey: 5 })).toBeUndefined();
		expect(readFeedState({ ...valid, cursor: 5 })).toBeUndefined();
		expect(readFeedState({ ...valid, phase: 'other' })).toBeUndefined();
	});

	it('a position saved before its base URL was recorded continues, with no notice', async () => {
		const feed = new MemoryFeed();
		feed.add(4);
		const stored = { ...(await runFeedPoll(args(feed, undefined))).nextState, baseUrl: null };
		feed.add(2);
		const next = await runFeedPoll(args(feed, stored));
		expect(noticesOf(next)).toEqual([]);
		expect(ids(next.events)).toEqual(['evt-4', 'evt-5']);
	});
});

describe('feed restart notices say what happened and where the trigger continues', () => {
	const now = Date.parse('2026-03-01T12:00:00.000Z');
	const clock = { now: () => now, deadline: now + 60_000 };

	it('filters changed, Start From Now: the notice says events since the last one were not delivered', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const first = await runFeedPoll(args(feed, undefined, clock));
		const after = await runFeedPoll(
			args(feed, first.nextState, {
				...clock,
				startAt: 'now',
				filters: { types: ['report.failed'] },
			}),
		);
		expect(noticesOf(after)).toEqual([
			{
				notice: 'FEED_POSITION_RESTARTED',
				reason: 'FILTERS_CHANGED',
				message:
					'The server-side filters changed (a single selected event type, the report or the interview filter), and a feed position is bound to its filters.' +
					` The trigger continues with events published from now on: events of the current selection published since ${String(feed.events[2].occurredAt)} were not delivered. Reconcile current reports and interviews for that gap.`,
				eventsMayBeMissedSince: feed.events[2].occurredAt,
				lastEventId: 'evt-2',
				detectedAt: new Date(now).toISOString(),
				resumedFrom: 'now',
			},
		]);
		// The fresh position walked past everything published before it: nothing older is handed over.
		expect(after.events).toEqual([]);
		expect(after.nextState).toMatchObject({
			phase: 'following',
			filterKey: filterKey({ types: ['report.failed'] }),
		});
	});

	it('base URL changed, Start At Oldest: the notice says events may come again', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const first = await runFeedPoll(args(feed, undefined, clock));
		feed.requests = [];
		const after = await runFeedPoll(
			args(feed, first.nextState, { ...clock, baseUrl: 'https://other.example.test' }),
		);
		expect(noticesOf(after)).toEqual([
			expect.objectContaining({
				notice: 'FEED_POSITION_RESTARTED',
				reason: 'BASE_URL_CHANGED',
				message:
					'The credential now points at another API base URL, where the saved feed position does not exist.' +
					' The trigger continues from the oldest retained event: events delivered before may be delivered again (deduplicate by id).',
				resumedFrom: 'oldestRetained',
			}),
		]);
		expect(feed.requests[0].cursor).toBeNull();
		expect(ids(after.events)).toEqual(['evt-0', 'evt-1', 'evt-2']);
		expect(after.nextState?.baseUrl).toBe('https://other.example.test');
	});

	it('400 INVALID_CURSOR: a notice naming the likely cause, then a fresh position as the start setting says', async () => {
		for (const startAt of ['now', 'oldest'] as const) {
			const feed = new MemoryFeed();
			feed.add(3);
			const first = await runFeedPoll(args(feed, undefined, clock));
			const refusing: FeedPollArgs['fetchPage'] = async (q) =>
				q.cursor === null ? await feed.fetchPage(q) : CURSOR_INVALID;
			const after = await runFeedPoll(
				args(feed, first.nextState, { ...clock, startAt, fetchPage: refusing }),
			);
			expect(noticesOf(after)).toEqual([
				expect.objectContaining({
					notice: 'FEED_POSITION_RESTARTED',
					reason: 'CURSOR_INVALID',
					message: expect.stringMatching(
						/^The API refused the saved feed position as invalid \(400 INVALID_CURSOR\): the credential's key probably belongs to another workspace now\. The trigger continues /,
					),
					resumedFrom: startAt === 'now' ? 'now' : 'oldestRetained',
				}),
			]);
			expect(ids(after.events)).toEqual(startAt === 'now' ? [] : ['evt-0', 'evt-1', 'evt-2']);
		}
	});

	it('an API answering "expired" to a request without a cursor is a programming error, said as such', async () => {
		await expect(
			runFeedPoll(args(new MemoryFeed(), undefined, { fetchPage: async () => CURSOR_EXPIRED })),
		).rejects.toThrow('fetchPage answered CURSOR_EXPIRED for a request without a cursor');
	});
});

describe('a Start From Now walk whose cursor expires before it reaches the end', () => {
	/** Ten events a second apart, a twin of evt-4 (same moment, another id) right after it. */
	function walkedFeed() {
		const feed = new MemoryFeed();
		feed.add(10);
		feed.events.splice(5, 0, { ...feed.events[4], id: 'evt-4-twin' });
		return feed;
	}

	it('within the retention: restarts from the oldest retained event, skips what it delivered, and says nothing', async () => {
		const feed = walkedFeed();
		const since = msOf(feed.events[2]) + 500;
		feed.retainedFrom = 3; // the walk's cursor (c:2) fell out of retention
		const now = since + 30 * DAY_MS - 1;
		const r = await runFeedPoll(
			args(feed, seekingState(since, 'c:2', feed.events[4]), {
				startAt: 'now',
				now: () => now,
				deadline: now,
			}),
		);
		expect(noticesOf(r)).toEqual([]);
		// evt-3 and evt-4 were delivered before the restart; evt-4's twin occurred at the same moment and was not.
		expect(ids(r.events)).toEqual(['evt-4-twin', 'evt-5', 'evt-6', 'evt-7', 'evt-8', 'evt-9']);
		expect(r.nextState).toMatchObject({ phase: 'following', cursor: 'c:11' });
		expect(r.nextState).not.toHaveProperty('walkResumedAfter');
	});

	it('400 INVALID_CURSOR during the walk is no expiry: the notice names the refused position', async () => {
		const feed = walkedFeed();
		const since = msOf(feed.events[2]) + 500;
		const refusing: FeedPollArgs['fetchPage'] = async (q) =>
			q.cursor === 'c:2' ? CURSOR_INVALID : await feed.fetchPage(q);
		const r = await runFeedPoll(
			args(feed, seekingState(since, 'c:2', feed.events[4]), {
				startAt: 'now',
				fetchPage: refusing,
			}),
		);
		expect(noticesOf(r)).toEqual([
			expect.objectContaining({
				notice: 'FEED_POSITION_RESTARTED',
				reason: 'CURSOR_INVALID',
				resumedFrom: 'now',
			}),
		]);
	});

	it('past the retention since the walk began: the notice says events may have expired unseen', async () => {
		const feed = walkedFeed();
		const since = msOf(feed.events[2]) + 500;
		feed.retainedFrom = 3;
		const now = since + 30 * DAY_MS;
		const r = await runFeedPoll(
			args(feed, seekingState(since, 'c:2', feed.events[4]), {
				startAt: 'now',
				now: () => now,
				deadline: now,
			}),
		);
		expect(noticesOf(r)).toEqual([
			expect.objectContaining({
				notice: 'EVENT_CURSOR_EXPIRED',
				resumedFrom: 'oldestRetained',
				lastEventId: 'evt-4',
			}),
		]);
		expect(ids(r.events)).toEqual(['evt-4-twin', 'evt-5', 'evt-6', 'evt-7', 'evt-8', 'evt-9']);
	});

	it('a first activation hands over only what occurred after its start, not what occurred at that moment', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const start = msOf(feed.events[1]);
		const r = await runFeedPoll(
			args(feed, undefined, { startAt: 'now', now: () => start, deadline: start }),
		);
		expect(ids(r.events)).toEqual(['evt-2']);
	});
});

describe('feed poll bounds', () => {
	it('stops at exactly the per-poll cap without reading another page', async () => {
		const feed = new MemoryFeed();
		feed.add(20);
		const r = await runFeedPoll(args(feed, undefined, { maxEvents: 5, pageSize: 5 }));
		expect(ids(r.events)).toHaveLength(5);
		expect(feed.requests).toHaveLength(1);
		expect(r.truncated).toBe(true);
	});

	it('a poll at exactly its deadline still reads', async () => {
		const feed = new MemoryFeed();
		feed.add(2);
		const r = await runFeedPoll(args(feed, undefined, { now: () => 1000, deadline: 1000 }));
		expect(ids(r.events)).toEqual(['evt-0', 'evt-1']);
	});

	it('Start From Now walks at most the pages allowed per poll, then continues on the next poll', async () => {
		const feed = new MemoryFeed();
		feed.add(450);
		const first = await runFeedPoll(args(feed, undefined, { startAt: 'now', seekPagesPerPoll: 2 }));
		expect(feed.requests).toHaveLength(2);
		expect(first.truncated).toBe(true);
		expect(first.nextState).toMatchObject({ phase: 'seekingEnd', cursor: 'c:200' });
		const second = await runFeedPoll(
			args(feed, first.nextState, { startAt: 'now', seekPagesPerPoll: 2 }),
		);
		expect(feed.requests).toHaveLength(4);
		expect(second.nextState).toMatchObject({ phase: 'seekingEnd', cursor: 'c:400' });
	});

	it('a page that says there is more but gives no cursor ends the poll after one request', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const fetchPage: FeedPollArgs['fetchPage'] = async (q) => {
			feed.requests.push(q);
			return { items: feed.events, nextCursor: null, hasMore: true };
		};
		const r = await runFeedPoll(args(feed, undefined, { fetchPage }));
		expect(feed.requests).toHaveLength(1);
		expect(ids(r.events)).toEqual(['evt-0', 'evt-1', 'evt-2']);
		const manual = await readLatestEvents({
			filters: { types: ['*'] },
			count: 10,
			now: () => 0,
			deadline: 0,
			maxPages: 5,
			fetchPage,
		});
		expect(feed.requests).toHaveLength(2);
		expect(manual.complete).toBe(true);
		const emptyCursor: FeedPollArgs['fetchPage'] = async (q) => {
			feed.requests.push(q);
			return { items: feed.events, nextCursor: '', hasMore: true };
		};
		await runFeedPoll(args(feed, undefined, { fetchPage: emptyCursor }));
		expect(feed.requests).toHaveLength(3);
	});

	it('a list that ends with nextCursor null: the next poll re-reads that page and skips what it delivered', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		const endsWithNull: FeedPollArgs['fetchPage'] = async (q) => {
			const page = await feed.fetchPage(q);
			return typeof page === 'string' || page.hasMore ? page : { ...page, nextCursor: null };
		};
		const first = await runFeedPoll(args(feed, undefined, { fetchPage: endsWithNull }));
		expect(first.nextState).toMatchObject({ cursor: null, skipThrough: 'evt-2' });
		feed.add(2);
		const second = await runFeedPoll(args(feed, first.nextState, { fetchPage: endsWithNull }));
		expect(ids(second.events)).toEqual(['evt-3', 'evt-4']);
		expect(second.nextState).toMatchObject({ cursor: null, skipThrough: 'evt-4' });
		const emptyCursor: FeedPollArgs['fetchPage'] = async (q) => {
			const page = await feed.fetchPage(q);
			return typeof page === 'string' ? page : { ...page, nextCursor: '' };
		};
		const third = await runFeedPoll(args(feed, second.nextState, { fetchPage: emptyCursor }));
		expect(third.events).toEqual([]);
		expect(third.nextState).toBeUndefined();
	});
});

describe('feed read failures', () => {
	const failingAfter = (
		feed: MemoryFeed,
		okPages: number,
		error: Error,
	): FeedPollArgs['fetchPage'] => {
		let pages = 0;
		return async (q) => {
			if (pages++ >= okPages) throw error;
			return await feed.fetchPage(q);
		};
	};

	it('a page that fails after others were read: what was read is handed over with the failure, and kept', async () => {
		const feed = new MemoryFeed();
		feed.add(6);
		const boom = new Error('503');
		const r = await runFeedPoll(
			args(feed, undefined, { pageSize: 2, fetchPage: failingAfter(feed, 2, boom) }),
		);
		expect(ids(r.events)).toEqual(['evt-0', 'evt-1', 'evt-2', 'evt-3']);
		expect(r.failure).toBe(boom);
		expect(r.nextState?.cursor).toBe('c:4');
	});

	it('while walking to the end: a transient failure keeps the walk, any other rejects', async () => {
		const feed = new MemoryFeed();
		feed.add(250);
		const busy = new Error('429');
		const kept = await runFeedPoll(
			args(feed, undefined, {
				startAt: 'now',
				fetchPage: failingAfter(feed, 1, busy),
				isTransient: (e) => e === busy,
			}),
		);
		expect(kept.failure).toBe(busy);
		expect(kept.nextState).toMatchObject({ phase: 'seekingEnd', cursor: 'c:100' });
		await expect(
			runFeedPoll(
				args(feed, undefined, {
					startAt: 'now',
					fetchPage: failingAfter(feed, 1, busy),
					isTransient: () => false,
				}),
			),
		).rejects.toBe(busy);
		await expect(
			runFeedPoll(
				args(feed, undefined, { fetchPage: failingAfter(feed, 0, busy), isTransient: () => true }),
			),
		).rejects.toBe(busy);
	});
});

describe('Fetch Resource reads within a poll', () => {
	it('at most five reads at once', async () => {
		const feed = new MemoryFeed();
		feed.add(12);
		let inFlight = 0;
		let most = 0;
		const r = await runFeedPoll(
			args(feed, undefined, {
				enrich: async () => {
					most = Math.max(most, ++inFlight);
					await new Promise((resolve) => setImmediate(resolve));
					inFlight--;
					return { resource: 'read' };
				},
			}),
		);
		expect(r.events).toHaveLength(12);
		expect(r.events.every((e) => e.resource === 'read')).toBe(true);
		expect(most).toBe(5);
	});

	it('no read starts after the deadline: the events not read wait for the next poll, which skips those handed over', async () => {
		const feed = new MemoryFeed();
		feed.add(3);
		let t = 0;
		const poll = (stored: unknown) =>
			runFeedPoll(
				args(feed, stored, {
					now: () => t,
					deadline: 0,
					enrich: async () => {
						t += 10; // each read takes the time past the deadline
						return { resource: 'read' };
					},
				}),
			);
		const first = await poll(undefined);
		expect(ids(first.events)).toEqual(['evt-0']);
		expect(first.events[0].resource).toBe('read');
		expect(first.truncated).toBe(true);
		expect(first.nextState).toMatchObject({ cursor: null, skipThrough: 'evt-0' });
		t = 0;
		const second = await poll(first.nextState);
		expect(ids(second.events)).toEqual(['evt-1']);
	});
});

describe('manual mode bounds', () => {
	const manual = (feed: MemoryFeed, over: Partial<Parameters<typeof readLatestEvents>[0]> = {}) =>
		readLatestEvents({
			filters: { types: ['*'] },
			count: 3,
			now: () => 0,
			deadline: 0,
			maxPages: 10,
			fetchPage: feed.fetchPage,
			...over,
		});

	it('reads at most maxPages pages, and says the answer is incomplete', async () => {
		const feed = new MemoryFeed();
		feed.add(500);
		const r = await manual(feed, { maxPages: 2 });
		expect(feed.requests).toHaveLength(2);
		expect(ids(r.events)).toEqual(['evt-197', 'evt-198', 'evt-199']);
		expect(r.complete).toBe(false);
	});

	it('past the deadline reads nothing and says so; at the deadline it reads', async () => {
		const feed = new MemoryFeed();
		feed.add(2);
		expect(await manual(feed, { now: () => 1 })).toEqual({ events: [], complete: false });
		expect(feed.requests).toHaveLength(0);
		expect(ids((await manual(feed)).events)).toEqual(['evt-0', 'evt-1']);
	});

	it('keeps only the selected types, and what it had when retention moves past its read', async () => {
		const feed = new MemoryFeed();
		feed.add(2, 'report.failed');
		feed.add(2, 'report.completed');
		feed.add(150, 'report.failed');
		const typed = await manual(feed, {
			filters: { types: ['report.failed', 'batch.completed'] },
			count: 2,
		});
		expect(ids(typed.events)).toEqual(['evt-152', 'evt-153']);
		const expiring: FeedPollArgs['fetchPage'] = async (q) => {
			if (q.cursor !== null) feed.retainedFrom = 120;
			return await feed.fetchPage(q);
		};
		const cut = await manual(feed, {
			fetchPage: expiring,
			count: 200,
			filters: { types: ['report.completed', 'batch.completed'] },
		});
		expect(ids(cut.events)).toEqual(['evt-2', 'evt-3']);
		expect(cut.complete).toBe(false);
	});
});

describe("Start From Now's start is told by the API's clock, whatever the host's says", () => {
	const HOUR_MS = 60 * 60_000;
	/**
	 * A feed whose answers carry the API's Date (the moment of its newest event, as the sandbox's do), with
	 * `between` run once the first page is served: events that occur while the walk is under way.
	 */
	function datedFeed(history: number, between: (feed: MemoryFeed) => void = () => undefined) {
		const feed = new MemoryFeed();
		feed.add(history);
		let served = 0;
		const fetchPage: FeedPollArgs['fetchPage'] = async (q) => {
			const apiDateMs = msOf(feed.events[feed.events.length - 1]);
			const page = await feed.fetchPage(q);
			if (++served === 1) between(feed);
			if (page !== CURSOR_EXPIRED && page !== CURSOR_INVALID) q.apiTime.dateMs = apiDateMs;
			return page;
		};
		return { feed, fetchPage };
	}

	// A Start From Now poll with the host's clock read as `host`.
	const fromNow = (host: number, over: Partial<FeedPollArgs>): Partial<FeedPollArgs> => ({
		startAt: 'now',
		now: () => host,
		deadline: host + 60_000,
		...over,
	});

	it.each([
		['an hour behind the API', -HOUR_MS],
		['an hour ahead of the API', HOUR_MS],
	])(
		'with the host clock %s: no event before the first read is delivered, every one that occurs during the walk is',
		async (_, skew) => {
			const { feed, fetchPage } = datedFeed(150, (f) => f.add(2));
			const host = msOf(feed.events[149]) + skew;
			const r = await runFeedPoll(args(feed, undefined, fromNow(host, { fetchPage })));
			// 150 retained events take two pages of the walk; the two new ones arrive on its second page.
			expect(feed.requests).toHaveLength(2);
			expect(ids(r.events)).toEqual(['evt-150', 'evt-151']);
			expect(r.nextState).toMatchObject({ phase: 'following', cursor: 'c:152' });
		},
	);

	it("an event without a readable time on the walk's first page does not stop the walk", async () => {
		const { feed, fetchPage } = datedFeed(3);
		delete feed.events[0].occurredAt;
		const host = msOf(feed.events[2]);
		const r = await runFeedPoll(args(feed, undefined, fromNow(host, { fetchPage })));
		expect(ids(r.events)).toEqual([]);
		expect(r.nextState).toMatchObject({ phase: 'following', cursor: 'c:3' });
	});

	it("an activation whose first read failed for a moment still starts at the API's clock on the next poll, from the saved position", async () => {
		const { feed, fetchPage } = datedFeed(5);
		const busy = new Error('429');
		const host = msOf(feed.events[4]) - HOUR_MS;
		const failed = await runFeedPoll(
			args(
				feed,
				undefined,
				fromNow(host, {
					fetchPage: async () => await Promise.reject(busy),
					isTransient: (e) => e === busy,
				}),
			),
		);
		expect(failed.failure).toBe(busy);
		expect(failed.nextState).toMatchObject({ phase: 'seekingEnd', cursor: null });
		// n8n keeps the position as JSON in the trigger's static data.
		const saved: unknown = JSON.parse(JSON.stringify(failed.nextState));
		const next = await runFeedPoll(args(feed, saved, fromNow(host, { fetchPage })));
		expect(ids(next.events)).toEqual([]);
		expect(next.nextState).toMatchObject({ phase: 'following', cursor: 'c:5' });
	});

	it("an activation whose first read was refused starts at the refusal's time by the API's clock: events published before the next read are new", async () => {
		const { feed, fetchPage } = datedFeed(5);
		const busy = new Error('429');
		const refusedAt = msOf(feed.events[4]) + 500;
		const host = msOf(feed.events[4]) - HOUR_MS;
		const failed = await runFeedPoll(
			args(
				feed,
				undefined,
				fromNow(host, {
					fetchPage: async (q) => {
						q.apiTime.dateMs = refusedAt;
						return await Promise.reject(busy);
					},
					isTransient: (e) => e === busy,
				}),
			),
		);
		expect(failed.failure).toBe(busy);
		expect(failed.nextState).toMatchObject({
			phase: 'seekingEnd',
			positionSince: new Date(refusedAt).toISOString(),
			positionSinceByApi: true,
		});
		feed.add(3);
		const next = await runFeedPoll(args(feed, failed.nextState, fromNow(host, { fetchPage })));
		expect(ids(next.events)).toEqual(['evt-5', 'evt-6', 'evt-7']);
	});

	describe('a refused read dates the start only of a Start From Now walk still seeking the end, undated, and failing', () => {
		const refusedAt = Date.parse('2026-03-01T10:00:00.000Z');
		const busy = new Error('429');
		// A position following the feed, as saved by an earlier poll, at the cursor `cursor` of `feed`.
		const following = (cursor: string) => ({
			version: 2,
			filterKey: filterKey({ types: ['*'] }),
			baseUrl: 'https://api.example.test',
			cursor,
			skipThrough: null,
			phase: 'following',
			positionSince: '2026-01-01T00:00:00.000Z',
			lastEventAt: null,
			lastEventId: null,
		});
		// Every cursor is refused at `refusedAt`; the walk it restarts fails on its first read, a minute later.
		const refuseCursorThenFail: FeedPollArgs['fetchPage'] = async (q) => {
			if (q.cursor !== null) {
				q.apiTime.dateMs = refusedAt;
				return CURSOR_INVALID;
			}
			q.apiTime.dateMs = refusedAt + 60_000;
			return await Promise.reject(busy);
		};

		it('a refused cursor counts as the first refused read: a walk restarted by it and then failing starts at its time', async () => {
			const r = await runFeedPoll(
				args(new MemoryFeed(), following('c:5'), {
					startAt: 'now',
					fetchPage: refuseCursorThenFail,
					isTransient: (e) => e === busy,
				}),
			);
			expect(r.failure).toBe(busy);
			expect(noticesOf(r)).toMatchObject([{ reason: 'CURSOR_INVALID' }]);
			expect(r.nextState).toMatchObject({
				phase: 'seekingEnd',
				cursor: null,
				positionSince: new Date(refusedAt).toISOString(),
				positionSinceByApi: true,
			});
		});

		it("a walk restarted by a refused cursor that ends at the deadline without a failure leaves its start to the next read's Date", async () => {
			const host = Date.parse('2026-03-01T09:00:00.000Z');
			const deadline = host + 60_000;
			let clock = host;
			const refusing = new MemoryFeed();
			const r = await runFeedPoll(
				args(refusing, following('c:5'), {
					startAt: 'now',
					now: () => clock,
					deadline,
					fetchPage: async (q) => {
						refusing.requests.push(q);
						// The refusal takes the rest of the poll's time.
						clock = deadline + 1;
						q.apiTime.dateMs = refusedAt;
						return CURSOR_INVALID;
					},
				}),
			);
			expect(refusing.requests).toHaveLength(1);
			expect(r.failure).toBeUndefined();
			expect(r.truncated).toBe(true);
			expect(noticesOf(r)).toMatchObject([{ reason: 'CURSOR_INVALID' }]);
			expect(r.nextState).toMatchObject({
				phase: 'seekingEnd',
				cursor: null,
				positionSince: new Date(deadline + 1).toISOString(),
				positionSinceByApi: false,
			});
			const { feed, fetchPage } = datedFeed(3);
			const next = await runFeedPoll(args(feed, r.nextState, fromNow(host, { fetchPage })));
			expect(next.nextState).toMatchObject({
				phase: 'following',
				positionSince: new Date(msOf(feed.events[2])).toISOString(),
				positionSinceByApi: true,
			});
		});

		it('a Start From Now position that reached the end without a Date keeps its start when a later read fails', async () => {
			const feed = new MemoryFeed();
			feed.add(2);
			const first = await runFeedPoll(args(feed, undefined, { startAt: 'now' }));
			expect(first.nextState).toMatchObject({
				phase: 'following',
				cursor: 'c:2',
				positionSinceByApi: false,
			});
			feed.add(4);
			let reads = 0;
			const r = await runFeedPoll(
				args(feed, first.nextState, {
					startAt: 'now',
					pageSize: 2,
					fetchPage: async (q) => {
						if (reads++ === 0) return await feed.fetchPage(q);
						q.apiTime.dateMs = refusedAt;
						return await Promise.reject(busy);
					},
					isTransient: (e) => e === busy,
				}),
			);
			expect(r.failure).toBe(busy);
			expect(ids(r.events)).toEqual(['evt-2', 'evt-3']);
			expect(r.nextState).toMatchObject({
				phase: 'following',
				cursor: 'c:4',
				positionSince: first.nextState?.positionSince,
				positionSinceByApi: false,
			});
		});

		it("a start already dated by the API's first read is not re-dated by a later transient failure while seeking the end", async () => {
			const { feed, fetchPage: dated } = datedFeed(150);
			let reads = 0;
			const r = await runFeedPoll(
				args(feed, undefined, {
					startAt: 'now',
					fetchPage: async (q) => {
						if (reads++ === 0) return await dated(q);
						q.apiTime.dateMs = refusedAt;
						return await Promise.reject(busy);
					},
					isTransient: (e) => e === busy,
				}),
			);
			expect(r.failure).toBe(busy);
			expect(r.nextState).toMatchObject({
				phase: 'seekingEnd',
				cursor: 'c:100',
				positionSince: new Date(msOf(feed.events[149])).toISOString(),
				positionSinceByApi: true,
			});
		});

		it("a refused cursor after pages read with the API's Date dates the restarted walk at the refusal, not at those reads", async () => {
			const feed = new MemoryFeed();
			feed.add(4);
			const pageDateMs = msOf(feed.events[3]);
			const r = await runFeedPoll(
				args(feed, following('c:0'), {
					startAt: 'now',
					pageSize: 2,
					fetchPage: async (q) => {
						if (q.cursor !== 'c:0') return await refuseCursorThenFail(q);
						q.apiTime.dateMs = pageDateMs;
						return await feed.fetchPage(q);
					},
					isTransient: (e) => e === busy,
				}),
			);
			expect(r.failure).toBe(busy);
			expect(ids(r.events)).toEqual(['evt-0', 'evt-1']);
			expect(r.nextState).toMatchObject({
				phase: 'seekingEnd',
				cursor: null,
				positionSince: new Date(refusedAt).toISOString(),
				positionSinceByApi: true,
			});
		});
	});
});
