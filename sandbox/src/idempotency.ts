/**
 * Idempotency receipts per (workspace, operation, key) (spec "Endpoints / Conventions").
 * The same canonical body replays the stored status and body; a changed body is 409 IDEMPOTENCY_KEY_REUSED.
 * Only successful outcomes are kept, so a corrected request after an error can still be processed.
 * Receipts live outside the erasable workspace data: they survive key rotation and sandbox reset.
 */
import type { Ctx } from './context';
import { canonicalHash } from './canonical';
import { badRequest, conflict } from './errors';
import type { Receipt } from './types';
import { IDEMPOTENCY_KEY_PATTERN } from './validation';

export function readIdempotencyKey(header: string | string[] | undefined): string {
	if (header === undefined) throw badRequest([{ field: 'Idempotency-Key', rule: 'required' }]);
	if (Array.isArray(header)) throw badRequest([{ field: 'Idempotency-Key', rule: 'single_value' }]);
	if (header.length < 1) throw badRequest([{ field: 'Idempotency-Key', rule: 'min_length' }]);
	if (header.length > 128) throw badRequest([{ field: 'Idempotency-Key', rule: 'max_length' }]);
	if (!IDEMPOTENCY_KEY_PATTERN.test(header)) throw badRequest([{ field: 'Idempotency-Key', rule: 'pattern' }]);
	return header;
}

const receiptKey = (workspaceId: string, operation: string, key: string) => `${workspaceId}|${operation}|${key}`;

export function findReceipt(
	ctx: Ctx,
	workspaceId: string,
	operation: string,
	key: string,
	request: unknown,
): { receipt: Receipt | undefined; bodyHash: string } {
	const bodyHash = canonicalHash(request);
	const receipt = ctx.store.receipts[receiptKey(workspaceId, operation, key)];
	if (receipt && receipt.bodyHash !== bodyHash) {
		throw conflict(
			'IDEMPOTENCY_KEY_REUSED',
			'This Idempotency-Key was already used with a different request body; a new submission needs a new key.',
		);
	}
	return { receipt, bodyHash };
}

export function storeReceipt(
	ctx: Ctx,
	workspaceId: string,
	operation: string,
	key: string,
	receipt: Receipt,
): void {
	ctx.store.receipts[receiptKey(workspaceId, operation, key)] = receipt;
	ctx.markDirty();
}
