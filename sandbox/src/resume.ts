/**
 * Background work after a restart from `--data`, and the periodic housekeeping tick: analyses in flight,
 * processing batches and pending webhook deliveries are picked up again; expiries are applied even when
 * no request arrives (so `interview.expired` reaches the feed and webhooks).
 */
import type { Ctx } from './context';
import { resumeAnalysis } from './analyses';
import { tick } from './batches';
import { resumeEndpoint } from './webhooks';
import { sweepWorkspace } from './workspaces';
import { isTerminal } from './types';

export function resumeWork(ctx: Ctx): void {
	for (const r of Object.values(ctx.store.reports)) {
		if (r.run && !isTerminal(r)) resumeAnalysis(ctx, r);
	}
	for (const b of Object.values(ctx.store.batches)) {
		if (b.status === 'processing') ctx.timers.schedule(b.workspaceId, 0, () => tick(ctx, b.id));
	}
	for (const ep of Object.values(ctx.store.endpoints)) if (!ep.paused) resumeEndpoint(ctx, ep);
}

export function sweepAll(ctx: Ctx): void {
	for (const id of Object.keys(ctx.store.workspaces)) sweepWorkspace(ctx, id);
}
