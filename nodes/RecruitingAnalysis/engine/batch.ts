import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath, REASON_HINTS } from '../transport';
import { api } from '../transport/api';
import { poll } from '../transport/poll';
import { waitOutCapacity } from './capacity';
import { addNotice } from '../actions/common/notices';
import type { ChunkState } from './types';
import { batchTimingFor } from './batchTiming';

const BATCH_POLL_INITIAL_MS = 100;

export type BatchKind = 'uploads' | 'analyses' | 'interviews';

const BATCH_PATHS: Record<BatchKind, string> = {
	uploads: '/api/v1/upload-batches',
	analyses: '/api/v1/analysis-batches',
	interviews: '/api/v1/interview-batches',
};

export interface BatchItem extends IDataObject {
	itemKey: string;
	state: string;
	resourceId: string;
	attemptId: string | null;
	errorCode: string | null;
}

export interface Batch extends IDataObject {
	id: string;
	status: string;
	items: BatchItem[];
}

/** The batch's item key for an input item (unique within a request; the batch's key is chunkIdempotencyKey). */
export function itemKeyFor(itemIndex: number): string {
	return `item-${itemIndex}`;
}

export async function getBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	batchId: string,
	itemIndex: number,
): Promise<Batch> {
	return (await api(ctx, {
		method: 'GET',
		path: apiPath(`${BATCH_PATHS[kind]}/{}`, batchId),
		itemIndex,
	})) as unknown as Batch;
}

export async function createBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	body: IDataObject,
	idempotencyKey: string,
	itemIndex: number,
): Promise<{ batchId: string; statusUrl?: string }> {
	// Only one batch of a kind can be active: BATCH_ALREADY_ACTIVE (e.g. the batch of an earlier, interrupted run
	// still running) is waited out like a capacity refusal; a refused request created nothing.
	return (await waitOutCapacity(
		ctx,
		itemIndex,
		async () =>
			await api(ctx, { method: 'POST', path: BATCH_PATHS[kind], body, idempotencyKey, itemIndex }),
		['BATCH_ALREADY_ACTIVE'],
	)) as unknown as { batchId: string; statusUrl?: string };
}

/**
 * Polls the batch until its status is "completed" (every item terminal, not every item succeeded). Only one
 * batch of a kind can be active per workspace, so the next chunk waits for this one. Upload and interview
 * batches complete on admission, so the first read is at once; an analysis batch completes only when its
 * analyses have finished, so its first read waits: 100 ms for the run's first batch, then as long as the batches
 * before it took (a read at once would always be wasted).
 */
