import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyField,
	concurrencyOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
} from '../shared/descriptions';
import { optionsParam } from '../shared/params';
import { readUploadInput, uploadResume } from '../shared/upload';
import { checkUserKey } from '../shared/validate';

const properties: INodeProperties[] = [
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([concurrencyOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['upload'], operation: ['uploadResume'] } }, properties);

/** Prepare the upload (creates the report) and PUT the resume to the signed storage URL. No analysis is started. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const options = optionsParam(this, itemIndex);
	const userKey = checkUserKey(this, options, itemIndex);
	const input = await readUploadInput(this, itemIndex);
	return await uploadResume(this, itemIndex, input, 'upload.uploadResume', userKey);
}
