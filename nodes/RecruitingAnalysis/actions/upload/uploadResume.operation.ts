import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyField,
	concurrencyOption,
	expectedRevisionOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
} from '../common/descriptions';
import { readWriteChoice, USER_KEY_STEPS } from '../../writes/identity';
import { checkUpload, UPLOAD_RENEW_STEP, uploadResume, type CheckedUpload } from './resumeUpload';
import type { Run } from '../../engine/run';

const properties: INodeProperties[] = [
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([concurrencyOption, expectedRevisionOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['uploadResume'] } },
	properties,
);

/** Everything the item needs, checked in item order before anything is sent; notes which items make the same upload. */
export async function check(
	this: IExecuteFunctions,
	itemIndex: number,
	run: Run,
): Promise<CheckedUpload> {
	const write = readWriteChoice(this, itemIndex, [USER_KEY_STEPS.upload, UPLOAD_RENEW_STEP]);
	// A label asks Upload Resume for a separate report of the same file.
	return await checkUpload(this, run, itemIndex, write, undefined, { labelMakesNewReport: true });
}

/** Prepare the upload (creates the report) and PUT the resume to the signed storage URL. No analysis is started. */
export async function execute(this: IExecuteFunctions, itemIndex: number, checked: CheckedUpload) {
	return await uploadResume(this, itemIndex, checked);
}
