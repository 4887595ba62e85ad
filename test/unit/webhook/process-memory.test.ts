/**
 * What one process keeps of the webhook trigger's deliveries (webhook/dedupe.ts, webhook/secrets.ts), in a file of
 * its own so that no other test's scopes share the process copy: the bound over all scopes drops the least recently
 * used ones first and never the one in use; the stored list merged with the process copy keeps each id's highest place.
 */
import {
	admitEvent,
	forgetScope,
	mergeSeen,
	processIdCount,
	processLimits,
	readSeenList,
	type SeenList,
} from '../../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	currentSecrets,
	MAX_SECRET_SCOPES,
} from '../../../nodes/RecruitingAnalysis/webhook/secrets';

const none = (): SeenList => ({ ids: [], order: [] });
const limit = processLimits.maxIds;
let scopes: string[] = [];

function acked(scope: string, ids: string[], stored: SeenList = none()): void {
	scopes.push(scope);
	for (const id of ids) {
		const admission = admitEvent(scope, stored.ids, id);
		if (admission.verdict !== 'new') throw new Error(`${id} was not new`);
		admission.acknowledge(stored);
	}
}
const isDuplicate = (scope: string, id: string) =>
	admitEvent(scope, [], id).verdict === 'duplicate';

afterEach(() => {
	processLimits.maxIds = limit;
	for (const scope of scopes) forgetScope(scope);
	scopes = [];
});

describe('the process bound over all scopes', () => {
	it('at exactly the bound nothing is dropped; one id more drops the least recently used scope only', () => {
		processLimits.maxIds = 5;
		acked('A', ['a1', 'a2', 'a3']);
		acked('B', ['b1', 'b2']);
		expect(processIdCount()).toBe(5);
		scopes.push('C');
		admitEvent('C', [], 'c1');
		expect(processIdCount()).toBe(3);
		expect(isDuplicate('B', 'b1')).toBe(true);
		expect(isDuplicate('A', 'a1')).toBe(false);
	});

	it('drops only as many scopes as it takes to get under the bound', () => {
		processLimits.maxIds = 5;
		acked('A', ['a1', 'a2']);
		acked('B', ['b1', 'b2']);
		acked('C', ['c1', 'c2']);
		expect(processIdCount()).toBe(4);
		expect(isDuplicate('B', 'b1')).toBe(true);
		expect(isDuplicate('C', 'c1')).toBe(true);
	});

	it('a scope used again is kept over one used longer ago', () => {
		processLimits.maxIds = 4;
		acked('A', ['a1', 'a2']);
		acked('B', ['b1', 'b2']);
		expect(isDuplicate('A', 'a1')).toBe(true);
		scopes.push('C');
		admitEvent('C', [], 'c1');
		expect(isDuplicate('A', 'a2')).toBe(true);
		expect(isDuplicate('B', 'b1')).toBe(false);
	});

	it('the scope in use is never dropped, even alone over the bound', () => {
		processLimits.maxIds = 2;
		const stored = { ids: ['s1', 's2', 's3', 's4'], order: [1, 2, 3, 4] };
		acked('A', ['a1'], stored);
		expect(processIdCount()).toBe(5);
		expect(isDuplicate('A', 's1')).toBe(true);
	});

	it('deliveries in flight count toward the bound as they arrive', () => {
		processLimits.maxIds = 3;
		for (const scope of ['A', 'B', 'C', 'D', 'E']) {
			scopes.push(scope);
			admitEvent(scope, [], `${scope}-1`);
		}
		expect(processIdCount()).toBe(3);
	});

	it('an acknowledgement that merges a long stored list applies the bound at once', () => {
		processLimits.maxIds = 4;
		acked('A', ['a1', 'a2']);
		acked('B', ['b1'], { ids: ['s1', 's2', 's3', 's4'], order: [1, 2, 3, 4] });
		expect(processIdCount()).toBe(5);
		expect(isDuplicate('A', 'a1')).toBe(false);
	});
});

describe('the stored list merged with the process copy', () => {
	it('keeps per id its highest place, from either side, and places the new id above all', () => {
		const stored = { ids: ['a', 'b'], order: [5, 2] };
		expect(
			mergeSeen(
				stored,
				new Map([
					['a', 3],
					['c', 4],
				]),
				'n',
			),
		).toEqual({
			ids: ['b', 'c', 'a', 'n'],
			order: [2, 4, 5, 6],
		});
		expect(
			mergeSeen(
				stored,
				new Map([
					['a', 9],
					['c', 7],
				]),
				'n',
			),
		).toEqual({
			ids: ['b', 'c', 'a', 'n'],
			order: [2, 7, 9, 10],
		});
	});

	it('at the capacity, ties in place are broken by id so that every process keeps the same ids', () => {
		expect(mergeSeen({ ids: ['b', 'a'], order: [1, 1] }, new Map(), 'c', 2)).toEqual({
			ids: ['b', 'c'],
			order: [1, 2],
		});
		expect(mergeSeen({ ids: ['a', 'b'], order: [1, 1] }, new Map(), 'c', 2).ids).toEqual([
			'b',
			'c',
		]);
	});

	it('a stored list whose places are not positive whole numbers takes its positions instead', () => {
		for (const order of [
			[0, 1],
			[-1, 2],
			[1.5, 2],
			['1', 2],
			[Number.NaN, 2],
			[1, 2 ** 60],
		])
			expect(readSeenList(['x', 'y'], order)).toEqual({ ids: ['x', 'y'], order: [1, 2] });
		expect(readSeenList(['x', 'y'], [4, 7])).toEqual({ ids: ['x', 'y'], order: [4, 7] });
	});
});

describe('kept signing secrets over all scopes', () => {
	it('a scope used again is kept over one used longer ago when the bound is reached', async () => {
		const reads = new Map<string, number>();
		const load = (key: string) => async () => {
			reads.set(key, (reads.get(key) ?? 0) + 1);
			return ['whsec_x'];
		};
		const now = () => 1_000;
		for (let i = 0; i < MAX_SECRET_SCOPES; i++) await currentSecrets(`s${i}`, load(`s${i}`), now);
		await currentSecrets('s0', load('s0'), now);
		await currentSecrets('s-new', load('s-new'), now);
		await currentSecrets('s0', load('s0'), now);
		await currentSecrets('s1', load('s1'), now);
		expect(reads.get('s0')).toBe(1);
		expect(reads.get('s1')).toBe(2);
	});
});
