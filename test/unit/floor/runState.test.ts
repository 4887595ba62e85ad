/** One run state per execution (floor/runState.ts): a slot's value belongs to its run and starts anew in the next. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../../../nodes/RecruitingAnalysis/floor/runState';

describe('the run state', () => {
	const runA = {} as IExecuteFunctions;
	const runB = {} as IExecuteFunctions;

	it('creates a slot value once per run and keeps runs apart', () => {
		let created = 0;
		const slot = new RunSlot('counter', () => ({ id: ++created }));
		expect(slot.peek(runA)).toBeUndefined();
		const first = slot.of(runA);
		expect(slot.of(runA)).toBe(first);
		expect(slot.of(runB)).not.toBe(first);
		expect(created).toBe(2);
	});

	it('forgets a run value on clear, and two slots never share a value', () => {
		const one = new RunSlot('one', () => new Set<string>());
		const two = new RunSlot('two', () => new Set<string>());
		one.of(runA).add('x');
		expect(two.of(runA).has('x')).toBe(false);
		one.clear(runA);
		expect(one.peek(runA)).toBeUndefined();
		expect(one.of(runA).size).toBe(0);
		one.set(runA, new Set(['y']));
		expect([...one.of(runA)]).toEqual(['y']);
	});
});
