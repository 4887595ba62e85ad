import {
	admitEvent,
	clampCapacity,
	DEFAULT_DEDUPE_CAPACITY,
	forgetScope,
	IN_FLIGHT_LIMIT_MS,
	MAX_PROCESS_IDS,
	processLimits,
	processIdCount,
	mergeSeen,
	readSeenList,
	type SeenList,
} from '../../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	currentSecrets,
	forgetSecrets,
	keptSecretScopes,
	MAX_SECRET_SCOPES,
} from '../../../nodes/RecruitingAnalysis/webhook/secrets';
import { EVENT_TYPES, eventTypeMatches } from '../../../nodes/RecruitingAnalysis/events/eventTypes';
import {
	checkAttempt,
	resourceRequestFor,
} from '../../../nodes/RecruitingAnalysis/events/resource';

describe('dedupe capacity', () => {
	it('clamps the capacity to 1..10000 with a default', () => {
		expect(clampCapacity(undefined)).toBe(DEFAULT_DEDUPE_CAPACITY);
		expect(clampCapacity(0)).toBe(1);
		expect(clampCapacity(1e9)).toBe(10000);
		expect(clampCapacity(Number.NaN)).toBe(DEFAULT_DEDUPE_CAPACITY);
	});
});

describe('event types', () => {
	it('lists every event type of the spec once', () => {
		expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
		expect(EVENT_TYPES).toHaveLength(15);
		expect(EVENT_TYPES).toContain('interview.invitation_failed');
		expect(EVENT_TYPES).not.toContain('report.archived');
	});

	it('"all" (empty or *) passes unknown future types; a concrete selection does not', () => {
		expect(eventTypeMatches('report.archived', [])).toBe(true);
		expect(eventTypeMatches('report.archived', ['*'])).toBe(true);
		expect(eventTypeMatches('report.archived', ['report.completed'])).toBe(false);
		expect(eventTypeMatches('report.completed', ['report.completed', 'batch.completed'])).toBe(
			true,
		);
	});
});

describe('the resource an event names', () => {
	const ev = (type: string, data: Record<string, unknown> = {}) => ({
		id: 'e',
		type,
		schemaVersion: 1,
		data,
	});

	it.each([
		[
			'report.result_ready',
			{ reportId: 'rpt_1', attemptId: 'att_1' },
			'reportResult',
			'/api/v1/reports/{}/result',
			['rpt_1'],
		],
		[
			'report.completed',
			{ reportId: 'rpt_1' },
			'reportStatus',
			'/api/v1/reports/{}/status',
			['rpt_1'],
		],
		[
			'report.failed',
			{ reportId: 'rpt_1' },
			'reportStatus',
			'/api/v1/reports/{}/status',
			['rpt_1'],
		],
		[
			'interview.result_ready',
			{ interviewId: 'int_1' },
			'interviewResult',
			'/api/v1/interviews/{}/result',
			['int_1'],
		],
		[
			'interview.started',
			{ interviewId: 'int_1' },
			'interviewStatus',
			'/api/v1/interviews/{}/status',
			['int_1'],
		],
		[
			'batch.completed',
			{ batchId: 'bat_1', kind: 'analyses' },
			'batch',
			'/api/v1/analysis-batches/{}',
			['bat_1'],
		],
		[
			'batch.completed',
			{ batchId: 'bat_1', kind: 'uploads' },
			'batch',
			'/api/v1/upload-batches/{}',
			['bat_1'],
		],
	])('%s → %s', (type, data, kind, template, ids) => {
		expect(resourceRequestFor(ev(type, data))).toEqual({ kind, template, ids });
	});

	it.each([
		['report.deleted', {}],
		['webhook.test', { test: true }],
		['report.completed', {}],
		['batch.completed', { batchId: 'bat_1', kind: 'unknown' }],
		['future.thing', { reportId: 'rpt_1' }],
	])('%s with %p names nothing to read', (type, data) => {
		expect(resourceRequestFor(ev(type, data))).toBeNull();
	});

	it('flags a delayed report event for an older attempt', () => {
		const event = ev('report.completed', { reportId: 'rpt_1', attemptId: 'att_old' });
		expect(checkAttempt(event, { id: 'rpt_1', attemptId: 'att_new' })).toEqual({
			eventAttemptId: 'att_old',
			currentAttemptId: 'att_new',
			isCurrent: false,
		});
		expect(checkAttempt(event, { id: 'rpt_1', attemptId: 'att_old' })?.isCurrent).toBe(true);
		expect(
			checkAttempt(ev('interview.started', { interviewId: 'int_1' }), { attemptId: 'x' }),
		).toBeUndefined();
	});
});

