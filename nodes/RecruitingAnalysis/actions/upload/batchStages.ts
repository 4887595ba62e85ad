/**
 * The upload-batch stages shared by Upload > Upload Many and Analysis > Analyze Many: create the upload batch of
 * a chunk and read its signed URLs (one stage, since only one upload batch can be active), then PUT the files
 * (the next stage, which overlaps the creation of the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, putResumeToStorage, type UploadTarget } from '../../transport';
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
import { api } from '../../transport/api';
import { mapWithConcurrency } from '../../engine/concurrency';
import { hasApiCondition, outcomeOf } from '../../transport/conditions';
import {
	chunkIdempotencyKey,
	type ChunkMember,
	readWriteChoice,
	type WriteChoice,
} from '../../writes/identity';
import { sameWriteAs } from '../../writes/sameWrites';
import type { UploadInput } from '../../validation';
import { optionsParam, stringParam, withoutKeys } from '../common/params';
import type { ChunkState } from '../../engine/types';
import { existsCondition, recoverWrite } from '../../writes/recover';
import {
	readUploadInput,
	renewExpiredUpload,
	uploadWriteOf,
	type UploadOptions,
	type UploadWrite,
} from './resumeUpload';

/** How many files of a chunk are PUT at the same time (a chunk of 20 in two rounds). */
export const UPLOAD_CONCURRENCY = 10;

export interface UploadEntry {
	position: number;
	itemIndex: number;
	input: IDataObject;
	choice: WriteChoice;
	/** What the upload is, its key and its body (with the file reference when the user gave no reference). */
	upload: UploadWrite;
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
		const input = await readUploadInput(ctx, itemIndex);
		const upload = await uploadWriteOf(ctx, itemIndex, input, choice, undefined, options);
		return {
			choice,
			input: input as unknown as IDataObject,
			upload,
			sameWriteAs: sameWriteAs(ctx, upload.key, itemIndex),
		};
	});
	if (valid.length === 0 || refusesChunk(ctx, chunk.outcomes)) return { ...chunk, valid: [] };
	const firstOfKey = new Map<string, number>();
	for (const entry of valid) {
		const first = firstOfKey.get(entry.upload.key);
		if (first === undefined) firstOfKey.set(entry.upload.key, entry.position);
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
	const put = async (reportId: string, target: UploadTarget) =>
		await putResumeToStorage.call(ctx, {
			reportId,
			upload: target,
			itemIndex,
			binaryPropertyName: stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data',
		});
	const reference = upload.body.externalReference as { source: string; id: string } | undefined;
	if (
		item.state !== 'succeeded' &&
		existsCondition(item.errorCode) === 'EXTERNAL_REFERENCE_CONFLICT' &&
		reference
	) {
		// This upload already has a report (an earlier run, another chunk or operation, or a forgotten receipt).
		const found = await recoverWrite(
			ctx,
			itemIndex,
			{
				kind: 'upload',
				externalReference: reference,
				jobDescription: input.jobDescription as IDataObject,
			},
			'EXTERNAL_REFERENCE_CONFLICT',
		).catch(() => undefined);
		if (found) {
			const recovered = { ...base, ...found, state: 'succeeded', errorCode: null };
			if (found.attemptId !== null) return { ...recovered, uploaded: true, alreadyAdmitted: true };
			const refreshed = await api(ctx, {
				method: 'POST',
				path: apiPath('/api/v1/uploads/{}/url', String(found.reportId)),
				itemIndex,
			});
			await put(String(found.reportId), refreshed.upload as unknown as UploadTarget);
			return { ...recovered, uploaded: true, uploadUrlRefreshed: true };
		}
	}
	if (item.state !== 'succeeded' || !item.upload) return base;
	const sent = await outcomeOf(
		async () => await put(item.resourceId, item.upload as unknown as UploadTarget),
	);
	if (sent.ok) return { ...base, uploaded: true, uploadUrlRefreshed: sent.value.refreshed };
	// A replayed batch whose analysis was already admitted: the file is frozen, the write exists.
	if (existsCondition(sent.error) === 'ALREADY_ADMITTED') {
		return {
			...base,
			uploaded: true,
			alreadyAdmitted: true,
			recovered: true,
			recoveredFrom: 'ALREADY_ADMITTED',
		};
	}
	if (!hasApiCondition(sent.error, 'PREPARATION_EXPIRED')) return sent.error as Error;
	// A replayed batch whose preparation expired unadmitted (older than 24 hours): one new preparation.
	const renewed = await renewExpiredUpload(
		ctx,
		itemIndex,
		input as unknown as UploadInput,
		upload,
		item.resourceId,
	);
	const renewedBase = {
		...base,
		reportId: renewed.reportId,
		uploaded: true,
		replacesExpiredReportId: item.resourceId,
	};
	const again = await outcomeOf(async () => await put(renewed.reportId, renewed.upload));
	if (again.ok) return { ...renewedBase, uploadUrlRefreshed: again.value.refreshed };
	// A repeat of a run that already renewed it and analysed the new report: the write exists.
	if (existsCondition(again.error) === 'ALREADY_ADMITTED')
		return {
			...renewedBase,
			alreadyAdmitted: true,
			recovered: true,
			recoveredFrom: 'ALREADY_ADMITTED',
		};
	return again.error as Error;
}
