import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { DOCX_MIME_TYPE, PDF_MIME_TYPE } from '../../validation';
import {
	concurrencyOption,
	externalReferenceOptions,
	expectedRevisionOption,
	jobDescriptionFields,
	optionsCollection,
	writeOptions,
} from '../common/descriptions';
import { stringParam } from '../common/params';
import { prepareUpload, readUploadInput } from './resumeUpload';
import {
	writeIdempotencyKey,
	readWriteChoice,
	uploadIdentity,
	USER_KEY_STEPS,
} from '../../writes/identity';

const properties: INodeProperties[] = [
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'resume.pdf',
		description: 'Name of the resume file: 1 to 200 characters, ending in .pdf or .docx, no path',
	},
	{
		displayName: 'File Size (Bytes)',
		name: 'fileSize',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, maxValue: 10485760 },
		default: 1,
		description: 'Exact byte length of the file you will upload (not characters, not megabytes)',
	},
	{
		displayName: 'MIME Type',
		name: 'mimeType',
		type: 'options',
		options: [
			{ name: 'DOCX', value: DOCX_MIME_TYPE },
			{ name: 'PDF', value: PDF_MIME_TYPE },
		],
		default: PDF_MIME_TYPE,
		description: 'Content type of the file; must agree with the file extension and the content',
	},
	...jobDescriptionFields,
	optionsCollection([
		concurrencyOption,
		expectedRevisionOption,
		...externalReferenceOptions,
		...writeOptions,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['prepare'] } },
	properties,
);

export async function check(this: IExecuteFunctions, itemIndex: number) {
	const write = readWriteChoice(this, itemIndex, [USER_KEY_STEPS.upload]);
	const input = await readUploadInput(this, itemIndex, async () => ({
		fileName: stringParam(this, 'fileName', itemIndex),
		fileSize: this.getNodeParameter('fileSize', itemIndex) as number,
		mimeType: this.getNodeParameter('mimeType', itemIndex) as string,
	}));
	return { write, input };
}

// No file is known here, so the key comes from the job, name, declared size, type and external reference.
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	{ write, input }: Awaited<ReturnType<typeof check>>,
) {
	const key = writeIdempotencyKey(write, 'upload', uploadIdentity(input, null));
	return (await prepareUpload(this, itemIndex, input, key)) as IDataObject;
}
