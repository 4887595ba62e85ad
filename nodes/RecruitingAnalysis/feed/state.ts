// The position is tied to what the API binds the cursor to: server-side filters and the base URL; local type filters keep it.

export interface FeedFilters {
	types: string[];
	reportId?: string;
	interviewId?: string;
}

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

export type RestartReason = 'FILTERS_CHANGED' | 'BASE_URL_CHANGED' | 'CURSOR_INVALID';

export interface FeedNotice {
	notice: 'EVENT_CURSOR_EXPIRED' | 'FEED_POSITION_RESTARTED';
	reason: 'CURSOR_EXPIRED' | RestartReason;
	message: string;
	eventsMayBeMissedSince: string;
	lastEventId: string | null;
	detectedAt: string;
	resumedFrom: 'now' | 'oldestRetained';
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

export function readFeedState(stored: unknown): FeedState | undefined {
	if (stored === null || typeof stored !== 'object') return undefined;
	const s = stored as Record<string, unknown>;
	if (s.version !== 2 || typeof s.filterKey !== 'string') return undefined;
	if (s.cursor !== null && typeof s.cursor !== 'string') return undefined;
	if (s.phase !== 'seekingEnd' && s.phase !== 'following') return undefined;
	return {
		version: 2,
		filterKey: s.filterKey,
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
