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
import { sameWriteAs } from '../../writes/sameWrites';
import { readUploadInput, UPLOAD_RENEW_STEP, uploadResume, uploadWriteOf } from './resumeUpload';

const properties: INodeProperties[] = [
	binaryPropertyField,
	...jobDescriptionFields,
	optionsCollection([concurrencyOption, expectedRevisionOption, ...resumeFileOptions]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['uploadResume'] } },
	properties,
);

/** A label asks Upload Resume for a separate report of the same file. */
const UPLOAD_OPTIONS = { labelMakesNewReport: true };

/** Everything the item needs, checked in item order before anything is sent; notes which items make the same upload. */
export async function check(this: IExecuteFunctions, itemIndex: number) {
	const write = readWriteChoice(this, itemIndex, [USER_KEY_STEPS.upload, UPLOAD_RENEW_STEP]);
	const input = await readUploadInput(this, itemIndex);
	sameWriteAs(
		this,
		(await uploadWriteOf(this, itemIndex, input, write, undefined, UPLOAD_OPTIONS)).contentKey,
		itemIndex,
	);
	return { write, input };
}

/** Prepare the upload (creates the report) and PUT the resume to the signed storage URL. No analysis is started. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const { write, input } = await check.call(this, itemIndex);
	return await uploadResume(this, itemIndex, input, write, undefined, UPLOAD_OPTIONS);
}
