// Creating a chunk's batch is one stage because only one upload batch can be active; its PUTs overlap the next one.
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
import { mapWithConcurrency } from '../../engine/capacity';
import {
	batchIdempotencyKey,
	isFileReference,
	type ChunkMember,
	readWriteChoice,
	type WriteChoice,
} from '../../writes/identity';
import type { UploadInput } from '../../validation';
import { optionsParam, withoutKeys } from '../common/params';
import type { ChunkState } from '../../engine/run';
import { existsCondition } from '../../writes/recover';
import type { WriteRun } from '../../writes/spending';
import {
	checkUpload,
	prepareOrFind,
	putToTarget,
	reportOfReference,
	targetOf,
	type CheckedUpload,
	type FileTarget,
	type PlannedUpload,
	type UploadOptions,
	type UploadTarget,
} from './resumeUpload';

export async function checkBatchUpload(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	options: UploadOptions,
): Promise<CheckedUpload> {
	return await checkUpload(
		ctx,
		run,
		itemIndex,
		readWriteChoice(ctx, itemIndex),
		undefined,
		options,
	);
}

export const UPLOAD_CONCURRENCY = 10;

export interface UploadEntry {
	position: number;
	itemIndex: number;
	input: IDataObject;
	choice: WriteChoice;
	planned: PlannedUpload;
	// An earlier entry of this chunk with the same upload: this one is not sent, it shares that one's report.
	duplicateOf?: number;
	sameWriteAs?: number;
}

export interface UploadChunk extends ChunkState {
	valid?: UploadEntry[];
	batch?: Batch;
	batchId?: string;
}

export async function createUploadBatch(
	ctx: IExecuteFunctions,
	chunk: UploadChunk,
	operationKey = 'uploads.batch',
): Promise<UploadChunk> {
	const valid: UploadEntry[] = await readChunk(chunk, (itemIndex) => {
		const checked = chunk.checked?.[chunk.itemIndexes.indexOf(itemIndex)] as CheckedUpload;
		return {
			choice: checked.write,
			input: checked.input as unknown as IDataObject,
			planned: checked.planned,
			sameWriteAs: checked.sameWriteAs,
		};
	});
	if (valid.length === 0 || refusesChunk(ctx, chunk.outcomes)) return { ...chunk, valid: [] };
	const firstOfKey = new Map<string, number>();
	for (const entry of valid) {
		// The same bytes for the same job (and reference and label), whatever the names: one upload.
		const first = firstOfKey.get(entry.planned.contentKey);
		if (first === undefined) firstOfKey.set(entry.planned.contentKey, entry.position);
		else entry.duplicateOf = first;
	}
	const sent = valid.filter((entry) => entry.duplicateOf === undefined);

	const first = sent[0].itemIndex;
	const batchOptions = optionsParam(ctx, first);
	// One shared job description goes once at batch level (the request is limited to 256 KiB).
	const oneJob = new Set(sent.map(({ input }) => JSON.stringify(input.jobDescription))).size === 1;
	const body: IDataObject = {
		items: sent.map(({ itemIndex, planned }) => ({
			itemKey: itemKeyFor(itemIndex),
			input: oneJob
				? withoutKeys(planned.body as unknown as IDataObject, ['jobDescription'])
				: planned.body,
		})),
	};
	if (oneJob) body.jobDescription = sent[0].input.jobDescription;
	validateBatch.call(ctx, uploadBatchSchema, body, first);
	// The batch is what its uploads are: each file's digest (streamed), job, name, type and reference, in order.
	const members: ChunkMember[] = sent.map(({ planned, choice }) => ({
		identity: planned.identity,
		choice: { ...choice, attemptLabel: planned.choice.attemptLabel },
	}));
	const key = batchIdempotencyKey(operationKey, members);
	const { batchId } = await createBatch(ctx, 'uploads', body, key, first);
	const batch = await waitForBatch(
		ctx,
		chunk.run,
		'uploads',
		batchId,
		first,
		batchTimeout(batchOptions),
	);
	return { ...chunk, valid, batch, batchId };
}

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
	const { itemIndex, input, planned } = entry;
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
	const reference = planned.body.externalReference as { source: string; id: string } | undefined;
	const uploadInput = input as unknown as UploadInput;
	let target: FileTarget | undefined;
	let reused: IDataObject = {};
	if (
		item.state !== 'succeeded' &&
		existsCondition(item.errorCode) === 'EXTERNAL_REFERENCE_CONFLICT' &&
		reference
	) {
		// The node's file reference proves the bytes; under the user's, the single upload's key is asked (prepareOrFind).
		const preparation = isFileReference(planned.body.externalReference)
			? {
					found: await reportOfReference(ctx, itemIndex, uploadInput, reference),
					verified: true,
					from: 'EXTERNAL_REFERENCE_CONFLICT',
				}
			: await prepareOrFind(ctx, itemIndex, uploadInput, planned);
		({ target, reused } = await targetOf(ctx, itemIndex, uploadInput, planned, preparation));
	} else if (item.state === 'succeeded' && item.upload) {
		target = {
			reportId: String(item.resourceId),
			upload: item.upload as unknown as UploadTarget,
			admitted: false,
		};
	}
	if (!target) return base;
	const sent = await putToTarget(ctx, itemIndex, uploadInput, planned, target);
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
