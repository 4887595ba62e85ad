import { type IBinaryData, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { binaryHead, putResumeToStorage } from '../../transport';
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
import { hasApiCondition, outcomeOf } from '../../transport/conditions';
import type { WriteChoice } from '../../writes/identity';
import { sameWriteAs } from '../../writes/sameWrites';
import { optionString, optionsParam, stringParam } from '../common/params';
import { existsCondition } from '../../writes/recover';
import {
	MAX_RENEWALS,
	prepareWrite,
	renewedTarget,
	targetOfFound,
	type FileTarget,
} from './fileTarget';
import { uploadWriteOf, type UploadOptions } from './uploadWrite';
import { idParam } from '../common/checks';

export {
	prepareUpload,
	UPLOAD_RENEW_STEP,
	uploadWriteOf,
	withFileReference,
	type PreparedUpload,
	type UploadOptions,
	type UploadWrite,
} from './uploadWrite';
export { renewExpiredUpload } from './fileTarget';

/** The job description chosen in the node, validated. */
export function readJobDescription(ctx: IExecuteFunctions, itemIndex: number): JobDescriptionInput {
	const source = ctx.getNodeParameter('jobDescriptionSource', itemIndex, 'existing') as string;
	let input: IDataObject;
	if (source === 'text') {
		input = {
			kind: 'text',
			text: ctx.getNodeParameter('jobDescriptionText', itemIndex, '') as string,
		};
	} else {
		input = { kind: 'existing', id: idParam(ctx, 'jobDescriptionId', itemIndex, 'Saved Job ID') };
		const expectedRevision = optionString(optionsParam(ctx, itemIndex), 'expectedRevision');
		if (expectedRevision) input.expectedRevision = expectedRevision;
	}
	return validateJobDescriptionInput.call(ctx, input, itemIndex);
}

/**
 * The optional external reference, validated: both fields or neither, the source a slug of at most 64
 * characters, the ID at most 128 (the spec shows no other rules for upload input than the filter's).
 */
export function readExternalReference(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
) {
	const checked = validateExternalReferenceFilter.call(
		ctx,
		{
			externalReferenceSource: optionString(options, 'externalReferenceSource'),
			externalReferenceId: optionString(options, 'externalReferenceId'),
		},
		itemIndex,
	);
	if (checked.externalReferenceSource === undefined || checked.externalReferenceId === undefined)
		return undefined;
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
	const file = validateResumeFile.call(
		ctx,
		{ fileName, fileSize, mimeType: binary.mimeType },
		itemIndex,
	);
	// One streamed read of a stored file gives these bytes and, later, the digest of the upload's key (binary.ts).
	validateResumeContent.call(ctx, await binaryHead(ctx, binary), file, itemIndex);
	return file;
}

/** The UploadInput of one item from the node parameters and its binary property, fully validated. */
export async function readUploadInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<UploadInput> {
	const options = optionsParam(ctx, itemIndex);
	const binaryPropertyName = stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
	const jobDescription = readJobDescription(ctx, itemIndex);
	const externalReference = readExternalReference(ctx, options, itemIndex);
	const file = await describeResume(
		ctx,
		itemIndex,
		binaryPropertyName,
		optionString(options, 'fileName'),
	);
	const input: IDataObject = { ...file, jobDescription };
	if (externalReference) input.externalReference = externalReference;
	return validateUploadInput.call(ctx, input, itemIndex);
}

/**
 * Prepare + PUT of the item's resume (the Upload Resume operation, and the first half of Analyze Resume).
 * What the file is (job, bytes, type, reference, never its name: writes/identity.ts) decides which report it is, so
 * a repeat of the same upload, under the same or another name, gets the same report back, by receipt or by
 * reference, and only a report that holds the item's file is given back (sameFile.ts):
 * - its file was already accepted for an analysis (the PUT answers ALREADY_ADMITTED): recovered, nothing sent;
 * - its reference already has a report holding these bytes (an earlier run, another name, a forgotten receipt):
 *   that report is recovered (`sameFileAsBefore`); when it has no analysis yet, the file is PUT to it again;
 * - a report under the user's reference that does not hold this file: an error naming it, nothing charged;
 * - the preparation has expired (older than 24 hours, never admitted): one new preparation is made under a key and a
 *   file reference derived from the expired report (`renew`), so repeats of this run converge on the same new report.
 * An item of this run whose file is the same as an earlier item's says so (`sameWriteAs`, writes/sameWrites.ts).
 * The signed URL is used here and never output (it is a private destination).
 */
export async function uploadResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	write: WriteChoice,
	step: string | undefined,
	options: UploadOptions,
): Promise<IDataObject> {
	const binaryPropertyName = stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
	const upload = await uploadWriteOf(ctx, itemIndex, input, write, step, options);
	const merged = sameWriteAs(ctx, upload.contentKey, itemIndex);
	const facts: IDataObject = {
		fileName: input.fileName,
		fileSize: input.fileSize,
		mimeType: input.mimeType,
	};
	if (merged !== undefined) facts.sameWriteAs = merged;

	const preparation = await prepareWrite(ctx, itemIndex, input, upload);
	let target: FileTarget;
	const reused: IDataObject = {};
	if ('prepared' in preparation) {
		target = { ...preparation.prepared, admitted: false };
	} else {
		target = await targetOfFound(
			ctx,
			itemIndex,
			input,
			upload,
			preparation.found,
			preparation.verified,
		);
		// A report not yet analysed that was given the item's file now was prepared before, not for these bytes.
		Object.assign(reused, { recovered: true, recoveredFrom: preparation.from });
		if (preparation.verified) reused.sameFileAsBefore = true;
	}
	for (let round = 0; ; round++) {
		const output: IDataObject = { reportId: target.reportId, ...facts, uploaded: true };
		if (target.replaces) output.replacesExpiredReportId = target.replaces;
		if (target.admitted || !target.upload)
			return {
				...output,
				alreadyAdmitted: true,
				recovered: true,
				recoveredFrom: 'ALREADY_ADMITTED',
				...reused,
			};
		const upload_ = target.upload;
		const sent = await outcomeOf(
			async () =>
				await putResumeToStorage.call(ctx, {
					reportId: target.reportId,
					upload: upload_,
					itemIndex,
					binaryPropertyName,
				}),
		);
		if (sent.ok)
			return {
				...output,
				uploadUrlRefreshed: sent.value.refreshed || 'found' in preparation,
				...(reused.recovered ? { ...reused, alreadyAdmitted: false } : {}),
			};
		if (existsCondition(sent.error) === 'ALREADY_ADMITTED') {
			target = { ...target, admitted: true };
			continue;
		}
		if (!hasApiCondition(sent.error, 'PREPARATION_EXPIRED') || round >= MAX_RENEWALS)
			throw sent.error;
		target = await renewedTarget(ctx, itemIndex, input, upload, target.reportId, round + 1);
	}
}
