/**
 * Dedupe by verified event id (api-spec "Webhook receiver contract" 4: delivery is at least once,
 * retries and manual replays keep the event id).
 *
 * A bounded LRU kept as a plain JSON array inside the node's workflow static data, so n8n can persist
 * it. Oldest first; a hit moves the id to the end. Pure functions: the trigger reads the array,
 * calls `rememberEventId`, and assigns the returned array back (assignment is what marks n8n's
 * static data as changed).
 */

export const DEFAULT_DEDUPE_CAPACITY = 1000;
export const MAX_DEDUPE_CAPACITY = 10000;

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

/**
 * In-process memory of recently seen ids, per scope (workflow, node and mode), merged with the stored list.
 *
 * n8n loads a webhook workflow's static data from the database for every production request and saves it
 * after answering, so two deliveries handled close together can each read a list that lacks the other, and
 * the later save drops the earlier id. The process keeps its own copy of the list: a delivery is a duplicate
 * when either copy knows its id, and the list saved is the union (newest kept), so the stored list does not
 * lose ids to overlapping saves made by the same n8n process. The stored list is what survives a restart and
 * what other processes (queue mode) share.
 */
const recentByScope = new Map<string, string[]>();

export function rememberAcrossRequests(
	scope: string,
	stored: readonly string[],
	eventId: string,
	capacity?: number,
): RememberResult {
	const local = recentByScope.get(scope) ?? [];
	const inLocal = new Set(local);
	// Stored ids the process does not know are older than what it saw itself: they go first (dropped first).
	const union = [...stored.filter((id) => !inLocal.has(id)), ...local];
	const remembered = rememberEventId(union, eventId, capacity);
	recentByScope.set(scope, remembered.ids);
	return remembered;
}
