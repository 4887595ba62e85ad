import {
	rememberAcrossRequests,
	clampCapacity,
	DEFAULT_DEDUPE_CAPACITY,
	readSeenIds,
	rememberEventId,
} from '../../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	EVENT_TYPES,
	eventTypeMatches,
	isKnownEventType,
} from '../../../nodes/RecruitingAnalysis/events/eventTypes';
import {
	checkAttempt,
	resourceRequestFor,
} from '../../../nodes/RecruitingAnalysis/events/resource';

describe('dedupe: bounded LRU of event ids', () => {
	it('reports the second sighting of an id as a duplicate', () => {
		const first = rememberEventId([], 'a');
		expect(first).toEqual({ duplicate: false, ids: ['a'] });
		const second = rememberEventId(first.ids, 'a');
		expect(second.duplicate).toBe(true);
	});

	it('never holds more than its capacity and drops the least recently seen first', () => {
		let ids: string[] = [];
		for (const id of ['a', 'b', 'c']) ids = rememberEventId(ids, id, 3).ids;
		ids = rememberEventId(ids, 'a', 3).ids; // a becomes most recent
		ids = rememberEventId(ids, 'd', 3).ids; // evicts b
		expect(ids).toEqual(['c', 'a', 'd']);
		expect(rememberEventId(ids, 'b', 3).duplicate).toBe(false);
		expect(rememberEventId(ids, 'a', 3).duplicate).toBe(true);
	});

	it('does not mutate the array it is given (static data is reassigned, not edited)', () => {
		const ids = Object.freeze(['x']) as readonly string[];
		expect(() => rememberEventId(ids, 'y')).not.toThrow();
		expect(ids).toEqual(['x']);
	});

	it('tolerates absent or damaged stored data', () => {
		expect(readSeenIds(undefined)).toEqual([]);
		expect(readSeenIds({ a: 1 })).toEqual([]);
		expect(readSeenIds(['a', 3, null, 'b'])).toEqual(['a', 'b']);
	});

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
		expect(isKnownEventType('interview.invitation_failed')).toBe(true);
		expect(isKnownEventType('report.archived')).toBe(false);
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

describe('rememberAcrossRequests (stored list merged with the process copy)', () => {
	it('two deliveries that both loaded the same stored list: the later save still holds both ids', () => {
		const scope = `overlap-${Math.random()}`;
		const storedBefore: string[] = ['old-1'];
		// Both requests read the database before either saved.
		const first = rememberAcrossRequests(scope, storedBefore, 'evt-a');
		const second = rememberAcrossRequests(scope, storedBefore, 'evt-b');
		expect(first.duplicate).toBe(false);
		expect(second.duplicate).toBe(false);
		// The later save wins in n8n; it must not drop evt-a.
		expect(second.ids).toEqual(['old-1', 'evt-a', 'evt-b']);
	});

	it('a copy arriving with a stale stored list is still a duplicate', () => {
		const scope = `stale-${Math.random()}`;
		rememberAcrossRequests(scope, [], 'evt-x');
		expect(rememberAcrossRequests(scope, [], 'evt-x').duplicate).toBe(true);
	});

	it('after a restart (empty process copy) the stored list alone finds the duplicate', () => {
		expect(rememberAcrossRequests(`restart-${Math.random()}`, ['evt-y'], 'evt-y').duplicate).toBe(
			true,
		);
	});

	it('stays bounded by the capacity, keeping the newest ids', () => {
		const scope = `bounded-${Math.random()}`;
		const stored = ['s1', 's2', 's3'];
		rememberAcrossRequests(scope, stored, 'n1', 3);
		const last = rememberAcrossRequests(scope, stored, 'n2', 3);
		expect(last.ids).toEqual(['s3', 'n1', 'n2']);
	});
});
