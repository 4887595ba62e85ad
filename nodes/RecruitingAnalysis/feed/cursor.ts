/**
 * Cursor bookkeeping for the event-feed trigger (GET /api/v1/events), free of n8n types.
 *
 * api-spec "Events feed": start without a cursor and keep the returned position; filters are bound
 * to the cursor; process items before saving `nextCursor`; drain `hasMore`; durable publication order.
 * api-spec "Pull feed retention": a cursor older than the retained history answers 410
 * EVENT_CURSOR_EXPIRED; reconcile, then start a fresh position.
 *
 * The node keeps one `FeedState` in its workflow static data. `runFeedPoll` never mutates the state it
 * is given; it returns the state to store (or `undefined` when nothing changed), so the caller decides
 * whether to write (never in manual mode).
 */
import { eventTypeMatches } from '../events/eventTypes';

export interface FeedFilters {
	/** Selected event types; empty = all (including unknown future types). */
	types: string[];
	reportId?: string;
	interviewId?: string;
}

export interface FeedEvent {
	id?: unknown;
	type?: unknown;
	occurredAt?: unknown;
	[key: string]: unknown;
}

export interface FeedPage {
	items: FeedEvent[];
	nextCursor: string | null;
	hasMore: boolean;
}

export type StartPosition = 'now' | 'oldest';

export interface FeedState {
	version: 1;
	/** The filters this cursor is bound to (see `filterKey`). */
	filterKey: string;
	/** Where the next read continues; null = the oldest retained event. */
	cursor: string | null;
	/** 'seekingEnd' while the first activation walks to the current end without emitting. */
	phase: 'seekingEnd' | 'following';
	/** When this position was started (ISO), for the "missed since" notice. */
	positionSince: string;
	/** occurredAt and id of the last event handed to the workflow from this position. */
	lastEventAt: string | null;
	lastEventId: string | null;
}

export interface CursorExpiredNotice {
	notice: 'EVENT_CURSOR_EXPIRED';
	message: string;
	/** The last moment up to which events are known to have been delivered. */
	eventsMayBeMissedSince: string;
	lastEventId: string | null;
	detectedAt: string;
	/** The fresh position continues from the oldest retained event. */
	resumedFrom: 'oldestRetained';
}

export interface FeedPollResult {
	events: FeedEvent[];
	notices: CursorExpiredNotice[];
	/** The state to store, or undefined when it did not change. */
	nextState: FeedState | undefined;
	/** True when the per-poll cap or the time budget stopped the drain before the end. */
	truncated: boolean;
}

export interface FeedPollArgs {
	stored: unknown;
	filters: FeedFilters;
	startAt: StartPosition;
	/** At most this many events per poll (the rest is left for the next poll). */
	maxEvents: number;
	/** Page size asked of the API, 1 to 100. */
	pageSize: number;
	/** Milliseconds since the epoch; reads stop being started after `deadline`. */
	now: () => number;
	deadline: number;
	/**
	 * One GET /api/v1/events (`type` only when a server-side type filter applies). Answers
	 * `CURSOR_EXPIRED` for 410 EVENT_CURSOR_EXPIRED on a request that carried a cursor; other failures reject.
	 */
	fetchPage: (q: { cursor: string | null; limit: number; type?: string }) => Promise<FeedPage | typeof CURSOR_EXPIRED>;
}

/** What `fetchPage` answers when the API says 410 EVENT_CURSOR_EXPIRED. */
export const CURSOR_EXPIRED = 'CURSOR_EXPIRED' as const;

export const MAX_PAGE_SIZE = 100;

/** A stable key for the filters a cursor is bound to. */
export function filterKey(filters: FeedFilters): string {
	const types = filters.types.includes('*') ? [] : [...new Set(filters.types)].sort();
	return JSON.stringify({ types, reportId: filters.reportId ?? null, interviewId: filters.interviewId ?? null });
}

/** Reads the stored state; anything unrecognisable counts as absent. */
export function readFeedState(stored: unknown): FeedState | undefined {
	if (stored === null || typeof stored !== 'object') return undefined;
	const s = stored as Record<string, unknown>;
	if (s.version !== 1 || typeof s.filterKey !== 'string') return undefined;
	if (s.cursor !== null && typeof s.cursor !== 'string') return undefined;
	if (s.phase !== 'seekingEnd' && s.phase !== 'following') return undefined;
	return {
		version: 1,
		filterKey: s.filterKey,
		cursor: s.cursor,
		phase: s.phase,
		positionSince: typeof s.positionSince === 'string' ? s.positionSince : new Date(0).toISOString(),
		lastEventAt: typeof s.lastEventAt === 'string' ? s.lastEventAt : null,
		lastEventId: typeof s.lastEventId === 'string' ? s.lastEventId : null,
	};
}

