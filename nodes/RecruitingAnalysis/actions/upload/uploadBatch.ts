/**
 * The upload-batch stages shared by Upload > Upload Many and Analysis > Analyze Many: create the upload batch of
 * a chunk and read its signed URLs (one stage, since only one upload batch can be active), then PUT the files
 * (the next stage, which overlaps the creation of the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { uploadBatchSchema, validateBatch } from '../../validation';
import {
	batchItemFor,
	batchTimeout,
	createBatch,
	itemKeyFor,
	readChunk,
	refusesChunk,
	waitForBatch,
	type Batch,
} from '../../engine/batch';
import { mapWithConcurrency } from '../../engine/concurrency';
import {
	chunkIdempotencyKey,
	isFileReference,
	type ChunkMember,
	readWriteChoice,
	type WriteChoice,
} from '../../writes/identity';
import type { UploadInput } from '../../validation';
import { optionsParam, withoutKeys } from '../common/params';
import type { ChunkState } from '../../engine/types';
import { existsCondition } from '../../writes/recover';
import {
	checkUpload,
	prepareOrFind,
	putToTarget,
	reportOfReference,
	targetOf,
	type FileTarget,
	type PlannedUpload,
	type UploadOptions,
	type UploadTarget,
} from './resumeUpload';

/** How many files of a chunk are PUT at the same time (a chunk of 20 in two rounds). */
export const UPLOAD_CONCURRENCY = 10;

export interface UploadEntry {
	position: number;
	itemIndex: number;
	input: IDataObject;
	choice: WriteChoice;
	/** What the upload is, its key and its body (with the file reference when the user gave no reference). */
	upload: PlannedUpload;
	/** The position of an earlier entry of this chunk with the same upload: this one is not sent, it shares that one's. */
	duplicateOf?: number;
	/** The number (from 1) of the first item of this run with the same upload. */
	sameWriteAs?: number;
}

export interface UploadChunk extends ChunkState {
	valid?: UploadEntry[];
	batch?: Batch;
	batchId?: string;
}

/**
 * Validate every item of the chunk (an invalid item fails alone and is left out; without Continue On Fail it
 * stops the node before anything of the chunk is sent), create the upload batch and read it until it has
 * completed, which gives the signed upload URLs. An item whose upload is the same as an earlier item's of this
 * chunk (the same file for the same job) is not sent twice: it shares that item's report (`sameWriteAs`).
 */
export async function createUploadBatch(
	ctx: IExecuteFunctions,
	chunk: UploadChunk,
	options: UploadOptions,
	operationKey = 'uploads.batch',
): Promise<UploadChunk> {
	const valid: UploadEntry[] = await readChunk(chunk, async (itemIndex) => {
		const choice = readWriteChoice(ctx, itemIndex);
		const checked = await checkUpload(ctx, itemIndex, choice, undefined, options);
		return {
			choice,
			input: checked.input as unknown as IDataObject,
			upload: checked.planned,
			sameWriteAs: checked.sameWriteAs,
		};
	});
	if (valid.length === 0 || refusesChunk(ctx, chunk.outcomes)) return { ...chunk, valid: [] };
	const firstOfKey = new Map<string, number>();
	for (const entry of valid) {
		// The same bytes for the same job (and reference and label), whatever the names: one upload.
		const first = firstOfKey.get(entry.upload.contentKey);
		if (first === undefined) firstOfKey.set(entry.upload.contentKey, entry.position);
		else entry.duplicateOf = first;
	}
	const sent = valid.filter((entry) => entry.duplicateOf === undefined);

	const first = sent[0].itemIndex;
	const batchOptions = optionsParam(ctx, first);
	const body: IDataObject = {
		items: sent.map(({ itemIndex, upload }) => ({
			itemKey: itemKeyFor(itemIndex),
			input: upload.body,
		})),
	};
	// One shared job description goes once at batch level (the request is limited to 256 KiB).
	const jobs = new Set(sent.map(({ input }) => JSON.stringify(input.jobDescription)));
	if (jobs.size === 1) {
		body.jobDescription = sent[0].input.jobDescription;
		body.items = sent.map(({ itemIndex, upload }) => ({
			itemKey: itemKeyFor(itemIndex),
			input: withoutKeys(upload.body as unknown as IDataObject, ['jobDescription']),
		}));
	}
	validateBatch.call(ctx, uploadBatchSchema, body, first);
	// The batch is what its uploads are: each file's digest (streamed), job, name, type and reference, in order.
	const members: ChunkMember[] = sent.map(({ upload, choice }) => ({
		identity: upload.identity,
		choice: { ...choice, attemptLabel: upload.choice.attemptLabel },
	}));
	const key = chunkIdempotencyKey(operationKey, members);
	const { batchId } = await createBatch(ctx, 'uploads', body, key, first);
	const batch = await waitForBatch(ctx, 'uploads', batchId, first, batchTimeout(batchOptions));
	return { ...chunk, valid, batch, batchId };
}

