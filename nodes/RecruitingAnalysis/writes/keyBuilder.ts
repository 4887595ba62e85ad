// A key names the business write, never the execution or item, so every repeat of a write carries the same key.
import { createHash } from 'node:crypto';

import {
	IDEMPOTENCY_KEY_PATTERN as KEY_PATTERN,
	MAX_IDEMPOTENCY_KEY_LENGTH as MAX_KEY_LENGTH,
} from '../validation';

export const DERIVED_KEY_PREFIX = 'n8n-ra-';
export { MAX_KEY_LENGTH };
// Changing what goes into a derived key changes this version (old receipts then no longer match).
export const DERIVATION_VERSION = 'recruiting-analysis/write/v2';

export interface WriteIdentity {
	write: string;
	identity: readonly unknown[];
	attemptLabel?: string;
	step?: string;
}

export function deriveWriteKey(parts: WriteIdentity): string {
	const material = JSON.stringify([
		DERIVATION_VERSION,
		parts.write,
		parts.step ?? '',
		parts.identity,
		parts.attemptLabel ?? '',
	]);
	return DERIVED_KEY_PREFIX + createHash('sha256').update(material).digest('hex');
}

export function userWriteKey(userKey: string, attemptLabel?: string, step?: string): string {
	return [userKey, attemptLabel, step]
		.filter((part) => part !== undefined && part !== '')
		.join(':');
}

export function userKeyProblem(
	userKey: string,
	attemptLabel: string | undefined,
	steps: readonly string[],
): string | undefined {
	if (!KEY_PATTERN.test(userKey)) return 'may only contain letters, digits and . _ : -';
	const longest = [undefined, ...steps]
		.map((step) => userWriteKey(userKey, attemptLabel, step))
		.sort((a, b) => b.length - a.length)[0];
	if (longest.length <= MAX_KEY_LENGTH) return undefined;
	const room = MAX_KEY_LENGTH - (longest.length - userKey.length);
	return `must be at most ${room} characters for this operation: the node appends "${longest.slice(userKey.length)}" to it for one of its writes (an Idempotency-Key is at most ${MAX_KEY_LENGTH} characters and is never cut)`;
}

export function writeKey(parts: WriteIdentity & { userKey?: string }): string {
	if (parts.userKey !== undefined && parts.userKey !== '') {
		const key = userWriteKey(parts.userKey, parts.attemptLabel, parts.step);
		// Validation ran before anything was sent; this guards the rule, it never truncates.
		if (key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key))
			throw new Error(
				`Idempotency Key ${userKeyProblem(parts.userKey, parts.attemptLabel, [parts.step ?? ''])}`,
			);
		return key;
	}
	return deriveWriteKey(parts);
}

export function textDigest(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}
