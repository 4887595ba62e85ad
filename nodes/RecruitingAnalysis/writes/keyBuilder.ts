/**
 * Idempotency keys (spec: 1 to 128 characters, ^[A-Za-z0-9._:-]+$). A key names the business write, not the n8n
 * execution: it is computed from what the write IS (the job, the file's bytes, the report and its quote, the
 * address...), never from the execution id, node id, run index or item index. So every path that repeats the
 * same write (Retry On Fail, n8n's Retry of a failed execution, a manual re-run on the same input, a worker
 * killed mid-run) carries the same key and the service answers with the resource it already created. A
 * deliberate new attempt is a labelled choice (`attemptLabel`), which goes into the key.
 *
 * One rule for derived and user keys:
 *   derived: 'n8n-ra-' + sha256(scheme, write, step, identity, attemptLabel)   (71 characters)
 *   user:    userKey [+ ':' + attemptLabel] [+ ':' + step]                       (never truncated)
 * A user key (Options > Idempotency Key) names one item's write; an operation that makes several writes per item
 * (Analyze Resume: the upload, then the start) or a second one on QUOTE_STALE appends the step. A user key that
 * leaves no room for its step is a validation error (userKeyProblem), never cut.
 */
import { createHash } from 'node:crypto';

import {
	IDEMPOTENCY_KEY_PATTERN as KEY_PATTERN,
	MAX_IDEMPOTENCY_KEY_LENGTH as MAX_KEY_LENGTH,
} from '../validation/rules';

export const DERIVED_KEY_PREFIX = 'n8n-ra-';
export { MAX_KEY_LENGTH };
/** Changing what goes into a derived key changes this version (old receipts then no longer match). */
export const DERIVATION_VERSION = 'recruiting-analysis/write/v2';

export interface WriteIdentity {
	/** The kind of write: 'upload', 'analysis.start', 'interview.invite', 'analyses.batch', ... */
	write: string;
	/** What the write is, in a fixed order (business identity: ids, digests, addresses, choices). */
	identity: readonly unknown[];
	/** A deliberate new attempt (Options > New Attempt Label); empty for the first one. */
	attemptLabel?: string;
	/** A second write of the same item, e.g. 'start' after 'prepare', or 'requote' after QUOTE_STALE. */
	step?: string;
}

/** The derived key of a write: 'n8n-ra-' + 64 lowercase hex characters. Pure. */
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

/** The user key's form for a write: the key, then the attempt label and the step, separated by ':'. Pure. */
export function userWriteKey(userKey: string, attemptLabel?: string, step?: string): string {
	return [userKey, attemptLabel, step]
		.filter((part) => part !== undefined && part !== '')
		.join(':');
}

/**
 * Why a user key cannot serve the given steps (undefined when it can): too long once its longest suffix is
 * appended, or characters outside the spec's pattern. Pure; the validation layer turns it into a field error.
 */
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

/** The one key builder: the user's key when given (checked beforehand with userKeyProblem), else the derived key. */
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

/** sha256 (hex) of a text, e.g. an inline job description, so that the key material stays small. */
export function textDigest(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}