/**
 * PUT each prepared file of the chunk to its signed URL, UPLOAD_CONCURRENCY at a time. Each item's outcome
 * becomes its batch item (state, reportId, errorCode) with `uploaded`; a failed PUT becomes that item's error.
 * An item the service refused because its reference (the user's or the file's) already has a report for the same
 * job is that report, recovered; a replayed preparation that expired is renewed as a single upload renews it.
 */
export async function putUploadBatch(
	ctx: IExecuteFunctions,
	chunk: UploadChunk,
): Promise<UploadChunk> {
	const { outcomes, valid = [], batch, batchId } = chunk;
	if (!batch || !batchId) return chunk;
	const sent = valid.filter((entry) => entry.duplicateOf === undefined);
	await mapWithConcurrency(sent, UPLOAD_CONCURRENCY, async (entry) => {
		try {
			outcomes[entry.position] = await putEntry(ctx, entry, batch, batchId);
		} catch (error) {
			outcomes[entry.position] = error as Error;
		}
	});
	for (const entry of valid) {
		const shared = entry.duplicateOf === undefined ? undefined : outcomes[entry.duplicateOf];
		if (entry.duplicateOf !== undefined) {
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
	const { itemIndex, input, upload } = entry;
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
	const reference = upload.body.externalReference as { source: string; id: string } | undefined;
	const uploadInput = input as unknown as UploadInput;
	let target: FileTarget | undefined;
	let reused: IDataObject = {};
	if (
		item.state !== 'succeeded' &&
		existsCondition(item.errorCode) === 'EXTERNAL_REFERENCE_CONFLICT' &&
		reference
	) {
		// This reference already has a report (an earlier run, another chunk, name or operation, a forgotten receipt).
		// The node's file reference proves the bytes; under the user's, the single upload's key is asked (prepareOrFind).
		const preparation = isFileReference(upload.body.externalReference)
			? {
					found: await reportOfReference(ctx, itemIndex, uploadInput, reference),
					verified: true,
					from: 'EXTERNAL_REFERENCE_CONFLICT',
				}
			: await prepareOrFind(ctx, itemIndex, uploadInput, upload);
		({ target, reused } = await targetOf(ctx, itemIndex, uploadInput, upload, preparation));
	} else if (item.state === 'succeeded' && item.upload) {
		target = {
			reportId: String(item.resourceId),
			upload: item.upload as unknown as UploadTarget,
			admitted: false,
		};
	}
	if (!target) return base;
	const sent = await putToTarget(ctx, itemIndex, uploadInput, upload, target);
	const output: IDataObject = {
		...base,
		state: 'succeeded',
		errorCode: null,
		reportId: sent.target.reportId,
		uploaded: true,
		...reused,
	};
	if (sent.target.replaces) output.replacesExpiredReportId = sent.target.replaces;
	if (!sent.put)
		return {
			...output,
			alreadyAdmitted: true,
			recovered: true,
			recoveredFrom: reused.recoveredFrom ?? 'ALREADY_ADMITTED',
		};
	return { ...output, uploadUrlRefreshed: sent.put.refreshed || reused.recovered === true };
}