function admitted(key: string, stored: SeenList | string[], id: string, capacity?: number) {
	const admission = admitEvent(key, Array.isArray(stored) ? stored : stored.ids, id, capacity);
	if (admission.verdict !== 'new')
		throw new Error(`expected a new event, got ${admission.verdict}`);
	return admission;
}

/** A stored list saved before places were kept: its positions are its places. */
const plain = (ids: string[]): SeenList => readSeenList(ids, undefined);
const none = (): SeenList => plain([]);

describe('admitEvent (stored list merged with the process copy; seen only once acknowledged)', () => {
	it('two deliveries that both loaded the same stored list: the later save still holds both ids', () => {
		const scope = `overlap-${Math.random()}`;
		const storedBefore = plain(['old-1']);
		// Both requests read the database before either saved.
		const first = admitted(scope, storedBefore, 'evt-a');
		const second = admitted(scope, storedBefore, 'evt-b');
		expect(first.acknowledge(storedBefore).ids).toEqual(['old-1', 'evt-a']);
		// The later save wins in n8n; it must not drop evt-a.
		expect(second.acknowledge(storedBefore).ids).toEqual(['old-1', 'evt-a', 'evt-b']);
	});

	it('a copy arriving with a stale stored list after the first was acknowledged is a duplicate', () => {
		const scope = `stale-${Math.random()}`;
		admitted(scope, [], 'evt-x').acknowledge(none());
		expect(admitEvent(scope, [], 'evt-x').verdict).toBe('duplicate');
	});

	it('a copy arriving while the first is not acknowledged yet is in flight, not a duplicate', () => {
		const scope = `inflight-${Math.random()}`;
		const first = admitted(scope, [], 'evt-f');
		expect(admitEvent(scope, [], 'evt-f').verdict).toBe('inFlight');
		first.acknowledge(none());
		expect(admitEvent(scope, [], 'evt-f').verdict).toBe('duplicate');
	});

	it('an event n8n did not acknowledge (abandoned) is new again for the next copy', () => {
		const scope = `abandoned-${Math.random()}`;
		admitted(scope, [], 'evt-g').abandon();
		const retry = admitted(scope, [], 'evt-g');
		expect(retry.acknowledge(none()).ids).toEqual(['evt-g']);
	});

	it('an id in flight longer than the limit (the sender left, n8n never answered) is new again', () => {
		const scope = `expired-${Math.random()}`;
		let now = 1_000_000;
		admitEvent(scope, [], 'evt-h', undefined, () => now);
		now += IN_FLIGHT_LIMIT_MS - 1;
		expect(admitEvent(scope, [], 'evt-h', undefined, () => now).verdict).toBe('inFlight');
		now += 1;
		expect(admitEvent(scope, [], 'evt-h', undefined, () => now).verdict).toBe('new');
	});

	it("an id stays in flight for 10 minutes: the sender's retries after about one and five minutes are answered 503", () => {
		const scope = `retries-${Math.random()}`;
		const at = 1_000_000;
		admitEvent(scope, [], 'evt-r', undefined, () => at);
		for (const minutes of [1, 5, 9.99])
			expect(admitEvent(scope, [], 'evt-r', undefined, () => at + minutes * 60_000).verdict).toBe(
				'inFlight',
			);
		expect(admitEvent(scope, [], 'evt-r', undefined, () => at + 10 * 60_000).verdict).toBe('new');
	});

	it('an id whose first delivery expired and came again is not forgotten when the first is abandoned late', () => {
		const scope = `late-abandon-${Math.random()}`;
		let now = 1_000_000;
		const first = admitEvent(scope, [], 'evt-l', undefined, () => now);
		now += IN_FLIGHT_LIMIT_MS;
		expect(admitEvent(scope, [], 'evt-l', undefined, () => now).verdict).toBe('new');
		if (first.verdict === 'new') first.abandon();
		expect(admitEvent(scope, [], 'evt-l', undefined, () => now + 1).verdict).toBe('inFlight');
	});

	it('the process holds an acknowledged id once, and lets go of ids whose delivery expired', () => {
		const scope = `held-${Math.random()}`;
		let now = 1_000_000;
		const before = processIdCount();
		const acked = admitEvent(scope, [], 'evt-1', undefined, () => now);
		if (acked.verdict === 'new') acked.acknowledge(none());
		expect(processIdCount()).toBe(before + 1);
		admitEvent(scope, [], 'evt-2', undefined, () => now);
		expect(processIdCount()).toBe(before + 2);
		now += IN_FLIGHT_LIMIT_MS - 1;
		admitEvent(scope, [], 'evt-3', undefined, () => now);
		expect(processIdCount()).toBe(before + 3);
		now += 1;
		admitEvent(scope, [], 'evt-4', undefined, () => now);
		expect(processIdCount()).toBe(before + 3);
		forgetScope(scope);
	});

	it('after a restart (empty process copy) the stored list alone finds the duplicate', () => {
		expect(admitEvent(`restart-${Math.random()}`, ['evt-y'], 'evt-y').verdict).toBe('duplicate');
	});

	it('stays bounded by the capacity, keeping the newest ids', () => {
		const scope = `bounded-${Math.random()}`;
		const stored = plain(['s1', 's2', 's3']);
		admitted(scope, stored, 'n1', 3).acknowledge(stored);
		expect(admitted(scope, stored, 'n2', 3).acknowledge(stored).ids).toEqual(['s3', 'n1', 'n2']);
	});
});

