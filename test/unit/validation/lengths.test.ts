/**
 * Lengths are counted in characters (Unicode code points), as the spec and the sandbox count them,
 * not in UTF-16 units (an emoji is one character and two units). The node's own rules agree with the sandbox.
 */
import {
	characterCount,
	cursorSchema,
	emailSchema,
	externalReferenceIdSchema,
	fileNameSchema,
	idSchema,
} from '../../../nodes/RecruitingAnalysis/validation';
import { characterCount as sandboxCharacterCount, isEmail } from '../../../sandbox/src/validation';

const emoji = '\u{1F600}';
const ok = (schema: { safeParse: (v: unknown) => { success: boolean } }, value: string) =>
	schema.safeParse(value).success;

describe('lengths in characters (code points), as the sandbox counts them', () => {
	test('an emoji is one character for the node and for the sandbox', () => {
		expect(emoji).toHaveLength(2);
		expect(characterCount(emoji)).toBe(1);
		expect(sandboxCharacterCount(emoji)).toBe(1);
	});
	test('a path id of 60 emoji is within its limit of 100; 101 emoji is over it', () => {
		expect(ok(idSchema, emoji.repeat(60))).toBe(true);
		expect(ok(idSchema, emoji.repeat(100))).toBe(true);
		expect(idSchema.safeParse(emoji.repeat(101)).error?.issues[0].message).toBe(
			'must be at most 100 characters',
		);
	});
	test('a file name of 124 characters made of emoji is accepted (limit 200); 201 characters is refused', () => {
		expect(ok(fileNameSchema, `${emoji.repeat(120)}.pdf`)).toBe(true);
		expect(ok(fileNameSchema, `${emoji.repeat(196)}.pdf`)).toBe(true);
		expect(fileNameSchema.safeParse(`${emoji.repeat(197)}.pdf`).error?.issues[0].message).toBe(
			'must be at most 200 characters',
		);
	});
	test('an external reference id of 100 emoji is accepted (limit 128); 129 is refused', () => {
		expect(ok(externalReferenceIdSchema, emoji.repeat(100))).toBe(true);
		expect(ok(externalReferenceIdSchema, emoji.repeat(128))).toBe(true);
		expect(ok(externalReferenceIdSchema, emoji.repeat(129))).toBe(false);
	});
	test('a cursor of 2048 characters passes, 2049 does not; empty values are still refused', () => {
		expect(ok(cursorSchema, emoji.repeat(2048))).toBe(true);
		expect(ok(cursorSchema, emoji.repeat(2049))).toBe(false);
		expect(idSchema.safeParse('').error?.issues[0].message).toBe('must not be empty');
	});
	test('the node and the sandbox share one email rule: a@com and a@[127.0.0.1] are refused by both', () => {
		for (const address of [
			'a@com',
			'a@[127.0.0.1]',
			'.a@example.com',
			'a..b@example.com',
			`${'a'.repeat(65)}@example.com`,
		]) {
			expect([address, ok(emailSchema, address), isEmail(address)]).toEqual([
				address,
				false,
				false,
			]);
		}
		for (const address of [
			'name@example.com',
			"o'brien+tag@mail.example.co.uk",
			`${'a'.repeat(64)}@example.com`,
		]) {
			expect([address, ok(emailSchema, address), isEmail(address)]).toEqual([address, true, true]);
		}
	});
});
