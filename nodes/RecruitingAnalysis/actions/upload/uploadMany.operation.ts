import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { batchTimeoutOption } from '../../engine/batch';
import {
	checkBatchUpload,
	createUploadBatch,
	putUploadBatch,
	type UploadChunk,
} from './uploadBatch';
import {
	binaryPropertyField,
	expectedRevisionOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
} from '../common/descriptions';
import type { Run } from '../../engine/run';

const properties: INodeProperties[] = [
	{
		displayName: 'Uploads all input items together, 20 at a time',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([batchTimeoutOption, expectedRevisionOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['uploadMany'] } },
	properties,
);

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number, run: Run) {
	// A label asks Upload Many for a separate report of the same file.
	return await checkBatchUpload(this, run, itemIndex, { labelMakesNewReport: true });
}

/** The PUTs end a chunk's upload; the next chunk's batch is prepared meanwhile, the one after waits. */
export const submitStage = 1;

/** Create the chunk's batch and read its signed URLs, then PUT the files. */
export const stages = [
	async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await createUploadBatch(this, chunk);
	},
	async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await putUploadBatch(this, chunk);
	},
];