/**
 * Two webhook processes (two scopes with the same stored list, as n8n's database holds it), each acknowledging in
 * turn; what each saves is what the other reads next, as n8n saves the static data whole.
 */
function twoProcesses(capacity: number) {
	const keys = [`proc-a-${Math.random()}`, `proc-b-${Math.random()}`];
	let database = none();
	return {
		/** Delivers `id` at process `p` (0 or 1): its verdict; a new event is acknowledged and saved. */
		deliver(p: number, id: string): string {
			const admission = admitEvent(keys[p], database.ids, id, capacity);
			if (admission.verdict === 'new') database = admission.acknowledge(database);
			return admission.verdict;
		},
		/** Every process restarts: the process copies are gone, the database stays. */
		restart() {
			for (const key of keys) forgetScope(key);
		},
		get database() {
			return database;
		},
		forget() {
			this.restart();
		},
	};
}

describe('two webhook processes sharing the stored list', () => {
	it('what one process acknowledges never removes ids the other acknowledged more recently (10 kept)', () => {
		const procs = twoProcesses(10);
		// Process A fills its own copy with 10 events; then the processes alternate.
		for (let i = 0; i < 10; i++) expect(procs.deliver(0, `a-${i}`)).toBe('new');
		const recent: Array<{ id: string; at: number }> = [];
		for (let i = 0; i < 12; i++) {
			const p = i % 2;
			const id = `alt-${i}`;
			expect(procs.deliver(p, id)).toBe('new');
			recent.push({ id, at: p });
		}
		// The 10 newest are exactly what is stored, in acknowledgement order.
		expect(procs.database.ids).toEqual(recent.slice(-10).map((r) => r.id));
		// A replay of each of the 10 newest at the other process than the one that handled it: a duplicate.
		for (const r of recent.slice(-10)) expect(procs.deliver(1 - r.at, r.id)).toBe('duplicate');
		// And at the same process after every process restarted.
		procs.restart();
		for (const r of recent.slice(-10)) expect(procs.deliver(r.at, r.id)).toBe('duplicate');
		// The documented limit holds exactly: the 11th newest is behind 10 newer ones, so it is new again.
		expect(procs.deliver(0, recent[recent.length - 11].id)).toBe('new');
		procs.forget();
	});

	it("an id lost when both processes saved at the same moment comes back at that process's next acknowledgement, in its own place", () => {
		const keys = [`race-a-${Math.random()}`, `race-b-${Math.random()}`];
		const before = plain(['x-1', 'x-2', 'x-3']);
		const a = admitted(keys[0], before, 'evt-a', 5);
		const b = admitted(keys[1], before, 'evt-b', 5);
		a.acknowledge(before);
		// Both read the list before either saved: B's save overwrites A's, which held evt-a.
		let database = b.acknowledge(before);
		expect(database.ids).not.toContain('evt-a');
		// A's next acknowledgement brings evt-a back, newer than the older ids.
		database = admitted(keys[0], database, 'evt-c', 5).acknowledge(database);
		expect(database.ids).toEqual(['x-2', 'x-3', 'evt-a', 'evt-b', 'evt-c']);
		forgetScope(keys[0]);
		forgetScope(keys[1]);
	});

	it('1,000 events alternating between the processes, then a replay of each of the last 1,000 at either process, before and after a restart: all duplicates', () => {
		const procs = twoProcesses(1000);
		for (let i = 0; i < 1500; i++) procs.deliver(i % 2, `e-${i}`);
		const last = Array.from({ length: 1000 }, (_, k) => `e-${500 + k}`);
		expect(procs.database.ids).toEqual(last);
		const verdicts = last.map((id, k) => procs.deliver(k % 3 === 0 ? 0 : 1, id));
		procs.restart();
		verdicts.push(...last.map((id, k) => procs.deliver(k % 2, id)));
		expect(verdicts.filter((v) => v !== 'duplicate')).toEqual([]);
		procs.forget();
	});
});