export async function waitForBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	batchId: string,
	itemIndex: number,
	timeoutSeconds: number,
): Promise<Batch> {
	// An analysis batch's first read is timed from the batches this run has seen (waiter.ts).
	const timing = kind === 'analyses' ? batchTimingFor(ctx, BATCH_POLL_INITIAL_MS) : undefined;
	const answeredAt = Date.now();
	const offsets: number[] = [];
	const { value, timedOut } = await poll(ctx, {
		fetch: async (): Promise<Batch> => {
			offsets.push(Date.now() - answeredAt);
			return await getBatch(ctx, kind, batchId, itemIndex);
		},
		done: (batch: Batch) => batch.status === 'completed',
		timeoutSeconds,
		initialDelayMs: timing ? timing.stepMs() : BATCH_POLL_INITIAL_MS,
		maxDelayMs: 2000,
		firstReadDelayMs: timing ? timing.firstReadMs() : 0,
	});
	if (!timedOut) timing?.observe(offsets);
	if (timedOut) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Batch ${batchId} did not complete within ${timeoutSeconds} seconds`,
			{
				itemIndex,
				description:
					'The batch is still processing and keeps running on the service. Read it later with the Get Batch operation of this resource; only one batch of a kind can be active at a time.',
			},
		);
	}
	addNotice(ctx, 'batchCompleted');
	return value;
}

/** The batch item of an input item, by item key. */
export function batchItemFor(batch: Batch, itemIndex: number): BatchItem | undefined {
	const key = itemKeyFor(itemIndex);
	return (batch.items ?? []).find((item) => item.itemKey === key);
}

export const batchTimeoutOption = {
	displayName: 'Batch Timeout (Seconds)',
	name: 'batchTimeout',
	type: 'number' as const,
	typeOptions: { minValue: 1, maxValue: 3600 },
	default: 600,
	description:
		'How long to wait at most for each batch of up to 20 items to complete. Only one batch of a kind can be active per workspace, so each chunk waits for the previous one.',
};

export function batchTimeout(options: IDataObject): number {
	return typeof options.batchTimeout === 'number' && options.batchTimeout > 0
		? options.batchTimeout
		: 600;
}

/**
 * Without Continue On Fail, an item refused before anything was sent (validation) stops the node: then nothing of
 * its chunk is sent either.
 */
export function refusesChunk(
	ctx: IExecuteFunctions,
	outcomes: Array<IDataObject | Error>,
): boolean {
	return !ctx.continueOnFail() && outcomes.some((outcome) => outcome instanceof Error);
}

/**
 * Reads every item of the chunk with `read`. An item whose read throws (it failed the node's checks) gets the
 * error as its outcome and is left out; the others come back with their position in the chunk.
 */
export async function readChunk<T extends object>(
	chunk: ChunkState,
	read: (itemIndex: number) => T | Promise<T>,
): Promise<Array<T & { position: number; itemIndex: number }>> {
	const entries: Array<T & { position: number; itemIndex: number }> = [];
	for (const [position, itemIndex] of chunk.itemIndexes.entries()) {
		try {
			entries.push({ ...(await read(itemIndex)), position, itemIndex });
		} catch (error) {
			chunk.outcomes[position] = error as Error;
		}
	}
	return entries;
}

/**
 * How much older than the request that made it a batch must be to be a replay. The API gives no replay marker;
 * a batch created by this request cannot predate it, so one created before it (beyond a margin for the clocks of
 * n8n and the service) is the receipt of an earlier run answered again.
 */
export const REPLAY_MARGIN_MS = 1_000;

/** Whether `batch` is an earlier run's batch answered again from its receipt (created before `sentAt`). */
export function isReplayedBatch(batch: Batch, sentAt: number): boolean {
	const created = Date.parse(String(batch.createdAt ?? ''));
	return Number.isFinite(created) && created < sentAt - REPLAY_MARGIN_MS;
}

/**
 * Batch item codes a re-run cannot fix by submitting again: the file, the report or the invitation itself must
 * change first (spec, "Analyses": INVALID_UPLOAD needs a corrected upload; "Report status": requires_action needs a
 * human review; an ineligible report or invitation; a job revised after its expected revision).
 */
export const FINAL_ITEM_CODES = [
	'INVALID_UPLOAD',
	'DOCUMENT_UNREADABLE',
	'HUMAN_REVIEW_REQUIRED',
	'ANALYSIS_NOT_USABLE',
	'INTERVIEW_NOT_ELIGIBLE',
	'JD_REVISION_CHANGED',
	'VALIDATION_FAILED',
	'PREPARATION_EXPIRED',
	'NOT_FOUND',
];

/** How many replayed batches of one chunk a run follows before it submits anew (each re-run adds at most one). */
export const MAX_REPLAYED_BATCHES = 5;

/**
 * What a refused batch item's output says to do: the API's guidance for its code, and whether running again helps
 * (a refused item charged nothing; a re-run submits it again unless the item itself must change first).
 */
export function refusalHint(errorCode: string | null): IDataObject {
	if (!errorCode) return {};
	const guidance = REASON_HINTS[errorCode] ? `${REASON_HINTS[errorCode]} ` : '';
	if (FINAL_ITEM_CODES.includes(errorCode))
		return { hint: `${guidance}Running again does not change this item: it must change first.` };
	return {
		hint: `${guidance}Once the cause is fixed, run again: the node submits this item again (a refused item is not charged).`,
	};
}
