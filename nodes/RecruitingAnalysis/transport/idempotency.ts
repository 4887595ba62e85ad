/**
 * Idempotency keys (spec: 1 to 128 characters, ^[A-Za-z0-9._:-]+$). One key per logical write, derived from what
 * identifies that write inside an n8n execution, so every retry of it carries the same key and a new execution
 * makes a new submission.
 */
import { createHash } from 'node:crypto';

export const DERIVED_KEY_PREFIX = 'n8n-ra-';

export interface IdempotencyKeyParts {
	executionId: string;
	nodeId: string;
	runIndex: number;
	itemIndex: number;
	operation: string;
	/** Distinguishes a deliberate second submission inside the same item (e.g. "requote-1" after QUOTE_STALE). */
	attempt?: string;
}

/** 'n8n-ra-' + 64 lowercase hex characters (71 characters): inside the spec's length and pattern. */
export function deriveIdempotencyKey(parts: IdempotencyKeyParts): string {
	const material = JSON.stringify([
		'recruiting-analysis/idempotency/v1',
		parts.executionId,
		parts.nodeId,
		parts.runIndex,
		parts.itemIndex,
		parts.operation,
		parts.attempt ?? '',
	]);
	return DERIVED_KEY_PREFIX + createHash('sha256').update(material).digest('hex');
}
