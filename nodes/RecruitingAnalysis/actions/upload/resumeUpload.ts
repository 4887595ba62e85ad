import {
	NodeOperationError,
	type IBinaryData,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

import { apiPath, binaryHead, putResumeToStorage, type UploadTarget } from '../../transport';
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
import { api } from '../../transport/api';
import { waitOutCapacity } from '../../engine/capacity';
import { hasApiCondition, outcomeOf } from '../../transport/conditions';
import {
	fileReference,
	keyFor,
	resumeDigest,
	uploadIdentity,
	type WriteChoice,
} from '../../writes/identity';
import { sameWriteAs } from '../../writes/sameWrites';
import { optionString, optionsParam, stringParam } from '../common/params';
import { existsCondition, recoverWrite } from '../../writes/recover';
import { idParam } from '../common/checks';

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
		input = {
			kind: 'text',
			text: ctx.getNodeParameter('jobDescriptionText', itemIndex, '') as string,
		};
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

/** POST /api/v1/uploads with the upload's idempotency key. */
export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	idempotencyKey: string,
): Promise<PreparedUpload> {
	// PENDING_UPLOAD_LIMIT is waited out (capacity.ts): a refused preparation created nothing.
	const prepared = await waitOutCapacity(
		ctx,
		itemIndex,
		async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/uploads',
				body: input as unknown as IDataObject,
				idempotencyKey,
				itemIndex,
			}),
	);
	return prepared as unknown as PreparedUpload;
}

/** The steps a user key may get in an upload: a new preparation after the replayed one expired. */
export const UPLOAD_RENEW_STEP = 'renew';

/** How an operation's New Attempt Label acts on its upload. */
export interface UploadOptions {
	/**
	 * Upload Resume and Upload Many: a label asks for a separate report of the same file (it goes into the upload).
	 * Analyze Resume and Analyze Many: a label asks for a new analysis attempt on the same report (it goes into the
	 * start only, spec "Report status": a failed report needs a deliberate new attempt).
	 */
	labelMakesNewReport: boolean;
}

/** One upload as it will be sent: what it is (its identity and key) and its body with the file reference. */
export interface UploadWrite {
	identity: unknown[];
	key: string;
	body: UploadInput;
	choice: WriteChoice;
}

/** The upload's body: the user's external reference, or the file reference derived from what the upload is. */
export function withFileReference(
	input: UploadInput,
	identity: readonly unknown[],
	choice: WriteChoice,
): UploadInput {
	if (input.externalReference) return input;
	return { ...input, externalReference: fileReference(identity, choice.attemptLabel) };
}

/** What the item's upload is, its key and its body (the file is read once per run: transport/binary.ts). */
export async function uploadWriteOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	write: WriteChoice,
	step: string | undefined,
	options: UploadOptions,
): Promise<UploadWrite> {
	const choice = options.labelMakesNewReport ? write : { ...write, attemptLabel: undefined };
	const identity = uploadIdentity(input, await resumeDigest(ctx, itemIndex));
	return {
		identity,
		key: keyFor(choice, 'upload', identity, step),
		body: withFileReference(input, identity, choice),
		choice,
	};
}

/**
 * POST /api/v1/uploads of `upload`. A key whose receipt was made with a body without the file reference (by an
 * earlier version of this node) answers IDEMPOTENCY_KEY_REUSED: that same upload is then asked for as it was first
 * sent, so its receipt gives the report back instead of a second one.
 */
async function prepareWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
): Promise<PreparedUpload> {
	const first = await outcomeOf(
		async () => await prepareUpload(ctx, itemIndex, upload.body, upload.key),
	);
	if (first.ok) return first.value;
	if (existsCondition(first.error) !== 'IDEMPOTENCY_KEY_REUSED' || upload.body === input)
		throw first.error;
	const asBefore = await outcomeOf(
		async () => await prepareUpload(ctx, itemIndex, input, upload.key),
	);
	if (asBefore.ok) return asBefore.value;
	throw first.error;
}

