/**
 * When a batch completes (spec "Batch rules", "States and transitions / Batch"): an analysis batch when no item
 * waits and every admitted analysis is terminal, the others when every item is admitted or failed. Completion
 * publishes `batch.completed`. The batch worker (batches.ts) and the analysis worker (analyses.ts) both ask here.
 */
import type { Ctx } from './context';
import { publish } from './events';
import { isTerminal, type BatchRecord, type ReportRecord } from './types';

export function admittedRunning(ctx: Ctx, batch: BatchRecord): number {
	if (batch.kind !== 'analyses') return 0;
	return batch.items.filter((it) => {
		if (it.state !== 'succeeded' || !it.resourceId) return false;
		const r = ctx.store.reports[it.resourceId];
		return r && r.attemptId === it.attemptId && !isTerminal(r);
	}).length;
}

export function maybeComplete(ctx: Ctx, batch: BatchRecord): void {
	if (batch.status === 'completed') return;
	if (batch.items.some((it) => it.state === 'queued' || it.state === 'waiting_capacity')) return;
	if (batch.kind === 'analyses' && admittedRunning(ctx, batch) > 0) return;
	batch.status = 'completed';
	const succeededCount = batch.items.filter((it) => it.state === 'succeeded').length;
	publish(ctx, batch.workspaceId, 'batch.completed', {
		batchId: batch.id,
		kind: batch.kind,
		succeededCount,
		failedCount: batch.items.length - succeededCount,
	});
}

export function onAnalysisTerminal(ctx: Ctx, r: ReportRecord): void {
	for (const b of Object.values(ctx.store.batches)) {
		if (
			b.workspaceId === r.workspaceId &&
			b.kind === 'analyses' &&
			b.status === 'processing' &&
			b.items.some((it) => it.resourceId === r.id)
		) {
			maybeComplete(ctx, b);
		}
	}
}
