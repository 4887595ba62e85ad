/**
 * Dedupe by verified event id (api-spec "Webhook receiver contract" 4: delivery is at least once, retries and manual
 * replays keep the event id).
 *
 * Two copies of what was seen:
 * - the stored list, a bounded LRU kept as a plain JSON array in the node's workflow static data (what survives a
 *   restart and what other webhook processes read; n8n saves static data whole, see docs/triggers.md for where that
 *   stops holding);
 * - the process copy per scope (workflow and node), which also holds the ids in flight.
 *
 * An id counts as seen only once n8n has acknowledged its delivery (`acknowledge`, called when n8n reads the
 * trigger's answer: on n8n 2.x after it created the execution). Until then it is in flight: a copy arriving meanwhile
 * is answered with a retryable status, and when n8n answers anything else (it failed to create the execution) the id
 * is forgotten (`abandon`), so the sender's retry starts the event.
 */

export const DEFAULT_DEDUPE_CAPACITY = 1000;
export const MAX_DEDUPE_CAPACITY = 10000;
/**
 * How long an id stays in flight when n8n never answered (the sender left before n8n created the execution). The
 * sender's next attempts come after about one and five minutes (api-spec "Webhook receiver contract" 6): they are
 * answered 503 meanwhile and the one after this time starts the event, unless n8n acknowledged it by then.
 */
export const IN_FLIGHT_LIMIT_MS = 10 * 60_000;
/** Ids (seen and in flight) this process keeps over all scopes; the least recently used scopes go first. */
export const MAX_PROCESS_IDS = 100_000;
/** The bound in force (tests lower it to check it without filling 100,000 ids). */
export const processLimits = { maxIds: MAX_PROCESS_IDS };

export interface RememberResult {
	duplicate: boolean;
	ids: string[];
}

/** Reads whatever is stored, tolerating absence or damage: only string entries survive. */
export function readSeenIds(stored: unknown): string[] {
	return Array.isArray(stored) ? stored.filter((v): v is string => typeof v === 'string') : [];
}

export function clampCapacity(capacity: number | undefined): number {
	if (capacity === undefined || !Number.isFinite(capacity)) return DEFAULT_DEDUPE_CAPACITY;
	return Math.min(MAX_DEDUPE_CAPACITY, Math.max(1, Math.floor(capacity)));
}

/**
 * Records `eventId` and says whether it was already there. Never mutates `ids`.
 * The result holds at most `capacity` ids; the least recently seen are dropped first.
 */
export function rememberEventId(
	ids: readonly string[],
	eventId: string,
	capacity?: number,
): RememberResult {
	const cap = clampCapacity(capacity);
	const at = ids.indexOf(eventId);
	const next = at >= 0 ? [...ids.slice(0, at), ...ids.slice(at + 1), eventId] : [...ids, eventId];
	while (next.length > cap) next.shift();
	return { duplicate: at >= 0, ids: next };
}

interface Scope {
	/** Acknowledged ids, oldest first (at most the node's capacity). */
	seen: string[];
	/** Ids whose first copy n8n has not acknowledged yet, with when they started. */
	inFlight: Map<string, number>;
}

/** Per scope, in least recently used order (a Map keeps insertion order; a use re-inserts). */
const scopes = new Map<string, Scope>();

function size(scope: Scope): number {
	return scope.seen.length + scope.inFlight.size;
}

function use(key: string): Scope {
	const scope = scopes.get(key) ?? { seen: [], inFlight: new Map<string, number>() };
	scopes.delete(key);
	scopes.set(key, scope);
	return scope;
}

/** Drops the least recently used scopes while the process holds more than MAX_PROCESS_IDS ids. */
function bound(keep: string): void {
	let total = 0;
	for (const scope of scopes.values()) total += size(scope);
	for (const [key, scope] of scopes) {
		if (total <= processLimits.maxIds) break;
		if (key === keep) continue;
		total -= size(scope);
		scopes.delete(key);
	}
}

export type Admission =
	| { verdict: 'duplicate' }
	| { verdict: 'inFlight' }
	| { verdict: 'new'; acknowledge: (stored: readonly string[]) => string[]; abandon: () => void };

/**
 * What to do with a delivery of `eventId` in `scope`: a duplicate (seen here or in the stored list), a copy of an
 * event still in flight, or a new event, admitted as in flight. For a new one, `acknowledge` (n8n accepted it)
 * returns the list to store (the stored list, the process copy and the id, newest kept) and `abandon` (n8n did not)
 * forgets it.
 */
export function admitEvent(
	key: string,
	stored: readonly string[],
	eventId: string,
	capacity?: number,
	now: () => number = Date.now,
): Admission {
	const scope = use(key);
	if (scope.seen.includes(eventId) || stored.includes(eventId)) return { verdict: 'duplicate' };
	const since = scope.inFlight.get(eventId);
	if (since !== undefined && now() - since < IN_FLIGHT_LIMIT_MS) return { verdict: 'inFlight' };
	for (const [id, at] of scope.inFlight) {
		if (now() - at >= IN_FLIGHT_LIMIT_MS) scope.inFlight.delete(id);
	}
	const startedAt = now();
	scope.inFlight.set(eventId, startedAt);
	bound(key);
	let settled = false;
	const leave = (): Scope => {
		settled = true;
		const current = use(key);
		if (current.inFlight.get(eventId) === startedAt) current.inFlight.delete(eventId);
		return current;
	};
	return {
		verdict: 'new',
		acknowledge: (latest) => {
			const current = settled ? use(key) : leave();
			const inSeen = new Set(current.seen);
			// Stored ids the process does not know are older than what it saw itself: they go first (dropped first).
			const union = [...latest.filter((id) => !inSeen.has(id)), ...current.seen];
			const remembered = rememberEventId(union, eventId, capacity);
			current.seen = remembered.ids;
			bound(key);
			return remembered.ids;
		},
		abandon: () => {
			if (!settled) leave();
		},
	};
}

/** Forgets every scope of a workflow's node (called when the workflow is deactivated or deleted). */
export function forgetScope(key: string): void {
	scopes.delete(key);
}

/** Ids the process holds, over all scopes (seen and in flight). */
export function processIdCount(): number {
	let total = 0;
	for (const scope of scopes.values()) total += size(scope);
	return total;
}
