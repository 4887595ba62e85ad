import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyField,
	concurrencyOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
} from '../common/descriptions';
import { readWriteChoice } from '../../writes/identity';
import { readUploadInput, UPLOAD_RENEW_STEP, uploadResume } from './resumeUpload';

const properties: INodeProperties[] = [
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([concurrencyOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['upload'], operation: ['uploadResume'] } }, properties);

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return { write: readWriteChoice(this, itemIndex, [UPLOAD_RENEW_STEP]), input: await readUploadInput(this, itemIndex) };
}

/** Prepare the upload (creates the report) and PUT the resume to the signed storage URL. No analysis is started. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const { write, input } = await check.call(this, itemIndex);
	return await uploadResume(this, itemIndex, input, write);
}