export function freshState(key: string, startAt: StartPosition, nowMs: number): FeedState {
	return {
		version: 1,
		filterKey: key,
		cursor: null,
		phase: startAt === 'now' ? 'seekingEnd' : 'following',
		positionSince: new Date(nowMs).toISOString(),
		lastEventAt: null,
		lastEventId: null,
	};
}

function sameState(a: FeedState | undefined, b: FeedState): boolean {
	return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** The server-side `type` filter: only when exactly one concrete type is selected. */
function serverType(filters: FeedFilters): string | undefined {
	const types = filters.types.includes('*') ? [] : [...new Set(filters.types)];
	return types.length === 1 ? types[0] : undefined;
}

/**
 * One poll of an active trigger: continue from the stored position (or start one), drain pages in
 * order up to `maxEvents`, recover from 410 by starting again at the oldest retained event with a
 * notice saying since when events may have been missed.
 */
export async function runFeedPoll(args: FeedPollArgs): Promise<FeedPollResult> {
	const key = filterKey(args.filters);
	const stored = readFeedState(args.stored);
	let state: FeedState =
		stored && stored.filterKey === key ? { ...stored } : freshState(key, args.startAt, args.now());
	const type = serverType(args.filters);
	const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(args.pageSize)));
	const maxEvents = Math.max(1, Math.floor(args.maxEvents));
	const events: FeedEvent[] = [];
	const notices: CursorExpiredNotice[] = [];
	let truncated = false;

	for (;;) {
		const seeking = state.phase === 'seekingEnd';
		if (!seeking && events.length >= maxEvents) {
			truncated = true;
			break;
		}
		if (args.now() > args.deadline) {
			truncated = true;
			break;
		}
		const limit = seeking ? MAX_PAGE_SIZE : Math.min(pageSize, maxEvents - events.length);
		const page = await args.fetchPage({ cursor: state.cursor, limit, type });
		if (page === CURSOR_EXPIRED) {
			if (state.cursor === null) throw new RangeError('fetchPage answered CURSOR_EXPIRED for a request without a cursor');
			const detectedAt = new Date(args.now()).toISOString();
			notices.push({
				notice: 'EVENT_CURSOR_EXPIRED',
				message:
					'The saved feed position is older than the retained history, so events may have been missed. ' +
					'Reconcile current reports and interviews; the trigger continues from the oldest retained event.',
				eventsMayBeMissedSince: state.lastEventAt ?? state.positionSince,
				lastEventId: state.lastEventId,
				detectedAt,
				resumedFrom: 'oldestRetained',
			});
			state = { ...freshState(key, 'oldest', args.now()), positionSince: detectedAt };
			continue;
		}

		const items = Array.isArray(page.items) ? page.items : [];
		if (!seeking) {
			for (const item of items) {
				const itemType = typeof item.type === 'string' ? item.type : '';
				if (!eventTypeMatches(itemType, args.filters.types)) continue;
				events.push(item);
				if (typeof item.occurredAt === 'string') state.lastEventAt = item.occurredAt;
				if (typeof item.id === 'string') state.lastEventId = item.id;
			}
		}
		// Keep the returned position; a page without one leaves the position where it was.
		if (typeof page.nextCursor === 'string' && page.nextCursor.length > 0) state.cursor = page.nextCursor;
		if (!page.hasMore) {
			if (seeking) state.phase = 'following';
			break;
		}
		if (typeof page.nextCursor !== 'string' || page.nextCursor.length === 0) break; // no way forward
	}

	return { events, notices, nextState: sameState(stored, state) ? undefined : state, truncated };
}

/**
 * Manual mode: the latest events for the current filters, read from the oldest retained event,
 * without touching any stored state.
 */
export async function readLatestEvents(args: {
	filters: FeedFilters;
	count: number;
	now: () => number;
	deadline: number;
	maxPages: number;
	fetchPage: FeedPollArgs['fetchPage'];
}): Promise<{ events: FeedEvent[]; complete: boolean }> {
	const type = serverType(args.filters);
	const count = Math.max(1, Math.floor(args.count));
	let latest: FeedEvent[] = [];
	let cursor: string | null = null;
	for (let pages = 0; pages < args.maxPages; pages++) {
		if (args.now() > args.deadline) return { events: latest, complete: false };
		const page = await args.fetchPage({ cursor, limit: MAX_PAGE_SIZE, type });
		// Retention moved past this read while it ran: what was read so far is still the latest.
		if (page === CURSOR_EXPIRED) return { events: latest, complete: false };
		for (const item of Array.isArray(page.items) ? page.items : []) {
			const itemType = typeof item.type === 'string' ? item.type : '';
			if (eventTypeMatches(itemType, args.filters.types)) latest.push(item);
		}
		if (latest.length > count) latest = latest.slice(latest.length - count);
		if (!page.hasMore || typeof page.nextCursor !== 'string') return { events: latest, complete: true };
		cursor = page.nextCursor;
	}
	return { events: latest, complete: false };
}
