import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath, writeKey } from '../../transport';
import { api, poll } from './api';
import { waitOutCapacity } from './capacity';
import { addNotice } from './hints';
import type { ChunkState } from './types';
import type { WriteChoice } from './keys';

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

/** One item of a chunk as its key sees it: what its write is, and the user's key and label for it. */
export interface ChunkMember {
	identity: readonly unknown[];
	choice: WriteChoice;
}

/**
 * The idempotency key of one batch request: derived from its items' writes in order (each item's business identity,
 * or its own Idempotency Key when given, and its New Attempt Label). Never from the execution or the item
 * positions: a repeat of the same chunk, by any path, carries the same key.
 */
export function chunkIdempotencyKey(write: string, members: readonly ChunkMember[]): string {
	const identity = members.map(({ identity: own, choice }) => [choice.userKey ? ['userKey', choice.userKey] : own, choice.attemptLabel ?? '']);
	return writeKey({ write, identity });
}

export async function getBatch(ctx: IExecuteFunctions, kind: BatchKind, batchId: string, itemIndex: number): Promise<Batch> {
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
		async () => await api(ctx, { method: 'POST', path: BATCH_PATHS[kind], body, idempotencyKey, itemIndex }),
		['BATCH_ALREADY_ACTIVE'],
	)) as unknown as { batchId: string; statusUrl?: string };
}

/**
 * Polls the batch until its status is "completed" (every item terminal, not every item succeeded). Only one
 * batch of a kind can be active per workspace, so the next chunk waits for this one. Upload and interview
 * batches complete on admission, so the first read is at once; an analysis batch completes only when its
 * analyses have finished, so its first read waits one poll interval (a read at once would always be wasted).
 */
export async function waitForBatch(
	ctx: IExecuteFunctions,
	kind: BatchKind,
	batchId: string,
	itemIndex: number,
	timeoutSeconds: number,
): Promise<Batch> {
	const { value, timedOut } = await poll(ctx, {
		fetch: async (): Promise<Batch> => await getBatch(ctx, kind, batchId, itemIndex),
		done: (batch: Batch) => batch.status === 'completed',
		timeoutSeconds,
		initialDelayMs: BATCH_POLL_INITIAL_MS,
		maxDelayMs: 2000,
		firstReadDelayMs: kind === 'analyses' ? BATCH_POLL_INITIAL_MS : 0,
	});
	if (timedOut) {
		throw new NodeOperationError(ctx.getNode(), `Batch ${batchId} did not complete within ${timeoutSeconds} seconds`, {
			itemIndex,
			description:
				'The batch is still processing and keeps running on the service. Read it later with the Get Batch operation of this resource; only one batch of a kind can be active at a time.',
		});
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
	return typeof options.batchTimeout === 'number' && options.batchTimeout > 0 ? options.batchTimeout : 600;
}

/**
 * Without Continue On Fail, an item refused before anything was sent (validation) stops the node: then nothing of
 * its chunk is sent either.
 */
export function refusesChunk(ctx: IExecuteFunctions, outcomes: Array<IDataObject | Error>): boolean {
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
