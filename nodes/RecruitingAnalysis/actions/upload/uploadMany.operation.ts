import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { batchTimeoutOption } from '../shared/batch';
import { createUploadBatch, putUploadBatch, type UploadChunk } from '../shared/batchUpload';
import {
	binaryPropertyField,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
} from '../shared/descriptions';
import { stage } from '../shared/types';

const properties: INodeProperties[] = [
	{
		displayName:
			'All input items are sent through the upload-batch endpoint, 20 per batch; the files of one batch are uploaded while the next batch is prepared',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([batchTimeoutOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['upload'], operation: ['uploadMany'] } }, properties);

export const mode = 'batch';

/**
 * One upload batch per chunk of up to 20 input items, in two stages: create the batch and read its signed URLs,
 * then PUT the files. The router overlaps them: the next chunk's batch is created while these files are PUT.
 */
export const stages = [
	stage(async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await createUploadBatch(this, chunk, 'upload.uploadMany');
	}),
	stage(async function (this: IExecuteFunctions, chunk: UploadChunk) {
		return await putUploadBatch(this, chunk);
	}),
];