/**
 * Prepare + PUT of the item's resume (the Upload Resume operation, and the first half of Analyze Resume).
 * The key is what the upload is (job, file digest, name, type, external reference; writes/identity.ts), and an
 * upload without an external reference of its own carries the file reference derived from the same facts, so a
 * repeat of the same upload gets the same report back, by receipt or by reference:
 * - its file was already accepted for an analysis (the PUT answers ALREADY_ADMITTED): recovered, nothing sent;
 * - its external reference (the user's or the file's) already has a report for the same job
 *   (EXTERNAL_REFERENCE_CONFLICT, e.g. after the service forgot the receipt, or another operation uploaded it): that
 *   report is recovered; when it has no analysis yet, the file is PUT to it again through a refreshed URL;
 * - the replayed preparation has expired (older than 24 hours, never admitted): one new preparation is made under
 *   a key derived from the expired report (`renew`), so repeats of this run converge on the same new report.
 * An item of this run whose upload is the same as an earlier item's says so (`sameWriteAs`, writes/sameWrites.ts).
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
	const merged = sameWriteAs(ctx, upload.key, itemIndex);
	const facts: IDataObject = {
		fileName: input.fileName,
		fileSize: input.fileSize,
		mimeType: input.mimeType,
	};
	if (merged !== undefined) facts.sameWriteAs = merged;
	const put = async (reportId: string, target: UploadTarget) =>
		await putResumeToStorage.call(ctx, { reportId, upload: target, itemIndex, binaryPropertyName });

	const preparation = await outcomeOf(
		async () => await prepareWrite(ctx, itemIndex, input, upload),
	);
	if (!preparation.ok) {
		const error = preparation.error;
		const reference = upload.body.externalReference;
		if (existsCondition(error) !== 'EXTERNAL_REFERENCE_CONFLICT' || !reference) throw error;
		const found = await recoverWrite(
			ctx,
			itemIndex,
			{
				kind: 'upload',
				externalReference: reference,
				jobDescription: input.jobDescription as IDataObject,
			},
			'EXTERNAL_REFERENCE_CONFLICT',
			error,
		);
		if (found.attemptId !== null)
			return { ...found, ...facts, uploaded: true, alreadyAdmitted: true };
		const refreshed = await api(ctx, {
			method: 'POST',
			path: apiPath('/api/v1/uploads/{}/url', String(found.reportId)),
			itemIndex,
		});
		await put(String(found.reportId), refreshed.upload as unknown as UploadTarget);
		return { ...found, ...facts, uploaded: true, uploadUrlRefreshed: true, alreadyAdmitted: false };
	}

	const sendFile = async (target: PreparedUpload) => {
		const sent = await outcomeOf(async () => await put(target.reportId, target.upload));
		if (sent.ok) return { ...sent.value, alreadyAdmitted: false, expired: false };
		if (existsCondition(sent.error) === 'ALREADY_ADMITTED')
			return { refreshed: false, alreadyAdmitted: true, expired: false };
		if (hasApiCondition(sent.error, 'PREPARATION_EXPIRED'))
			return { refreshed: false, alreadyAdmitted: false, expired: true };
		throw sent.error;
	};
	const prepared = preparation.value;
	let target = prepared;
	let sent = await sendFile(target);
	const renewed = sent.expired;
	if (sent.expired) {
		target = await renewExpiredUpload(ctx, itemIndex, input, upload, target.reportId);
		sent = await sendFile(target);
		if (sent.expired)
			throw new NodeOperationError(
				ctx.getNode(),
				`The upload preparation of report ${target.reportId} expired`,
				{ itemIndex },
			);
	}
	const output: IDataObject = {
		reportId: target.reportId,
		...facts,
		uploaded: true,
		uploadUrlRefreshed: sent.refreshed,
	};
	if (renewed) output.replacesExpiredReportId = prepared.reportId;
	if (sent.alreadyAdmitted)
		return { ...output, alreadyAdmitted: true, recovered: true, recoveredFrom: 'ALREADY_ADMITTED' };
	return output;
}

/**
 * The replayed preparation of `expiredReportId` expired unadmitted: its report can never be analyzed. One new
 * preparation, keyed (and, without a reference of the user's, referenced) by the expired report, so every repeat of
 * this run reaches the same new report. Used by the single and the batch uploads alike.
 */
export async function renewExpiredUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	upload: UploadWrite,
	expiredReportId: string,
): Promise<PreparedUpload> {
	const identity = [...upload.identity, ['renews', expiredReportId]];
	const body = withFileReference(input, identity, upload.choice);
	return await prepareUpload(
		ctx,
		itemIndex,
		body,
		keyFor(upload.choice, 'upload', identity, UPLOAD_RENEW_STEP),
	);
}
