/**
 * Dedupe by verified event id (api-spec "Webhook receiver contract" 4: delivery is at least once, retries and manual
 * replays keep the event id).
 *
 * Two copies of what was seen:
 * - the stored list, a bounded list kept as plain JSON arrays in the node's workflow static data (what survives a
 *   restart and what other webhook processes read; n8n saves static data whole, with no compare-and-set, see
 *   docs/triggers.md for where that stops holding);
 * - the process copy per scope (workflow and node), which also holds the ids in flight.
 *
 * Each remembered id carries its place in the order of acknowledgements: a counter one above the highest place this
 * process knows of, stored or its own (a logical clock; no wall clock of any process takes part). Merging the stored
 * list with the process copy keeps, per id, its highest place, and the capacity keeps the highest places. So what one
 * process acknowledges never pushes out ids another process acknowledged more recently, and ids lost when two
 * processes saved at the same moment come back with their own place at this process's next acknowledgement.
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

/** The stored list: ids by ascending place in the order of acknowledgements, and each id's place. */
export interface SeenList {
	ids: string[];
	order: number[];
}

/**
 * Reads the stored ids and their places, tolerating absence or damage. A list saved without places (before they
 * were kept), or whose places do not match its ids one to one, takes its array positions as places.
 */
export function readSeenList(storedIds: unknown, storedOrder: unknown): SeenList {
	if (!Array.isArray(storedIds)) return { ids: [], order: [] };
	const places =
		Array.isArray(storedOrder) &&
		storedOrder.length === storedIds.length &&
		storedOrder.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n > 0)
			? (storedOrder as number[])
			: storedIds.map((_, i) => i + 1);
	const list: SeenList = { ids: [], order: [] };
	storedIds.forEach((id, i) => {
		if (typeof id !== 'string') return;
		list.ids.push(id);
		list.order.push(places[i]);
	});
	return list;
}

/** A plain list of ids (oldest first) as a stored list whose places are the positions. */
function asSeenList(stored: SeenList | readonly string[]): SeenList {
	return Array.isArray(stored) ? readSeenList(stored, undefined) : (stored as SeenList);
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
	/** Acknowledged ids with their places (at most the node's capacity). */
	seen: Map<string, number>;
	/** Ids whose first copy n8n has not acknowledged yet, with when they started. */
	inFlight: Map<string, number>;
}

/** Per scope, in least recently used order (a Map keeps insertion order; a use re-inserts). */
const scopes = new Map<string, Scope>();

function size(scope: Scope): number {
	return scope.seen.size + scope.inFlight.size;
}

function use(key: string): Scope {
	const scope = scopes.get(key) ?? {
		seen: new Map<string, number>(),
		inFlight: new Map<string, number>(),
	};
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
	| { verdict: 'new'; acknowledge: (stored: SeenList) => SeenList; abandon: () => void };

/**
 * The stored list and the process copy merged, `eventId` placed one above the highest place either knows, and the
 * `capacity` highest places kept (ties broken by id, so that every process keeps the same ones).
 */
export function mergeSeen(
	stored: SeenList,
	own: ReadonlyMap<string, number>,
	eventId: string,
	capacity?: number,
): SeenList {
	const cap = clampCapacity(capacity);
	const merged = new Map<string, number>();
	let top = 0;
	stored.ids.forEach((id, i) => {
		const place = stored.order[i];
		if ((merged.get(id) ?? 0) < place) merged.set(id, place);
		if (place > top) top = place;
	});
	for (const [id, place] of own) {
		if ((merged.get(id) ?? 0) < place) merged.set(id, place);
		if (place > top) top = place;
	}
	merged.set(eventId, top + 1);
	const entries = [...merged].sort((a, b) =>
		a[1] !== b[1] ? a[1] - b[1] : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0,
	);
	const kept = entries.slice(Math.max(0, entries.length - cap));
	return { ids: kept.map((e) => e[0]), order: kept.map((e) => e[1]) };
}

/**
 * What to do with a delivery of `eventId` in `scope`: a duplicate (seen here or in the stored list), a copy of an
 * event still in flight, or a new event, admitted as in flight. For a new one, `acknowledge` (n8n accepted it)
 * returns the list to store (the stored list, the process copy and the id, newest kept) and `abandon` (n8n did not)
 * forgets it.
 */
export function admitEvent(
	key: string,
	stored: SeenList | readonly string[],
	eventId: string,
	capacity?: number,
	now: () => number = Date.now,
): Admission {
	const scope = use(key);
	if (scope.seen.has(eventId) || asSeenList(stored).ids.includes(eventId))
		return { verdict: 'duplicate' };
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
			const remembered = mergeSeen(asSeenList(latest), current.seen, eventId, capacity);
			current.seen = new Map(remembered.ids.map((id, i) => [id, remembered.order[i]]));
			bound(key);
			return remembered;
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
