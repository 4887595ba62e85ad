/**
 * The feed trigger's saved position and the notices it emits when that position has to restart, free of n8n
 * types.
 *
 * api-spec "Events feed": filters and workspace are bound to the cursor. The position is therefore tied to what
 * the API binds it to: the server-side filters (the `type` query, sent only when exactly one type is selected, and
 * the report and interview filters), and the account (the base URL is checked here; a key of another workspace
 * makes the API refuse the cursor with 400 INVALID_CURSOR, which restarts the position with a notice). Types
 * filtered locally are not part of the position, so changing them keeps it.
 */

export interface FeedFilters {
	/** Selected event types; empty or containing '*' = all (including unknown future types). */
	types: string[];
	reportId?: string;
	interviewId?: string;
}

export type StartPosition = 'now' | 'oldest';

export interface FeedState {
	version: 2;
	/** The server-side filters this cursor is bound to (see `filterKey`). */
	filterKey: string;
	/** The API base URL the cursor was issued by; null when unknown (a position saved before it was recorded). */
	baseUrl: string | null;
	/** Where the page being read begins; null = the oldest retained event. */
	cursor: string | null;
	/**
	 * The id of the last event already handled on the page that begins at `cursor` (a page that ended without a
	 * next cursor, or a poll that stopped inside a page); re-reading that page skips through it.
	 */
	skipThrough: string | null;
	/** 'seekingEnd' while Start From Now walks to the current end; events that occurred after `positionSince` pass. */
	phase: 'seekingEnd' | 'following';
	/** When this position was started (ISO). */
	positionSince: string;
	/**
	 * false: Start From Now's `positionSince` is still the n8n host's time, to be replaced by the API's own time (the
	 * Date of the walk's first answered read) before any event is compared with it; true once it is the API's.
	 * Absent in positions saved before it was recorded.
	 */
	positionSinceByApi?: boolean;
	/** occurredAt and id of the last event handed to the workflow from this position. */
	lastEventAt: string | null;
	lastEventId: string | null;
	/**
	 * Set when a Start From Now walk restarted from the oldest retained event after its cursor expired: events that
	 * occurred before this moment (the last one delivered) were already handed over, so the walk skips them.
	 */
	walkResumedAfter?: string | null;
}

/** Why a saved position was replaced by a fresh one. */
export type RestartReason = 'FILTERS_CHANGED' | 'BASE_URL_CHANGED' | 'CURSOR_INVALID';

export interface FeedNotice {
	notice: 'EVENT_CURSOR_EXPIRED' | 'FEED_POSITION_RESTARTED';
	reason: 'CURSOR_EXPIRED' | RestartReason;
	message: string;
	/** The last moment up to which events are known to have been delivered from the old position. */
	eventsMayBeMissedSince: string;
	lastEventId: string | null;
	detectedAt: string;
	/** Where the fresh position continues. */
	resumedFrom: 'now' | 'oldestRetained';
}

/** A stable key for the server-side filters a cursor is bound to. */
export function filterKey(filters: FeedFilters): string {
	return JSON.stringify({
		type: serverType(filters) ?? null,
		reportId: filters.reportId ?? null,
		interviewId: filters.interviewId ?? null,
	});
}

/** The server-side `type` filter: only when exactly one concrete type is selected. */
export function serverType(filters: FeedFilters): string | undefined {
	const types = filters.types.includes('*') ? [] : [...new Set(filters.types)];
	return types.length === 1 ? types[0] : undefined;
}

/** A version 1 key listed the selected types; the cursor it guarded was bound to the server-side part only. */
function migrateKey(v1Key: string): string | undefined {
	try {
		const k = JSON.parse(v1Key) as { types?: unknown; reportId?: unknown; interviewId?: unknown };
		const types = Array.isArray(k.types)
			? k.types.filter((t): t is string => typeof t === 'string')
			: [];
		return filterKey({
			types,
			reportId: typeof k.reportId === 'string' ? k.reportId : undefined,
			interviewId: typeof k.interviewId === 'string' ? k.interviewId : undefined,
		});
	} catch {
		return undefined;
	}
}

