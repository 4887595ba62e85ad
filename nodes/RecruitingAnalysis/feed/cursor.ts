// Never mutates the state it is given: the caller stores the state and the items at once (never in manual mode).
import { eventTypeMatches } from '../events/eventTypes';

// The position is tied to what the API binds the cursor to: server-side filters and the base URL; local type filters keep it.
export type FeedFilters = { types: string[]; reportId?: string; interviewId?: string };

export type StartPosition = 'now' | 'oldest';

export interface FeedState {
	version: 2;
	filterKey: string;
	baseUrl: string | null;
	cursor: string | null;
	skipThrough: string | null;
	phase: 'seekingEnd' | 'following';
	positionSince: string;
	// false while positionSince is still the host's time, replaced by the API's before any event is compared with it.
	positionSinceByApi?: boolean;
	lastEventAt: string | null;
	lastEventId: string | null;
	// Events before this moment were handed over before a Start From Now walk restarted, so the walk skips them.
	walkResumedAfter?: string | null;
}

export function filterKey(filters: FeedFilters): string {
	return JSON.stringify({
		type: serverType(filters) ?? null,
		reportId: filters.reportId ?? null,
		interviewId: filters.interviewId ?? null,
	});
}

export function serverType(filters: FeedFilters): string | undefined {
	const types = filters.types.includes('*') ? [] : [...new Set(filters.types)];
	return types.length === 1 ? types[0] : undefined;
}

// Only this code writes the position (JSON in static data): a recognisable one is taken as saved, gaps at their defaults.
export function readFeedState(stored: unknown): FeedState | undefined {
	const s = stored as Partial<FeedState> | null;
	if (s === null || typeof s !== 'object') return undefined;
	if (s.version !== 2 || typeof s.filterKey !== 'string') return undefined;
	if (s.cursor !== null && typeof s.cursor !== 'string') return undefined;
	if (s.phase !== 'seekingEnd' && s.phase !== 'following') return undefined;
	return {
		baseUrl: null,
		skipThrough: null,
		positionSince: new Date(0).toISOString(),
		lastEventAt: null,
		lastEventId: null,
		...s,
	} as FeedState;
}

function freshState(args: FeedPollArgs, key: string, startAt: StartPosition): FeedState {
	return {
		version: 2,
		filterKey: key,
		baseUrl: args.baseUrl,
		cursor: null,
		skipThrough: null,
		phase: startAt === 'now' ? 'seekingEnd' : 'following',
		positionSince: new Date(args.now()).toISOString(),
		...(startAt === 'now' ? { positionSinceByApi: false } : {}),
		lastEventAt: null,
		lastEventId: null,
	};
}

const RESTART_MESSAGES = {
	FILTERS_CHANGED:
		'The server-side filters changed (a single selected event type, the report or the interview filter), and a feed position is bound to its filters.',
	BASE_URL_CHANGED:
		'The credential now points at another API base URL, where the saved feed position does not exist.',
	CURSOR_INVALID:
		"The API refused the saved feed position as invalid (400 INVALID_CURSOR): the credential's key probably belongs to another workspace now.",
};

type FeedNotice = ReturnType<typeof restartNotice>;

export function restartNotice(
	reason: keyof typeof RESTART_MESSAGES | 'CURSOR_EXPIRED',
	old: FeedState,
	resumedFrom: 'now' | 'oldestRetained',
	nowMs: number,
) {
	const since = old.lastEventAt ?? old.positionSince;
	const effect =
		resumedFrom === 'now'
			? ` The trigger continues with events published from now on: events of the current selection published since ${since} were not delivered. Reconcile current reports and interviews for that gap.`
			: ' The trigger continues from the oldest retained event: events delivered before may be delivered again (deduplicate by id).';
	const expired = reason === 'CURSOR_EXPIRED';
	return {
		notice: expired ? 'EVENT_CURSOR_EXPIRED' : 'FEED_POSITION_RESTARTED',
		reason,
		message: expired
			? 'The saved feed position is older than the retained history, so events may have been missed. ' +
				'Reconcile current reports and interviews; the trigger continues from the oldest retained event.'
			: RESTART_MESSAGES[reason] + effect,
		eventsMayBeMissedSince: since,
		lastEventId: old.lastEventId,
		detectedAt: new Date(nowMs).toISOString(),
		resumedFrom,
	};
}

export type FeedEvent = Record<string, unknown>;

export type FeedPage = { items: FeedEvent[]; nextCursor: string | null; hasMore: boolean };

export const CURSOR_EXPIRED = 'CURSOR_EXPIRED' as const;
export const CURSOR_INVALID = 'CURSOR_INVALID' as const;

export const MAX_PAGE_SIZE = 100;
// The rest of Start From Now's walk continues on the next polls.
export const SEEK_PAGES_PER_POLL = 20;
export const RETENTION_MS = 30 * 24 * 60 * 60_000;
export const RESOURCE_READ_CONCURRENCY = 5;

