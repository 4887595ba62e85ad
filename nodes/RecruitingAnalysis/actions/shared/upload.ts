import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idempotencyKeyFor, putResumeToStorage, type UploadTarget } from '../../transport';
import {
	validateExternalReference,
	validateExternalReferenceFilter,
	validateJobDescriptionInput,
	validateResumeContent,
	validateResumeFile,
	validateUploadInput,
	type JobDescriptionInput,
	type UploadInput,
} from '../../validation';
import { api } from './api';
import { onApiCondition } from './errors';
import { optionString, optionsParam, stringParam } from './params';
import { idParam } from './validate';

/** What the API answers to POST /api/v1/uploads (and to URL refresh). */
export interface PreparedUpload {
	reportId: string;
	upload: UploadTarget;
	[key: string]: unknown;
}

/** The job description chosen in the node, validated. */
export function readJobDescription(ctx: IExecuteFunctions, itemIndex: number): JobDescriptionInput {
	const source = ctx.getNodeParameter('jobDescriptionSource', itemIndex, 'existing') as string;
	let input: IDataObject;
	if (source === 'text') {
		input = { kind: 'text', text: ctx.getNodeParameter('jobDescriptionText', itemIndex, '') as string };
	} else {
		input = { kind: 'existing', id: idParam(ctx, 'jobDescriptionId', itemIndex, 'Saved Job ID') };
		const expectedRevision = stringParam(ctx, 'expectedRevision', itemIndex);
		if (expectedRevision) input.expectedRevision = expectedRevision;
	}
	return validateJobDescriptionInput.call(ctx, input, itemIndex);
}

/**
 * The optional external reference, validated: both fields or neither, the source a slug of at most 64
 * characters, the ID at most 128 (the spec shows no other rules for upload input than the filter's).
 */
export function readExternalReference(ctx: IExecuteFunctions, options: IDataObject, itemIndex: number) {
	const checked = validateExternalReferenceFilter.call(
		ctx,
		{
			externalReferenceSource: optionString(options, 'externalReferenceSource'),
			externalReferenceId: optionString(options, 'externalReferenceId'),
		},
		itemIndex,
	);
	if (checked.externalReferenceSource === undefined || checked.externalReferenceId === undefined) return undefined;
	return validateExternalReference.call(
		ctx,
		{ source: checked.externalReferenceSource, id: checked.externalReferenceId },
		itemIndex,
	);
}

/** Exact byte length of a binary property without loading a file kept on disk or in a database. */
async function byteLength(ctx: IExecuteFunctions, binary: IBinaryData): Promise<number> {
	if (binary.id) {
		const metadata = await ctx.helpers.getBinaryMetadata(binary.id);
		return metadata.fileSize;
	}
	if (typeof binary.bytes === 'number') return binary.bytes;
	const data = binary.data ?? '';
	const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
	return Math.floor((data.length * 3) / 4) - padding;
}

/** The first bytes of the file (to check PDF / DOCX signatures), read without loading the rest. */
async function headBytes(ctx: IExecuteFunctions, binary: IBinaryData): Promise<Uint8Array> {
	if (binary.id) {
		const stream = await ctx.helpers.getBinaryStream(binary.id, 64);
		try {
			for await (const chunk of stream) return new Uint8Array(chunk as Buffer).subarray(0, 8);
			return new Uint8Array();
		} finally {
			stream.destroy();
		}
	}
	return new Uint8Array(Buffer.from((binary.data ?? '').slice(0, 16), 'base64')).subarray(0, 8);
}

export interface ResumeDescription {
	fileName: string;
	fileSize: number;
	mimeType: string;
}

/**
 * File name, exact size and MIME type of the resume in a binary property, checked against the spec's rules
 * (name, extension, size, declared type and the content's signature all agree).
 */
export async function describeResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	fileNameOverride?: string,
): Promise<ResumeDescription> {
	const binary = ctx.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const fileName = fileNameOverride ?? binary.fileName;
	const fileSize = await byteLength(ctx, binary);
	const file = validateResumeFile.call(ctx, { fileName, fileSize, mimeType: binary.mimeType }, itemIndex);
	validateResumeContent.call(ctx, await headBytes(ctx, binary), file, itemIndex);
	return file;
}

/** The UploadInput of one item from the node parameters and its binary property, fully validated. */
export async function readUploadInput(ctx: IExecuteFunctions, itemIndex: number): Promise<UploadInput> {
	const options = optionsParam(ctx, itemIndex);
	const binaryPropertyName = stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
	const jobDescription = readJobDescription(ctx, itemIndex);
	const externalReference = readExternalReference(ctx, options, itemIndex);
	const file = await describeResume(ctx, itemIndex, binaryPropertyName, optionString(options, 'fileName'));
	const input: IDataObject = { ...file, jobDescription };
	if (externalReference) input.externalReference = externalReference;
	return validateUploadInput.call(ctx, input, itemIndex);
}

/** POST /api/v1/uploads with the item's idempotency key. */
export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	idempotencyKey: string,
): Promise<PreparedUpload> {
	const prepared = await api(ctx, {
		method: 'POST',
		path: '/api/v1/uploads',
		body: input as unknown as IDataObject,
		idempotencyKey,
		itemIndex,
	});
	return prepared as unknown as PreparedUpload;
}

/**
 * Prepare + PUT of the item's resume (the Upload Resume operation, and the first half of Analyze Resume).
 * The signed URL is used here and never output (it is a private destination).
 */
export async function uploadResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	operationKey: string,
	userKey: string | undefined,
	attempt?: string,
): Promise<IDataObject> {
	const binaryPropertyName = stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
	const key = idempotencyKeyFor.call(ctx, itemIndex, operationKey, userKey, attempt);
	const prepared = await prepareUpload(ctx, itemIndex, input, key);
	// A replay of the same logical upload (same idempotency key, e.g. a retried execution) returns the same
	// report; if its analysis was already admitted, the file was uploaded before and is now frozen.
	const { refreshed, alreadyAdmitted } = await onApiCondition(
		'ALREADY_ADMITTED',
		async () => ({
			...(await putResumeToStorage.call(ctx, {
				reportId: prepared.reportId,
				upload: prepared.upload,
				itemIndex,
				binaryPropertyName,
			})),
			alreadyAdmitted: false,
		}),
		async () => ({ refreshed: false, alreadyAdmitted: true }),
	);
	return {
		reportId: prepared.reportId,
		fileName: input.fileName,
		fileSize: input.fileSize,
		mimeType: input.mimeType,
		uploaded: true,
		uploadUrlRefreshed: refreshed,
		...(alreadyAdmitted ? { alreadyAdmitted: true } : {}),
	};
}
