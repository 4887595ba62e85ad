import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { putResumeToStorage, type UploadTarget } from '../../transport';
import { uploadBatchSchema, validateBatch } from '../../validation';
import {
	batchItemFor,
	batchTimeout,
	batchTimeoutOption,
	chunkIdempotencyKey,
	createBatch,
	itemKeyFor,
	waitForBatch,
} from '../shared/batch';
import { mapWithConcurrency } from '../shared/concurrency';
import {
	binaryPropertyField,
	externalReferenceOptions,
	fileNameOverrideOption,
	idempotencyKeyOption,
	jobDescriptionFields,
} from '../shared/descriptions';
import { optionsParam, stringParam } from '../shared/params';
import { readUploadInput } from '../shared/upload';

const properties: INodeProperties[] = [
	{
		displayName:
			'All input items are sent through the upload-batch endpoint, 20 per batch; each batch is awaited and then every file is uploaded',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	binaryPropertyField,
	...jobDescriptionFields,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [batchTimeoutOption, ...externalReferenceOptions, fileNameOverrideOption, idempotencyKeyOption],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['upload'], operation: ['uploadMany'] } }, properties);

export const mode = 'batch';

/**
 * One upload batch per chunk of up to 20 input items: validate every item first (an invalid item fails alone
 * and is left out), create the batch, wait until it completes, then PUT each prepared file.
 */
export async function execute(this: IExecuteFunctions, itemIndexes: number[]): Promise<Array<IDataObject | Error>> {
	const outcomes: Array<IDataObject | Error> = itemIndexes.map(() => ({}));
	const valid: Array<{ position: number; itemIndex: number; input: IDataObject }> = [];
	for (const [position, itemIndex] of itemIndexes.entries()) {
		try {
			valid.push({ position, itemIndex, input: (await readUploadInput(this, itemIndex)) as unknown as IDataObject });
		} catch (error) {
			outcomes[position] = error as Error;
		}
	}
	if (valid.length === 0) return outcomes;

	const first = valid[0].itemIndex;
	const options = optionsParam(this, first);
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
	validateBatch.call(this, uploadBatchSchema, body, first);
	const key = chunkIdempotencyKey(this, valid.map((v) => v.itemIndex), 'upload.uploadMany', options);
	const { batchId } = await createBatch(this, 'uploads', body, key, first);
	const batch = await waitForBatch(this, 'uploads', batchId, first, batchTimeout(options));

	await mapWithConcurrency(valid, 5, async ({ position, itemIndex, input }) => {
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
			const { refreshed } = await putResumeToStorage.call(this, {
				reportId: item.resourceId,
				upload: item.upload as unknown as UploadTarget,
				itemIndex,
				binaryPropertyName: stringParam(this, 'binaryPropertyName', itemIndex, 'data') || 'data',
			});
			outcomes[position] = { ...base, uploaded: true, uploadUrlRefreshed: refreshed };
		} catch (error) {
			outcomes[position] = error as Error;
		}
	});
	return outcomes;
}
