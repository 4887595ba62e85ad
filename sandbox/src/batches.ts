/**
 * Batches of uploads, analyses and interview invitations (spec "Batch rules"). Items are admitted
 * independently on real timer ticks; capacity-limited items wait (`waiting_capacity`) until the admission
 * deadline (sandbox clock). An analysis batch completes when every admitted analysis is terminal; the
 * others when every item is admitted or failed. Completion publishes `batch.completed`.
 */
import type { Ctx } from './context';
import { DAY } from './clock';
import { ApiError } from './errors';
import { newId } from './store';
import type { BatchItem, BatchRecord, Workspace } from './types';
import { prepareUpload } from './uploads';
import { startAnalysis } from './analyses';
import { admittedRunning, maybeComplete } from './batchCompletion';
import { invite } from './interviews';
import type { ParsedJobRef, ParsedUploadInput } from './validation';

export const BATCH_EXPIRY_MS = 7 * DAY;
const CAPACITY_REASONS: Record<BatchRecord['kind'], string> = {
	uploads: 'PENDING_UPLOAD_LIMIT',
	analyses: 'ACTIVE_ANALYSIS_LIMIT',
	interviews: 'ACTIVE_INTERVIEW_LIMIT',
};

export function activeBatch(
	ctx: Ctx,
	workspaceId: string,
	kind: BatchRecord['kind'],
): BatchRecord | undefined {
	return Object.values(ctx.store.batches).find(
		(b) => b.workspaceId === workspaceId && b.kind === kind && b.status === 'processing',
	);
}

export function createBatch(
	ctx: Ctx,
	ws: Workspace,
	kind: BatchRecord['kind'],
	items: { itemKey: string; input: Record<string, unknown> }[],
	batchJobDescription: unknown,
): BatchRecord {
	const now = ctx.clock.now();
	const batch: BatchRecord = {
		id: newId('bat_'),
		workspaceId: ws.id,
		kind,
		status: 'processing',
		createdAt: now,
		expiresAt: now + BATCH_EXPIRY_MS,
		admissionDeadline: now + ws.admissionDeadlineMs,
		items: items.map((it) => ({
			itemKey: it.itemKey,
			state: 'queued',
			resourceId: null,
			attemptId: null,
			errorCode: null,
			input: it.input,
		})),
		batchJobDescription,
	};
	ctx.store.batches[batch.id] = batch;
	ctx.store.countersOf(ws.id).batchesCreated += 1;
	ctx.markDirty();
	ctx.timers.schedule(ws.id, 0, () => tick(ctx, batch.id));
	return batch;
}

function admitItem(ctx: Ctx, ws: Workspace, batch: BatchRecord, item: BatchItem): void {
	const input = item.input;
	if (batch.kind === 'uploads') {
		const parsed = input as unknown as ParsedUploadInput;
		const job = (parsed.jobDescription ?? batch.batchJobDescription) as ParsedJobRef;
		const res = prepareUpload(ctx, ws, parsed, job);
		item.resourceId = res.reportId;
		item.upload = res.upload;
	} else if (batch.kind === 'analyses') {
		const res = startAnalysis(ctx, ws, input.reportId as string, input.quoteFingerprint as string);
		item.resourceId = res.reportId;
		item.attemptId = res.attemptId;
	} else {
		const res = invite(
			ctx,
			ws,
			{
				reportId: input.reportId as string,
				candidateEmail: input.candidateEmail as string,
				sendEmail: true,
			},
			input.quoteFingerprint as string,
		);
		item.resourceId = res.interviewId;
	}
	item.state = 'succeeded';
	item.errorCode = null;
}

export function tick(ctx: Ctx, batchId: string): void {
	const batch = ctx.store.batches[batchId];
	if (!batch || batch.status === 'completed') return;
	const ws = ctx.store.workspaces[batch.workspaceId];
	const now = ctx.clock.now();
	let admittedThisTick = 0;
	for (const item of batch.items) {
		if (item.state !== 'queued' && item.state !== 'waiting_capacity') continue;
		const capacityUsed = batch.kind === 'analyses' ? admittedRunning(ctx, batch) : admittedThisTick;
		if (capacityUsed >= ws.batchCapacity) {
			waitOrFail(item, batch, now, CAPACITY_REASONS[batch.kind]);
			continue;
		}
		try {
			admitItem(ctx, ws, batch, item);
			admittedThisTick += 1;
		} catch (err) {
			if (!(err instanceof ApiError)) throw err;
			const reason = err.reason ?? (err.body('').error.code as string);
			if (reason === CAPACITY_REASONS[batch.kind]) waitOrFail(item, batch, now, reason);
			else {
				item.state = 'failed';
				item.errorCode = reason;
			}
		}
	}
	ctx.markDirty();
	maybeComplete(ctx, batch);
	if (batch.status === 'processing')
		ctx.timers.schedule(ws.id, ctx.opts.workerDelayMs, () => tick(ctx, batch.id));
}

/** A capacity-limited item waits until the admission deadline, then fails with the capacity condition as its errorCode. */
function waitOrFail(item: BatchItem, batch: BatchRecord, now: number, reason: string): void {
	if (now >= batch.admissionDeadline) {
		item.state = 'failed';
		item.errorCode = reason;
	} else {
		item.state = 'waiting_capacity';
	}
}

export function batchView(b: BatchRecord): Record<string, unknown> {
	return {
		id: b.id,
		kind: b.kind,
		status: b.status,
		createdAt: new Date(b.createdAt).toISOString(),
		expiresAt: new Date(b.expiresAt).toISOString(),
		items: b.items.map((it) => {
			const view: Record<string, unknown> = {
				itemKey: it.itemKey,
				state: it.state,
				resourceId: it.resourceId,
				attemptId: it.attemptId,
				errorCode: it.errorCode,
			};
			if (b.kind === 'uploads') view.upload = it.upload ?? null;
			return view;
		}),
	};
}