export interface FeedPollArgs {
	stored: unknown;
	filters: FeedFilters;
	baseUrl: string;
	startAt: StartPosition;
	maxEvents: number;
	pageSize: number;
	now: () => number;
	deadline: number;
	// apiTime receives the API's time (its Date header) of every answer, a refusal too.
	fetchPage: (q: {
		cursor: string | null;
		limit: number;
		type?: string;
		apiTime: { dateMs?: number };
	}) => Promise<FeedPage | typeof CURSOR_EXPIRED | typeof CURSOR_INVALID>;
	enrich?: (event: FeedEvent) => Promise<Record<string, unknown>>;
	isTransient?: (error: unknown) => boolean;
	seekPagesPerPoll?: number;
}

// NaN is never "after" anything.
function occurredMs(event: FeedEvent): number {
	return typeof event.occurredAt === 'string' ? Date.parse(event.occurredAt) : Number.NaN;
}

function alreadyWalked(event: FeedEvent, state: FeedState): boolean {
	const after = Date.parse(state.walkResumedAfter ?? '');
	const at = occurredMs(event);
	return at < after || (at === after && idOf(event) === state.lastEventId);
}

function idOf(event: FeedEvent | undefined): string | null {
	return event !== undefined && typeof event.id === 'string' ? event.id : null;
}

// Each read started is awaited, so the rest can wait for the next poll.
async function enrichPrefix(events: FeedEvent[], args: FeedPollArgs): Promise<number> {
	const enrich = args.enrich;
	if (!enrich) return events.length;
	let next = 0;
	const worker = async () => {
		while (next < events.length && args.now() <= args.deadline) {
			const event = events[next++];
			Object.assign(event, await enrich(event));
		}
	};
	await Promise.all(
		Array.from({ length: Math.min(RESOURCE_READ_CONCURRENCY, events.length) }, worker),
	);
	return next;
}

