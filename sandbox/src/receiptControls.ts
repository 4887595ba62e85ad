/**
 * Idempotency receipt controls (`/_sandbox/workspaces/:wid/receipts...`): what the service still remembers, and
 * how to make it forget (the receipt lifetime), so tests show what a client does once a receipt is gone.
 */
import type { FastifyInstance } from 'fastify';

import type { Ctx } from './context';
import { body, workspaceOf } from './controlRequests';
import { ageReceipts, receiptExpired, receiptsOf } from './idempotency';
import { Validator } from './validation';

export function receiptControlRoutes(c: FastifyInstance, ctx: Ctx): void {
	// Idempotency receipts: what the service still remembers, and how to make it forget (receipt lifetime).
	c.get('/_sandbox/workspaces/:wid/receipts', async (req) => {
		const ws = workspaceOf(ctx, req);
		const lifetime = ws.receiptLifetimeMs ?? 0;
		const items = receiptsOf(ctx, ws.id)
			.filter(({ receipt }) => !receiptExpired(ctx, ws, receipt))
			.map(({ key, receipt }) => ({
				key,
				operation: receipt.operation,
				status: receipt.status,
				createdAt: new Date(receipt.createdAt).toISOString(),
				expiresAt: lifetime > 0 ? new Date(receipt.createdAt + lifetime).toISOString() : null,
			}));
		return { receiptLifetimeMs: lifetime, items };
	});

	c.post('/_sandbox/workspaces/:wid/receipts/age', async (req) => {
		const ws = workspaceOf(ctx, req);
		const b = body(req);
		const v = new Validator();
		v.object('', b, ['seconds']);
		const seconds = v.integer('seconds', b.seconds, { required: true, min: 0 });
		v.throwIfAny();
		return {
			receiptLifetimeMs: ws.receiptLifetimeMs ?? 0,
			...ageReceipts(ctx, ws, seconds! * 1000),
		};
	});

	c.post('/_sandbox/workspaces/:wid/receipts/forget', async (req) => {
		const ws = workspaceOf(ctx, req);
		return { receiptLifetimeMs: ws.receiptLifetimeMs ?? 0, ...ageReceipts(ctx, ws, 0, true) };
	});
}
