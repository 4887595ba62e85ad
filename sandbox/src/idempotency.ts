/**
 * Idempotency receipts per (workspace, key) (spec "Endpoints / Conventions", "Errors"): a key names one write in
 * its workspace, whatever the endpoint. The same operation with the same canonical body replays the stored status
 * and body; a changed body, or the key on another operation, is 409 CONFLICT, reason IDEMPOTENCY_KEY_REUSED (the
 * spec's "changed body under a used idempotency key"). Only successful outcomes are kept, so a corrected request
 * after an error can still be processed. Receipts live outside the erasable workspace data: they survive key
 * rotation and sandbox reset (spec "Sandbox rules" 4). A workspace keeps them `receiptLifetimeMs` (capacity.ts;
 * 0 = for ever); after that the key is unknown again and the same request is a new write.
 */
import type { Ctx } from './context';
import { canonicalHash } from './canonical';
import { badRequest, conflict } from './errors';
import type { Receipt, Workspace } from './types';
import { IDEMPOTENCY_KEY_PATTERN } from './validation';

export function readIdempotencyKey(header: string | string[] | undefined): string {
	if (header === undefined) throw badRequest([{ field: 'Idempotency-Key', rule: 'required' }]);
	if (Array.isArray(header)) throw badRequest([{ field: 'Idempotency-Key', rule: 'single_value' }]);
	if (header.length < 1) throw badRequest([{ field: 'Idempotency-Key', rule: 'min_length' }]);
	if (header.length > 128) throw badRequest([{ field: 'Idempotency-Key', rule: 'max_length' }]);
	if (!IDEMPOTENCY_KEY_PATTERN.test(header))
		throw badRequest([{ field: 'Idempotency-Key', rule: 'pattern' }]);
	return header;
}

const receiptKey = (workspaceId: string, key: string) => `${workspaceId}|${key}`;

/** Whether the workspace's receipt lifetime has passed for this receipt (sandbox clock). */
export function receiptExpired(ctx: Ctx, ws: Workspace, receipt: Receipt): boolean {
	const lifetime = ws.receiptLifetimeMs ?? 0;
	return lifetime > 0 && ctx.clock.now() - receipt.createdAt >= lifetime;
}

export function findReceipt(
	ctx: Ctx,
	ws: Workspace,
	operation: string,
	key: string,
	request: unknown,
): { receipt: Receipt | undefined; bodyHash: string } {
	const bodyHash = canonicalHash(request);
	const id = receiptKey(ws.id, key);
	let receipt: Receipt | undefined = ctx.store.receipts[id];
	if (receipt && receiptExpired(ctx, ws, receipt)) {
		delete ctx.store.receipts[id];
		ctx.markDirty();
		receipt = undefined;
	}
	if (receipt && receipt.operation !== operation) {
		throw conflict(
			'IDEMPOTENCY_KEY_REUSED',
			`This Idempotency-Key was already used in this workspace for ${receipt.operation}; a key names one write, so a new submission needs a new key.`,
		);
	}
	if (receipt && receipt.bodyHash !== bodyHash) {
		throw conflict(
			'IDEMPOTENCY_KEY_REUSED',
			'This Idempotency-Key was already used with a different request body; a new submission needs a new key.',
		);
	}
	return { receipt, bodyHash };
}

export function storeReceipt(ctx: Ctx, workspaceId: string, key: string, receipt: Receipt): void {
	ctx.store.receipts[receiptKey(workspaceId, key)] = receipt;
	ctx.markDirty();
}

/** The workspace's receipts with their keys (for the /_sandbox/.../receipts controls). */
export function receiptsOf(ctx: Ctx, workspaceId: string): { key: string; receipt: Receipt }[] {
	const prefix = `${workspaceId}|`;
	return Object.entries(ctx.store.receipts)
		.filter(([id]) => id.startsWith(prefix))
		.map(([id, receipt]) => ({ key: id.slice(prefix.length), receipt }));
}

/**
 * Makes every receipt of the workspace `ms` older, then forgets those past the workspace's lifetime (all of them
 * with `forgetAll`): what a client meets when it repeats a request after the service has dropped its receipt.
 */
export function ageReceipts(
	ctx: Ctx,
	ws: Workspace,
	ms: number,
	forgetAll = false,
): { aged: number; forgotten: number; kept: number } {
	let aged = 0;
	let forgotten = 0;
	for (const { key, receipt } of receiptsOf(ctx, ws.id)) {
		receipt.createdAt -= ms;
		aged += 1;
		if (forgetAll || receiptExpired(ctx, ws, receipt)) {
			delete ctx.store.receipts[receiptKey(ws.id, key)];
			forgotten += 1;
		}
	}
	ctx.markDirty();
	return { aged, forgotten, kept: aged - forgotten };
}
