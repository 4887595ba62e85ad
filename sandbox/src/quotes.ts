/**
 * Quotes (spec "Quotes"): the credit scale every quote states, and the age of quotes, which
 * a workspace whose `quoteMaxAgeMs` limit is set (see capacity.ts) refuses as QUOTE_STALE once too old.
 */
import type { Ctx } from './context';
import type { Workspace } from './types';

export const CREDIT_SCALE = 100;

const quoteKey = (ws: Workspace, fingerprint: string) => `${ws.id}|${fingerprint}`;

/** Remembers when a quote was issued (a re-quote of unchanged inputs gives the same fingerprint a new age). */
export function noteQuoteIssued(ctx: Ctx, ws: Workspace, fingerprint: string): void {
	ctx.store.quotesIssuedAt[quoteKey(ws, fingerprint)] = ctx.clock.now();
	ctx.markDirty();
}

/** Whether the workspace ages quotes and this one is older than its limit (or was never issued). */
export function quoteTooOld(ctx: Ctx, ws: Workspace, fingerprint: string): boolean {
	const maxAge = ws.quoteMaxAgeMs ?? 0;
	if (maxAge <= 0) return false;
	const issuedAt = ctx.store.quotesIssuedAt[quoteKey(ws, fingerprint)];
	return issuedAt === undefined || ctx.clock.now() - issuedAt > maxAge;
}