/** Reads the stored state (either version); anything unrecognisable counts as absent. */
export function readFeedState(stored: unknown): FeedState | undefined {
	if (stored === null || typeof stored !== 'object') return undefined;
	const s = stored as Record<string, unknown>;
	if ((s.version !== 1 && s.version !== 2) || typeof s.filterKey !== 'string') return undefined;
	if (s.cursor !== null && typeof s.cursor !== 'string') return undefined;
	if (s.phase !== 'seekingEnd' && s.phase !== 'following') return undefined;
	const key = s.version === 1 ? migrateKey(s.filterKey) : s.filterKey;
	if (key === undefined) return undefined;
	return {
		version: 2,
		filterKey: key,
		baseUrl: typeof s.baseUrl === 'string' ? s.baseUrl : null,
		cursor: s.cursor,
		skipThrough: typeof s.skipThrough === 'string' ? s.skipThrough : null,
		phase: s.phase,
		positionSince:
			typeof s.positionSince === 'string' ? s.positionSince : new Date(0).toISOString(),
		lastEventAt: typeof s.lastEventAt === 'string' ? s.lastEventAt : null,
		lastEventId: typeof s.lastEventId === 'string' ? s.lastEventId : null,
		...(typeof s.positionSinceByApi === 'boolean'
			? { positionSinceByApi: s.positionSinceByApi }
			: {}),
		...(typeof s.walkResumedAfter === 'string' ? { walkResumedAfter: s.walkResumedAfter } : {}),
	};
}

export function freshState(
	key: string,
	baseUrl: string,
	startAt: StartPosition,
	nowMs: number,
): FeedState {
	return {
		version: 2,
		filterKey: key,
		baseUrl,
		cursor: null,
		skipThrough: null,
		phase: startAt === 'now' ? 'seekingEnd' : 'following',
		positionSince: new Date(nowMs).toISOString(),
		...(startAt === 'now' ? { positionSinceByApi: false } : {}),
		lastEventAt: null,
		lastEventId: null,
	};
}

const RESTART_MESSAGES: Record<RestartReason, string> = {
	FILTERS_CHANGED:
		'The server-side filters changed (a single selected event type, the report or the interview filter), and a feed position is bound to its filters.',
	BASE_URL_CHANGED:
		'The credential now points at another API base URL, where the saved feed position does not exist.',
	CURSOR_INVALID:
		"The API refused the saved feed position as invalid (400 INVALID_CURSOR): the credential's key probably belongs to another workspace now.",
};

/** The notice for a position that restarts, saying what may have been skipped and from when. */
export function restartNotice(
	reason: RestartReason | 'CURSOR_EXPIRED',
	old: FeedState,
	resumedFrom: 'now' | 'oldestRetained',
	nowMs: number,
): FeedNotice {
	const since = old.lastEventAt ?? old.positionSince;
	const effect =
		resumedFrom === 'now'
			? ` The trigger continues with events published from now on: events of the current selection published since ${since} were not delivered. Reconcile current reports and interviews for that gap.`
			: ' The trigger continues from the oldest retained event: events delivered before may be delivered again (deduplicate by id).';
	if (reason === 'CURSOR_EXPIRED') {
		return {
			notice: 'EVENT_CURSOR_EXPIRED',
			reason,
			message:
				'The saved feed position is older than the retained history, so events may have been missed. ' +
				'Reconcile current reports and interviews; the trigger continues from the oldest retained event.',
			eventsMayBeMissedSince: since,
			lastEventId: old.lastEventId,
			detectedAt: new Date(nowMs).toISOString(),
			resumedFrom,
		};
	}
	return {
		notice: 'FEED_POSITION_RESTARTED',
		reason,
		message: RESTART_MESSAGES[reason] + effect,
		eventsMayBeMissedSince: since,
		lastEventId: old.lastEventId,
		detectedAt: new Date(nowMs).toISOString(),
		resumedFrom,
	};
}