export async function runFeedPoll(args: FeedPollArgs) {
	const key = filterKey(args.filters);
	const type = serverType(args.filters);
	const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(args.pageSize)));
	const maxEvents = Math.max(1, Math.floor(args.maxEvents));
	const seekPages = Math.max(1, args.seekPagesPerPoll ?? SEEK_PAGES_PER_POLL);
	const resumedFrom = args.startAt === 'now' ? 'now' : 'oldestRetained';
	const stored = readFeedState(args.stored);
	let state = stored ? { ...stored, baseUrl: args.baseUrl } : freshState(args, key, args.startAt);
	const items: Array<FeedEvent | FeedNotice> = [];
	const restart =
		stored && stored.baseUrl !== null && stored.baseUrl !== args.baseUrl
			? 'BASE_URL_CHANGED'
			: stored && stored.filterKey !== key
				? 'FILTERS_CHANGED'
				: undefined;
	if (stored && restart) {
		items.push(restartNotice(restart, stored, resumedFrom, args.now()));
		state = freshState(args, key, args.startAt);
	}
	const events: FeedEvent[] = [];
	let truncated = false;
	let failure: unknown;
	let seekPagesRead = 0;
	let firstRefusalMs: number | undefined;

	for (;;) {
		const seeking = state.phase === 'seekingEnd';
		truncated =
			events.length >= maxEvents ||
			args.now() > args.deadline ||
			(seeking && seekPagesRead >= seekPages);
		if (truncated) break;
		const apiTime: { dateMs?: number } = {};
		const outcome = await args
			.fetchPage({ cursor: state.cursor, limit: seeking ? MAX_PAGE_SIZE : pageSize, type, apiTime })
			.then(
				(answer) => ({ answer }),
				(error: unknown) => ({ error }),
			);
		if ('error' in outcome || typeof outcome.answer === 'string') firstRefusalMs ??= apiTime.dateMs;
		if ('error' in outcome) {
			// A transient failure while seeking the end keeps the walk's progress instead of failing.
			if (events.length > 0 || (seeking && args.isTransient?.(outcome.error) === true)) {
				failure = outcome.error;
				break;
			}
			return await Promise.reject(outcome.error);
		}
		const page = outcome.answer;
		if (seeking) seekPagesRead++;
		if (page === CURSOR_EXPIRED || page === CURSOR_INVALID) {
			if (state.cursor === null)
				throw new RangeError(`fetchPage answered ${page} for a request without a cursor`);
			if (page === CURSOR_EXPIRED && seeking) {
				// Everything retained lies after the expired cursor, so the walk restarts from the oldest with the same start: history stays history.
				if (args.now() - Date.parse(state.positionSince) >= RETENTION_MS)
					items.push(restartNotice('CURSOR_EXPIRED', state, 'oldestRetained', args.now()));
				state.walkResumedAfter = state.lastEventAt ?? state.walkResumedAfter ?? null;
				state.cursor = null;
				state.skipThrough = null;
			} else if (page === CURSOR_EXPIRED) {
				items.push(restartNotice('CURSOR_EXPIRED', state, 'oldestRetained', args.now()));
				state = freshState(args, key, 'oldest');
			} else {
				items.push(restartNotice('CURSOR_INVALID', state, resumedFrom, args.now()));
				state = freshState(args, key, args.startAt);
			}
			continue;
		}

		const pageItems = Array.isArray(page.items) ? page.items : [];
		// Start From Now's start is told by the API's clock alone (the first read's Date), never the host's.
		const firstRead =
			seeking && state.positionSinceByApi === false && Number.isFinite(apiTime.dateMs);
		if (firstRead) {
			const shown = pageItems.map(occurredMs).filter(Number.isFinite);
			const since = Math.max(Number(apiTime.dateMs), ...shown);
			state = { ...state, positionSince: new Date(since).toISOString(), positionSinceByApi: true };
		}
		// A page re-read from the same start skips what was already handled on it.
		const skipAt =
			state.skipThrough === null ? -1 : pageItems.findIndex((e) => idOf(e) === state.skipThrough);
		const from = skipAt + 1;
		const candidates: Array<{ index: number; event: FeedEvent }> = [];
		for (let i = from; i < pageItems.length; i++) {
			const event = pageItems[i];
			if (!eventTypeMatches(event.type, args.filters.types)) continue;
			if (seeking && (firstRead || !(occurredMs(event) > Date.parse(state.positionSince))))
				continue;
			// After a restarted walk, what was delivered before it is not new (same moment passes, except that event).
			if (alreadyWalked(event, state)) continue;
			candidates.push({ index: i, event: { ...event } });
		}
		const room = candidates.slice(0, maxEvents - events.length);
		const done = await enrichPrefix(
			room.map((c) => c.event),
			args,
		);
		for (const { event } of room.slice(0, done)) {
			events.push(event);
			items.push(event);
			if (typeof event.occurredAt === 'string') state.lastEventAt = event.occurredAt;
			if (typeof event.id === 'string') state.lastEventId = event.id;
		}

		if (done < candidates.length) {
			// Stopped inside this page: the next poll re-reads it from the same start and skips what was handled.
			const handledThrough = candidates[done].index - 1;
			if (handledThrough >= from) state.skipThrough = idOf(pageItems[handledThrough]);
			truncated = true;
			break;
		}
		if (typeof page.nextCursor === 'string' && page.nextCursor.length > 0) {
			state.cursor = page.nextCursor;
			state.skipThrough = null;
		} else {
			// `nextCursor: null` ends the list: keep the page's start and remember its last event.
			state.skipThrough = idOf(pageItems[pageItems.length - 1]) ?? state.skipThrough;
		}
		if (!page.hasMore) {
			if (seeking) {
				state.phase = 'following';
				delete state.walkResumedAfter;
			}
			break;
		}
		if (typeof page.nextCursor !== 'string' || page.nextCursor.length === 0) break; // no way forward
	}

	// Start From Now whose first read was refused starts at the refusal's time by the API's clock, so events
	// published before the next read succeeds are not taken for history.
	if (
		failure !== undefined &&
		state.phase === 'seekingEnd' &&
		state.positionSinceByApi === false &&
		firstRefusalMs !== undefined
	) {
		state.positionSince = new Date(firstRefusalMs).toISOString();
		state.positionSinceByApi = true;
	}
	return {
		items,
		events,
		nextState: JSON.stringify(stored) === JSON.stringify(state) ? undefined : state,
		truncated,
		failure,
	};
}

export async function readLatestEvents(
	args: Pick<FeedPollArgs, 'filters' | 'now' | 'deadline' | 'fetchPage'> & {
		count: number;
		maxPages: number;
	},
): Promise<{ events: FeedEvent[]; complete: boolean }> {
	const type = serverType(args.filters);
	const count = Math.max(1, Math.floor(args.count));
	let latest: FeedEvent[] = [];
	let cursor: string | null = null;
	for (let pages = 0; pages < args.maxPages; pages++) {
		if (args.now() > args.deadline) return { events: latest, complete: false };
		const page = await args.fetchPage({ cursor, limit: MAX_PAGE_SIZE, type, apiTime: {} });
		// Retention moved past this read while it ran: what was read so far is still the latest.
		if (page === CURSOR_EXPIRED || page === CURSOR_INVALID)
			return { events: latest, complete: false };
		for (const item of Array.isArray(page.items) ? page.items : []) {
			if (eventTypeMatches(item.type, args.filters.types)) latest.push(item);
		}
		if (latest.length > count) latest = latest.slice(latest.length - count);
		if (!page.hasMore || typeof page.nextCursor !== 'string')
			return { events: latest, complete: true };
		cursor = page.nextCursor;
	}
	return { events: latest, complete: false };
}
