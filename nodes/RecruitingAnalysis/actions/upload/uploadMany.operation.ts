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
import { stage, type Run } from '../../engine/run';

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

/** A label asks Upload Many for a separate report of the same file. */
const UPLOAD_OPTIONS = { labelMakesNewReport: true };

export async function check(this: IExecuteFunctions, itemIndex: number, run: Run) {
	return await checkBatchUpload(this, run, itemIndex, UPLOAD_OPTIONS);
}

/** The PUTs end a chunk's upload; the next chunk's batch is prepared meanwhile, the one after waits. */
export const submitStage = 1;

/**
 * One upload batch per chunk of up to 20 input items, in two stages: create the batch and read its signed URLs,
 * then PUT the files. The engine overlaps them: the next chunk's batch is created while these files are PUT.
 */
export const stages = [
	stage(async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await createUploadBatch(this, chunk);
	}),
	stage(async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await putUploadBatch(this, chunk);
	}),
];
