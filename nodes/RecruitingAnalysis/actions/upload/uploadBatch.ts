// Creating a chunk's batch is one stage because only one upload batch can be active; its PUTs overlap the next one.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { uploadBatchSchema, validateBatch } from '../../validation';
import {
	batchItemFor,
	batchTimeout,
	createBatch,
	itemKeyFor,
	waitForBatch,
	type Batch,
} from '../../engine/batch';
import { mapWithConcurrency } from '../../engine/capacity';
import type { ChunkState } from '../../engine/run';
import {
	batchIdempotencyKey,
	isFileReference,
	readWriteChoice,
	type WriteChoice,
} from '../../writes/identity';
import { existsCondition } from '../../writes/recover';
import type { WriteRun } from '../../writes/spending';
import { optionsParam, withoutKeys } from '../common/params';
import { outcomeOf } from '../../transport';
import {
	checkUpload,
	prepareOrFind,
	reportOfReference,
	sendResume,
	type CheckedUpload,
	type Preparation,
	type UploadTarget,
} from './resumeUpload';

export async function checkBatchUpload(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	options: { labelMakesNewReport: boolean },
): Promise<CheckedUpload> {
	const write = readWriteChoice(ctx, itemIndex);
	return await checkUpload(ctx, run, itemIndex, write, undefined, options);
}

const UPLOAD_CONCURRENCY = 10;

export interface UploadEntry extends CheckedUpload {
	position: number;
	itemIndex: number;
	choice: WriteChoice;
	// An earlier entry of this chunk with the same upload: this one is not sent, it shares that one's report.
	duplicateOf?: number;
}

export interface UploadChunk extends ChunkState {
	valid?: UploadEntry[];
	batch?: Batch;
	batchId?: string;
}

export async function createUploadBatch(ctx: IExecuteFunctions, chunk: UploadChunk) {
	const firstOfKey = new Map<string, number>();
	const valid = chunk.itemIndexes.map((itemIndex, position): UploadEntry => {
		const checked = chunk.checked?.[position] as CheckedUpload;
		// The same bytes for the same job (and reference and label), whatever the names: one upload.
		const duplicateOf = firstOfKey.get(checked.contentKey);
		if (duplicateOf === undefined) firstOfKey.set(checked.contentKey, position);
		return { ...checked, position, itemIndex, choice: checked.write, duplicateOf };
	});
	const sent = valid.filter((entry) => entry.duplicateOf === undefined);

	const first = sent[0].itemIndex;
	// One shared job description goes once at batch level (the request is limited to 256 KiB).
	const oneJob = new Set(sent.map(({ input }) => JSON.stringify(input.jobDescription))).size === 1;
	const body: IDataObject = {
		items: sent.map(({ itemIndex, body: input }) => ({
			itemKey: itemKeyFor(itemIndex),
			input: oneJob ? withoutKeys(input as unknown as IDataObject, ['jobDescription']) : input,
		})),
	};
	if (oneJob) body.jobDescription = sent[0].input.jobDescription;
	validateBatch.call(ctx, uploadBatchSchema, body, first);
	// The batch is what its uploads are: each file's digest (streamed), job, name, type and reference, in order.
	const members = sent.map(({ identity, keyChoice }) => ({ identity, choice: keyChoice }));
	const key = batchIdempotencyKey('uploads.batch', members);
	const { batchId } = await createBatch(ctx, 'uploads', body, key, first);
	const timeout = batchTimeout(optionsParam(ctx, first));
	const batch = await waitForBatch(ctx, chunk.run, 'uploads', batchId, first, timeout);
	return { ...chunk, valid, batch, batchId };
}

export async function putUploadBatch(ctx: IExecuteFunctions, chunk: UploadChunk) {
	// Reached only after createUploadBatch succeeded: a failed stage stops the chunk (engine/run.ts).
	const { outcomes, valid, batch, batchId } = chunk as Required<UploadChunk>;
	const sent = valid.filter((entry) => entry.duplicateOf === undefined);
	await mapWithConcurrency(sent, UPLOAD_CONCURRENCY, async (entry) => {
		const put = await outcomeOf(async () => await putEntry(ctx, entry, batch, batchId));
		outcomes[entry.position] = put.ok ? put.value : (put.error as Error);
	});
	for (const entry of valid) {
		if (entry.duplicateOf !== undefined) {
			const shared = outcomes[entry.duplicateOf];
			outcomes[entry.position] =
				shared instanceof Error
					? shared
					: { ...shared, itemKey: itemKeyFor(entry.itemIndex), fileName: entry.input.fileName };
		}
		const outcome = outcomes[entry.position];
		if (entry.sameWriteAs !== undefined && !(outcome instanceof Error))
			outcome.sameWriteAs = entry.sameWriteAs;
	}
	return chunk;
}

async function putEntry(
	ctx: IExecuteFunctions,
	entry: UploadEntry,
	batch: Batch,
	batchId: string,
): Promise<IDataObject | Error> {
	const { itemIndex, input } = entry;
	const item = batchItemFor(batch, itemIndex);
	if (!item)
		return new Error(`Batch ${batchId} has no entry for item key ${itemKeyFor(itemIndex)}`);
	const base: IDataObject = {
		batchId,
		itemKey: item.itemKey,
		state: item.state,
		reportId: item.resourceId ?? null,
		errorCode: item.errorCode ?? null,
		fileName: input.fileName,
		uploaded: false,
	};
	let start: Preparation;
	if (item.state === 'succeeded' && item.upload) {
		start = { reportId: String(item.resourceId), target: item.upload as unknown as UploadTarget };
	} else if (existsCondition(item.errorCode) === 'EXTERNAL_REFERENCE_CONFLICT') {
		// The node's file reference proves the bytes; under the user's, the single upload's key is asked (prepareOrFind).
		const proof = { from: 'EXTERNAL_REFERENCE_CONFLICT', verified: true };
		start = isFileReference(entry.body.externalReference)
			? await reportOfReference(ctx, itemIndex, entry, proof)
			: await prepareOrFind(ctx, itemIndex, entry);
	} else {
		return base;
	}
	const sent = await sendResume(ctx, itemIndex, entry, start);
	return { ...base, state: 'succeeded', errorCode: null, ...sent };
}
