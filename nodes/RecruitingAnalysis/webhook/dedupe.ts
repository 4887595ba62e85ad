// Each id carries its place in the order of acknowledgements (a logical clock, no wall clock), so one process never
// pushes out ids another acknowledged more recently; an id counts as seen only once n8n acknowledged its delivery.

export const DEFAULT_DEDUPE_CAPACITY = 1000;
export const MAX_DEDUPE_CAPACITY = 10000;
// The sender retries after about one and five minutes: answered 503 meanwhile, the one after this starts the event.
export const IN_FLIGHT_LIMIT_MS = 10 * 60_000;
export const MAX_PROCESS_IDS = 100_000;
export const processLimits = { maxIds: MAX_PROCESS_IDS };

export interface SeenList {
	ids: string[];
	order: number[];
}

// A list saved without places, or whose places do not match its ids, takes its array positions as places.
export function readSeenList(storedIds: unknown, storedOrder: unknown): SeenList {
	if (!Array.isArray(storedIds)) return { ids: [], order: [] };
	const places =
		Array.isArray(storedOrder) &&
		storedOrder.length === storedIds.length &&
		storedOrder.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n > 0)
			? (storedOrder as number[])
			: storedIds.map((_, i) => i + 1);
	const kept = storedIds.flatMap((id, i) => (typeof id === 'string' ? [i] : []));
	return { ids: kept.map((i) => storedIds[i] as string), order: kept.map((i) => places[i]) };
}

export function clampCapacity(capacity: number | undefined): number {
	if (capacity === undefined || !Number.isFinite(capacity)) return DEFAULT_DEDUPE_CAPACITY;
	return Math.min(MAX_DEDUPE_CAPACITY, Math.max(1, Math.floor(capacity)));
}

interface Scope {
	seen: Map<string, number>;
	inFlight: Map<string, number>;
}

const scopes = new Map<string, Scope>();

function use(key: string): Scope {
	const scope: Scope = scopes.get(key) ?? { seen: new Map(), inFlight: new Map() };
	scopes.delete(key);
	scopes.set(key, scope);
	return scope;
}

function bound(keep: string): void {
	let total = processIdCount();
	for (const [key, scope] of scopes) {
		if (total <= processLimits.maxIds) break;
		if (key === keep) continue;
		total -= scope.seen.size + scope.inFlight.size;
		scopes.delete(key);
	}
}

// Ties broken by id, so that every process keeps the same ones.
export function mergeSeen(
	stored: SeenList,
	own: ReadonlyMap<string, number>,
	eventId: string,
	capacity?: number,
): SeenList {
	const cap = clampCapacity(capacity);
	const merged = new Map<string, number>();
	let top = 0;
	for (const [id, place] of [
		...stored.ids.map((id, i) => [id, stored.order[i]] as const),
		...own,
	]) {
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

export function admitEvent(
	key: string,
	storedIds: readonly string[],
	eventId: string,
	capacity?: number,
	now = Date.now,
) {
	const scope = use(key);
	if (scope.seen.has(eventId) || storedIds.includes(eventId))
		return { verdict: 'duplicate' } as const;
	const since = scope.inFlight.get(eventId);
	if (since !== undefined && now() - since < IN_FLIGHT_LIMIT_MS)
		return { verdict: 'inFlight' } as const;
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
		verdict: 'new' as const,
		acknowledge: (latest: SeenList) => {
			const current = settled ? use(key) : leave();
			const remembered = mergeSeen(latest, current.seen, eventId, capacity);
			current.seen = new Map(remembered.ids.map((id, i) => [id, remembered.order[i]]));
			bound(key);
			return remembered;
		},
		abandon: () => {
			if (!settled) leave();
		},
	};
}

export function forgetScope(key: string): void {
	scopes.delete(key);
}

export function processIdCount(): number {
	let total = 0;
	for (const scope of scopes.values()) total += scope.seen.size + scope.inFlight.size;
	return total;
}