describe('readSeenList (the stored ids and their places)', () => {
	it('a list saved without places takes its positions; damaged entries are dropped', () => {
		expect(readSeenList(['a', 'b'], undefined)).toEqual({ ids: ['a', 'b'], order: [1, 2] });
		expect(readSeenList(['a', 3, 'b'], [5, 6, 7])).toEqual({ ids: ['a', 'b'], order: [5, 7] });
		expect(readSeenList(['a', 'b'], [5])).toEqual({ ids: ['a', 'b'], order: [1, 2] });
		expect(readSeenList(['a', 'b'], [5, 'x'])).toEqual({ ids: ['a', 'b'], order: [1, 2] });
		expect(readSeenList(undefined, [1])).toEqual({ ids: [], order: [] });
	});

	it('mergeSeen keeps per id its highest place and places the new id above all', () => {
		const merged = mergeSeen(
			{ ids: ['a', 'b'], order: [1, 4] },
			new Map([
				['a', 3],
				['c', 2],
			]),
			'd',
			3,
		);
		expect(merged).toEqual({ ids: ['a', 'b', 'd'], order: [3, 4, 5] });
	});
});

describe('process memory of the webhook trigger is bounded', () => {
	it('a forgotten scope (workflow deactivated or deleted) holds nothing in the process', () => {
		const scope = `forget-${Math.random()}`;
		const before = processIdCount();
		for (let i = 0; i < 50; i++) admitted(scope, [], `e-${i}`).acknowledge(none());
		expect(processIdCount()).toBe(before + 50);
		forgetScope(scope);
		expect(processIdCount()).toBe(before);
		// The stored list is what is left; the process copy starts empty.
		expect(admitEvent(scope, [], 'e-1').verdict).toBe('new');
		forgetScope(scope);
	});

	it('the ids kept over all scopes never exceed the process bound (least recently used scopes go first)', () => {
		expect(processLimits.maxIds).toBe(MAX_PROCESS_IDS);
		processLimits.maxIds = 1000;
		const perScope = 100;
		const scopes = Math.ceil(processLimits.maxIds / perScope) + 3;
		for (let s = 0; s < scopes; s++) {
			const key = `cap-${s}`;
			let stored = none();
			for (let i = 0; i < perScope; i++)
				stored = admitted(key, [], `${key}-${i}`, perScope).acknowledge(stored);
			expect(processIdCount()).toBeLessThanOrEqual(processLimits.maxIds);
		}
		processLimits.maxIds = MAX_PROCESS_IDS;
		// The most recent scope is whole; the first ones were dropped.
		const last = `cap-${scopes - 1}`;
		expect(admitEvent(last, [], `${last}-0`).verdict).toBe('duplicate');
		expect(admitEvent('cap-0', [], 'cap-0-0').verdict).toBe('new');
		for (let s = 0; s < scopes; s++) forgetScope(`cap-${s}`);
	});

	it('kept signing secrets: dropped for a forgotten node, and capped over all scopes', async () => {
		const load = async () => ['whsec_x'];
		await currentSecrets('wf-1:node-1:cred-a', load);
		await currentSecrets('wf-1:node-1:cred-b', load);
		await currentSecrets('wf-1:node-10:cred-a', load);
		const before = keptSecretScopes();
		forgetSecrets('wf-1:node-1:');
		expect(keptSecretScopes()).toBe(before - 2);
		for (let i = 0; i < MAX_SECRET_SCOPES + 10; i++) await currentSecrets(`bulk-${i}:n:c`, load);
		expect(keptSecretScopes()).toBe(MAX_SECRET_SCOPES);
	});
});
