/**
 * The upload-batch stages shared by Upload > Upload Many and Analysis > Analyze Many: create the upload batch of
 * a chunk and read its signed URLs (one stage, since only one upload batch can be active), then PUT the files
 * (the next stage, which overlaps the creation of the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { putResumeToStorage, type UploadTarget } from '../../transport';
import { uploadBatchSchema, validateBatch } from '../../validation';
import {
	batchItemFor,
	batchTimeout,
	chunkIdempotencyKey,
	createBatch,
	itemKeyFor,
	readChunk,
	refusesChunk,
	waitForBatch,
	type Batch,
} from './batch';
import { mapWithConcurrency } from './concurrency';
import { optionsParam, stringParam } from './params';
import type { ChunkState } from './types';
import { readUploadInput } from './upload';

/** How many files of a chunk are PUT at the same time. */
export const UPLOAD_CONCURRENCY = 5;

export interface UploadEntry {
	position: number;
	itemIndex: number;
	input: IDataObject;
}

export interface UploadChunk extends ChunkState {
	valid?: UploadEntry[];
	batch?: Batch;
	batchId?: string;
}

/**
 * Validate every item of the chunk (an invalid item fails alone and is left out; without Continue On Fail it
 * stops the node before anything of the chunk is sent), create the upload batch and read it until it has
 * completed, which gives the signed upload URLs.
 */
export async function createUploadBatch(ctx: IExecuteFunctions, chunk: UploadChunk, operationKey: string): Promise<UploadChunk> {
	const valid: UploadEntry[] = await readChunk(chunk, async (itemIndex) => ({
		input: (await readUploadInput(ctx, itemIndex)) as unknown as IDataObject,
	}));
	if (valid.length === 0 || refusesChunk(ctx, chunk.outcomes)) return { ...chunk, valid: [] };

	const first = valid[0].itemIndex;
	const options = optionsParam(ctx, first);
	const body: IDataObject = { items: valid.map(({ itemIndex, input }) => ({ itemKey: itemKeyFor(itemIndex), input })) };
	// One shared job description goes once at batch level (the request is limited to 256 KiB).
	const jobs = new Set(valid.map(({ input }) => JSON.stringify(input.jobDescription)));
	if (jobs.size === 1) {
		body.jobDescription = valid[0].input.jobDescription;
		body.items = valid.map(({ itemIndex, input }) => {
			const { jobDescription: _shared, ...rest } = input;
			return { itemKey: itemKeyFor(itemIndex), input: rest };
		});
	}
	validateBatch.call(ctx, uploadBatchSchema, body, first);
	const key = chunkIdempotencyKey(ctx, valid.map((v) => v.itemIndex), operationKey, options);
	const { batchId } = await createBatch(ctx, 'uploads', body, key, first);
	const batch = await waitForBatch(ctx, 'uploads', batchId, first, batchTimeout(options));
	return { ...chunk, valid, batch, batchId };
}

/**
 * PUT each prepared file of the chunk to its signed URL, UPLOAD_CONCURRENCY at a time. Each item's outcome
 * becomes its batch item (state, reportId, errorCode) with `uploaded`; a failed PUT becomes that item's error.
 */
export async function putUploadBatch(ctx: IExecuteFunctions, chunk: UploadChunk): Promise<UploadChunk> {
	const { outcomes, valid = [], batch, batchId } = chunk;
	if (!batch || !batchId) return chunk;
	await mapWithConcurrency(valid, UPLOAD_CONCURRENCY, async ({ position, itemIndex, input }) => {
		const item = batchItemFor(batch, itemIndex);
		if (!item) {
			outcomes[position] = new Error(`Batch ${batchId} has no entry for item key ${itemKeyFor(itemIndex)}`);
			return;
		}
		const base: IDataObject = {
			batchId,
			itemKey: item.itemKey,
			state: item.state,
			reportId: item.resourceId ?? null,
			errorCode: item.errorCode ?? null,
			fileName: input.fileName,
			uploaded: false,
		};
		if (item.state !== 'succeeded' || !item.upload) {
			outcomes[position] = base;
			return;
		}
		try {
			const { refreshed } = await putResumeToStorage.call(ctx, {
				reportId: item.resourceId,
				upload: item.upload as unknown as UploadTarget,
				itemIndex,
				binaryPropertyName: stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data',
			});
			outcomes[position] = { ...base, uploaded: true, uploadUrlRefreshed: refreshed };
		} catch (error) {
			outcomes[position] = error as Error;
		}
	});
	return chunk;
}
