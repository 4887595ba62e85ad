/**
 * Idempotency keys (writes/identity.ts): a derived key stays the same for the same write, so
 * receipts made earlier still answer; a user's key gets its steps appended, never cut.
 */
import {
	derivedIdempotencyKey,
	duplicateKeyError,
	idempotencyKeyOf,
	itemUserKey,
	userIdempotencyKey,
	userKeyProblem,
} from '../../../nodes/RecruitingAnalysis/writes/identity';
import { MAX_IDEMPOTENCY_KEY_LENGTH as MAX_KEY_LENGTH } from '../../../nodes/RecruitingAnalysis/validation';
import { fakeContext } from '../../helpers/fakes';

const start = { write: 'analysis.start', identity: ['rpt_1', 'quote-fp'] };

describe('derived keys', () => {
	it('are the same as the keys this version of the node sent before (a changed key misses its receipt)', () => {
		expect(derivedIdempotencyKey(start)).toBe(
			'n8n-ra-e87fa293c35d5102f243e9d8632a2d2bfe5e56624c98e2bdaf07cbad7324ef8a',
		);
		expect(derivedIdempotencyKey({ ...start, step: 'requote', attemptLabel: 'second' })).toBe(
			'n8n-ra-2280005837a397a041e23ed63bbbbc2942847b14f5e9bc4544765f6f7c7af06b',
		);
	});

	it('a step or a New Attempt Label alone makes another write', () => {
		const keys = [
			derivedIdempotencyKey(start),
			derivedIdempotencyKey({ ...start, step: 'requote' }),
			derivedIdempotencyKey({ ...start, attemptLabel: 'second' }),
			derivedIdempotencyKey({ ...start, step: 'second' }),
		];
		expect(new Set(keys).size).toBe(4);
		expect(derivedIdempotencyKey({ ...start, step: '', attemptLabel: '' })).toBe(keys[0]);
	});
});

describe("a user's own key", () => {
	it('gets only the parts it has, separated by ":"', () => {
		expect(userIdempotencyKey('app-7')).toBe('app-7');
		expect(userIdempotencyKey('app-7', undefined, 'start')).toBe('app-7:start');
		expect(userIdempotencyKey('app-7', '', 'start')).toBe('app-7:start');
		expect(userIdempotencyKey('app-7', 'two', '')).toBe('app-7:two');
		expect(idempotencyKeyOf({ ...start, userKey: 'app-7', step: 'start' })).toBe('app-7:start');
		expect(idempotencyKeyOf({ ...start, userKey: '' })).toBe(derivedIdempotencyKey(start));
	});

	it('with a character outside the pattern is refused, naming the allowed ones', () => {
		expect(userKeyProblem('app 7', undefined, [])).toBe(
			'may only contain letters, digits and . _ : -',
		);
	});

	it('too long for the longest step is refused, naming the room left and that step, whichever order the steps come in', () => {
		const key = 'k'.repeat(120);
		const problem =
			'must be at most 114 characters for this operation: the node appends ":start.requote" to it for one of its writes (an Idempotency-Key is at most 128 characters and is never cut)';
		expect(userKeyProblem(key, undefined, ['start', 'start.requote'])).toBe(problem);
		expect(userKeyProblem(key, undefined, ['start.requote', 'start'])).toBe(problem);
		expect(userKeyProblem('k'.repeat(122), undefined, ['start'])).toBeUndefined();
	});

	it('of exactly the longest length is sent as it is; one character more is never cut but refused', () => {
		const exact = 'k'.repeat(MAX_KEY_LENGTH - ':start'.length);
		expect(idempotencyKeyOf({ ...start, userKey: exact, step: 'start' })).toHaveLength(
			MAX_KEY_LENGTH,
		);
		expect(() => idempotencyKeyOf({ ...start, userKey: `${exact}k`, step: 'start' })).toThrow(
			new Error(
				'Idempotency Key must be at most 122 characters for this operation: the node appends ":start" to it for one of its writes (an Idempotency-Key is at most 128 characters and is never cut)',
			),
		);
		expect(() => idempotencyKeyOf({ ...start, userKey: 'app 7' })).toThrow(
			'Idempotency Key may only contain letters, digits and . _ : -',
		);
	});

	it('too long without any step: refused naming the 128 characters, never cut', () => {
		expect(() => idempotencyKeyOf({ ...start, userKey: 'k'.repeat(129) })).toThrow(
			new Error(
				'Idempotency Key must be at most 128 characters for this operation: the node appends "" to it for one of its writes (an Idempotency-Key is at most 128 characters and is never cut)',
			),
		);
	});

	it('an option that evaluates to null is no key', () => {
		const { ctx } = fakeContext(() => ({ statusCode: 500 }), { options: { idempotencyKey: null } });
		expect(itemUserKey(ctx, 0)).toBeUndefined();
		const numeric = fakeContext(() => ({ statusCode: 500 }), { options: { idempotencyKey: 42 } });
		expect(itemUserKey(numeric.ctx, 0)).toBe('42');
	});

	it('shared by two items: the error quotes at most 128 characters of it', () => {
		const long = 'k'.repeat(300);
		const error = duplicateKeyError(fakeContext(() => ({ statusCode: 500 })).ctx, long, 1, 2);
		expect(error.description).toBe(
			`Items 1 and 2 both have the Idempotency Key "${'k'.repeat(128)}": one key names one write, so the second ` +
				"would be refused or get the first item's resource. Use an expression that differs per item (for example the application ID), " +
				'or leave the option empty to let the node derive a key from each write. Nothing was sent to the Recruiting Analysis API.',
		);
	});
});
