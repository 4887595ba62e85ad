/** The user's own Idempotency Key per item (writes/identity.ts itemUserKey): read as given, and a key shared by two items refused. */
import { duplicateKeyError, itemUserKey } from '../../../nodes/RecruitingAnalysis/writes/identity';
import { fakeContext } from '../../helpers/fakes';

describe("the user's own key", () => {
	it('is read trimmed, and an empty option is no key', () => {
		expect(
			itemUserKey(
				fakeContext(() => ({ statusCode: 500 }), { options: { idempotencyKey: '  app-1 ' } }).ctx,
				0,
			),
		).toBe('app-1');
		expect(
			itemUserKey(
				fakeContext(() => ({ statusCode: 500 }), { options: { idempotencyKey: '' } }).ctx,
				0,
			),
		).toBeUndefined();
		expect(itemUserKey(fakeContext(() => ({ statusCode: 500 })).ctx, 0)).toBeUndefined();
	});

	it('shared by two items is an error naming both items, the field and that nothing was sent', () => {
		const error = duplicateKeyError(fakeContext(() => ({ statusCode: 500 })).ctx, 'app-1', 0, 3);
		expect(error.message).toBe('"Idempotency Key" must be different for each item');
		expect(error.description).toContain('Items 0 and 3 both have the Idempotency Key "app-1"');
		expect(error.description).toContain('Nothing was sent');
	});
});
