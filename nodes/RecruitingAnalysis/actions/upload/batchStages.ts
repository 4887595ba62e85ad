/**
 * The upload-batch stages shared by Upload > Upload Many and Analysis > Analyze Many: create the upload batch of
 * a chunk and read its signed URLs (one stage, since only one upload batch can be active), then PUT the files
 * (the next stage, which overlaps the creation of the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, putResumeToStorage, type UploadTarget } from '../../transport';
import { uploadBatchSchema, validateBatch } from '../../validation';
import { batchItemFor, batchTimeout, createBatch, itemKeyFor, readChunk, refusesChunk, waitForBatch, type Batch } from '../../engine/batch';
import { api } from '../../transport/api';
import { mapWithConcurrency } from '../../engine/concurrency';
import { outcomeOf } from '../../transport/conditions';
import { chunkIdempotencyKey, type ChunkMember, readWriteChoice, resumeDigest, uploadIdentity, type WriteChoice } from '../../writes/identity';
import { optionsParam, stringParam } from '../common/params';
import type { ChunkState } from '../../engine/types';
import { existsCondition, recoverWrite } from '../../writes/recover';
import { readUploadInput } from './resumeUpload';

/** How many files of a chunk are PUT at the same time (a chunk of 20 in two rounds). */
export const UPLOAD_CONCURRENCY = 10;

export interface UploadEntry {
	position: number;
	itemIndex: number;
	input: IDataObject;
	choice: WriteChoice;
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
export async function createUploadBatch(ctx: IExecuteFunctions, chunk: UploadChunk, operationKey = 'uploads.batch'): Promise<UploadChunk> {
	const valid: UploadEntry[] = await readChunk(chunk, async (itemIndex) => ({
		choice: readWriteChoice(ctx, itemIndex),
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
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the rest destructuring leaves these out
			const { jobDescription: _shared, ...rest } = input;
			return { itemKey: itemKeyFor(itemIndex), input: rest };
		});
	}
	validateBatch.call(ctx, uploadBatchSchema, body, first);
	// The batch is what its uploads are: each file's digest (streamed), job, name, type and reference, in order.
	const members: ChunkMember[] = [];
	for (const { itemIndex, input, choice } of valid) {
		members.push({ identity: uploadIdentity(input, await resumeDigest(ctx, itemIndex)), choice });
	}
	const key = chunkIdempotencyKey(operationKey, members);
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
		const put = async (reportId: string, upload: UploadTarget) =>
			await putResumeToStorage.call(ctx, {
				reportId,
				upload,
				itemIndex,
				binaryPropertyName: stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data',
			});
		try {
			const reference = input.externalReference as { source: string; id: string } | undefined;
			if (item.state !== 'succeeded' && existsCondition(item.errorCode) === 'EXTERNAL_REFERENCE_CONFLICT' && reference) {
				// This application already has a report (e.g. the receipt of an earlier run is gone): recover it.
				const found = await recoverWrite(
					ctx,
					itemIndex,
					{ kind: 'upload', externalReference: reference, jobDescription: input.jobDescription as IDataObject },
					'EXTERNAL_REFERENCE_CONFLICT',
				).catch(() => undefined);
				if (found) {
					const recovered = { ...base, ...found, state: 'succeeded', errorCode: null };
					if (found.attemptId !== null) {
						outcomes[position] = { ...recovered, uploaded: true, alreadyAdmitted: true };
						return;
					}
					const refreshed = await api(ctx, { method: 'POST', path: apiPath('/api/v1/uploads/{}/url', String(found.reportId)), itemIndex });
					await put(String(found.reportId), refreshed.upload as unknown as UploadTarget);
					outcomes[position] = { ...recovered, uploaded: true, uploadUrlRefreshed: true };
					return;
				}
			}
			if (item.state !== 'succeeded' || !item.upload) {
				outcomes[position] = base;
				return;
			}
			const sent = await outcomeOf(async () => await put(item.resourceId, item.upload as unknown as UploadTarget));
			if (sent.ok) outcomes[position] = { ...base, uploaded: true, uploadUrlRefreshed: sent.value.refreshed };
			// A replayed batch whose analysis was already admitted: the file is frozen, the write exists.
			else if (existsCondition(sent.error) === 'ALREADY_ADMITTED') {
				outcomes[position] = { ...base, uploaded: true, alreadyAdmitted: true, recovered: true, recoveredFrom: 'ALREADY_ADMITTED' };
			} else outcomes[position] = sent.error as Error;
		} catch (error) {
			outcomes[position] = error as Error;
		}
	});
	return chunk;
}
