// The upload of a resume, in the API's order: read and check the file, say what the upload is, prepare (or find the
// report that holds the file), refresh the URL, PUT the bytes. Used by the single and the batch uploads alike.
import {
	NodeApiError,
	NodeOperationError,
	type IBinaryData,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
} from 'n8n-workflow';

import {
	apiPath,
	api,
	hasApiCondition,
	outcomeOf,
	buildApiError,
	transportSettings,
} from '../../transport';
import { binaryHead } from '../../transport/binary';
import { storageUrlProblem, credentialData } from '../../transport/environment';
import { headerValue, type ApiErrorParts } from '../../transport/errors';
import {
	discardBody,
	hasControlCharacter,
	isRedirectStatus,
	MAX_STORAGE_RESPONSE_BYTES,
	readBounded,
	ResponseTooLargeError,
} from '../../transport/guard';
import { isCancellation, networkErrorCode, withRetries } from '../../transport/retry';
import {
	check,
	DOCX_MIME_TYPE,
	extensionOf,
	MIME_BY_EXTENSION,
	PDF_MIME_TYPE,
	resumeFileSchema,
	validateJobDescriptionInput,
	validateUploadInput,
	type JobDescriptionInput,
	type ResumeFile,
	type UploadInput,
	type ValidationContext,
} from '../../validation';
import { waitOutCapacity } from '../../engine/capacity';
import {
	contentIdentity,
	fileReference,
	isFileReference,
	recordWrite,
	resumeDigest,
	uploadIdentity,
	writeIdempotencyKey,
	type WriteChoice,
} from '../../writes/identity';
import { existsCondition, recoverUpload } from '../../writes/recover';
import type { WriteRun } from '../../writes/spending';
import { optionString, optionsParam, stringParam } from '../common/params';
import { checkExternalReference, idParam } from '../common/checks';

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

export function readExternalReference(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
) {
	const checked = checkExternalReference(ctx, options, itemIndex);
	if (checked.externalReferenceSource === undefined || checked.externalReferenceId === undefined)
		return undefined;
	return { source: checked.externalReferenceSource, id: checked.externalReferenceId };
}

export const GENERIC_MIME_TYPES = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
	'application/unknown',
	'application/download',
	'application/force-download',
	'application/x-download',
	'application/zip',
	'application/x-zip',
	'application/x-zip-compressed',
	'text/plain',
]);

export function normaliseMimeType(mimeType: string | undefined): string {
	return (mimeType ?? '').split(';')[0].trim().toLowerCase();
}

export function inferResumeMimeType(fileName: string, mimeType: string | undefined): string {
	const declared = normaliseMimeType(mimeType);
	if (!GENERIC_MIME_TYPES.has(declared)) return declared;
	const ext = extensionOf(fileName);
	return ext ? MIME_BY_EXTENSION[ext] : declared;
}

export function validateResumeFile(
	this: ValidationContext,
	file: { fileName?: string; fileSize?: number; mimeType?: string },
	itemIndex: number,
): ResumeFile {
	const fileName = file.fileName;
	const mimeType =
		typeof fileName === 'string' ? inferResumeMimeType(fileName, file.mimeType) : file.mimeType;
	return check(this, resumeFileSchema, { fileName, fileSize: file.fileSize, mimeType }, itemIndex);
}

export function contentMatchesMimeType(head: Uint8Array, mimeType: string): boolean {
	const found = sniffContent(head);
	return (
		(mimeType === PDF_MIME_TYPE && found === 'pdf') ||
		(mimeType === DOCX_MIME_TYPE && found === 'zip')
	);
}

function sniffContent(head: Uint8Array): 'pdf' | 'zip' | 'html' | 'unknown' {
	const text = String.fromCharCode(...head.subarray(0, 8));
	if (text.startsWith('%PDF-')) return 'pdf';
	if (text.startsWith('PK\x03\x04')) return 'zip';
	if (/^\s*</.test(text)) return 'html';
	return 'unknown';
}

export function validateResumeContent(
	this: ValidationContext,
	head: Uint8Array,
	file: { fileName: string; mimeType: string },
	itemIndex: number,
): void {
	if (contentMatchesMimeType(head, file.mimeType)) return;
	const isPdf = file.mimeType === PDF_MIME_TYPE;
	const expected = isPdf ? 'a PDF (starting with %PDF-)' : 'a DOCX (a ZIP archive)';
	const found = sniffContent(head);
	const stem = file.fileName.replace(/\.[^.]*$/, '');
	let message = `"Input Binary Field" content must agree with its type: ${file.fileName} is not ${expected}`;
	let advice =
		'The file extension, the declared MIME type and the file content must agree. Check that the binary ' +
		'property holds the resume itself and not, for example, an HTML error page.';
	if (isPdf && found === 'zip') {
		// A Word document (DOCX is a ZIP archive) saved or renamed with .pdf: the commonest case in a folder of resumes.
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a DOCX or other ZIP file, not a PDF. If it is a Word document, rename it ${stem}.docx`;
		advice = `Rename the file to ${stem}.docx (or use the File Name option) if it is a Word document; other ZIP archives cannot be analyzed.`;
	} else if (!isPdf && found === 'pdf') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a PDF, not a DOCX. Rename it ${stem}.pdf`;
		advice = `Rename the file to ${stem}.pdf (or use the File Name option).`;
	} else if (found === 'html') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} holds HTML (a web page), not ${expected}`;
		advice =
			'A download returned a web page (often a login or error page) instead of the resume: check the step that fetched the file.';
	}
	throw new NodeOperationError(this.getNode(), message, {
		itemIndex,
		description: `${advice} Nothing was uploaded.`,
	});
}

// The exact size without loading a file kept on disk or in a database.
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
	// One streamed read of a stored file gives these bytes and, later, the digest of the upload's key (transport/binary.ts).
	validateResumeContent.call(ctx, await binaryHead(ctx, binary), file, itemIndex);
	return file;
}

function binaryPropertyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	return stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
}

export async function readUploadInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<UploadInput> {
	const options = optionsParam(ctx, itemIndex);
	const binaryPropertyName = binaryPropertyOf(ctx, itemIndex);
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

/** The step a user key gets in an upload: a new preparation after the replayed one expired. */
export const UPLOAD_RENEW_STEP = 'renew';

export interface UploadOptions {
	// Upload: a label asks for a separate report of the same file; Analyze: for a new attempt on the same report.
	labelMakesNewReport: boolean;
}

export interface PlannedUpload {
	identity: unknown[];
	content: unknown[];
	contentKey: string;
	key: string;
	body: UploadInput;
	// A receipt under a content key proves these bytes were sent.
	keyIsContent: boolean;
	choice: WriteChoice;
}

export function withFileReference(
	input: UploadInput,
	content: readonly unknown[],
	choice: WriteChoice,
): UploadInput {
	if (input.externalReference) return input;
	return { ...input, externalReference: fileReference(content, choice.attemptLabel) };
}

async function planUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	write: WriteChoice,
	step: string | undefined,
	options: UploadOptions,
): Promise<PlannedUpload> {
	const choice = options.labelMakesNewReport ? write : { ...write, attemptLabel: undefined };
	const digest = await resumeDigest(ctx, itemIndex);
	const identity = uploadIdentity(input, digest);
	const content = contentIdentity(input, digest);
	const contentKey = writeIdempotencyKey({ attemptLabel: choice.attemptLabel }, 'upload', [
		'content',
		content,
	]);
	// The node's file reference proves the bytes by itself; under the user's reference only the key can prove them.
	const keyIsContent = input.externalReference !== undefined && !choice.userKey;
	return {
		identity,
		content,
		contentKey,
		key: writeIdempotencyKey(
			choice,
			'upload',
			keyIsContent ? ['content', content] : identity,
			step,
		),
		body: withFileReference(input, content, choice),
		keyIsContent,
		choice,
	};
}

export interface CheckedUpload {
	write: WriteChoice;
	input: UploadInput;
	planned: PlannedUpload;
	sameWriteAs?: number;
}

export async function checkUpload(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	write: WriteChoice,
	step: string | undefined,
	options: UploadOptions,
): Promise<CheckedUpload> {
	const input = await readUploadInput(ctx, itemIndex);
	const planned = await planUpload(ctx, itemIndex, input, write, step, options);
	return { write, input, planned, sameWriteAs: recordWrite(run, planned.contentKey, itemIndex) };
}

export interface UploadTarget {
	url: string;
	method: string;
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
	// When the answer carrying the URL arrived (default: now): its lifetime counts from there.
	issuedAt?: number;
}

export interface PreparedUpload {
	reportId: string;
	upload: UploadTarget;
	[key: string]: unknown;
}

export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	idempotencyKey: string,
): Promise<PreparedUpload> {
	// PENDING_UPLOAD_LIMIT is waited out (engine/capacity.ts): a refused preparation created nothing.
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

export type Preparation =
	{ prepared: PreparedUpload } | { found: IDataObject; verified: boolean; from: string };

// A refusal is a report found only when something proves it holds these bytes: a content key, or the file reference.
export async function prepareOrFind(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
): Promise<Preparation> {
	const first = await outcomeOf(
		async () => await prepareUpload(ctx, itemIndex, planned.body, planned.key),
	);
	if (first.ok) return { prepared: first.value };
	const condition = existsCondition(first.error);
	const reference = planned.body.externalReference;
	const reused = condition === 'IDEMPOTENCY_KEY_REUSED';
	if (!reference || (reused ? !planned.keyIsContent : condition !== 'EXTERNAL_REFERENCE_CONFLICT'))
		throw first.error;
	const found = await reportOfReference(ctx, itemIndex, input, reference, first.error);
	const from = reused ? 'IDEMPOTENCY_KEY_REUSED' : 'EXTERNAL_REFERENCE_CONFLICT';
	return { found, verified: reused || isFileReference(reference), from };
}

export async function reportOfReference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	reference: { source: string; id: string },
	error?: unknown,
): Promise<IDataObject> {
	return await recoverUpload(
		ctx,
		itemIndex,
		{
			kind: 'upload',
			externalReference: reference,
			jobDescription: input.jobDescription as unknown as IDataObject,
		},
		'EXTERNAL_REFERENCE_CONFLICT',
		error,
	);
}

function declaredFor(target: UploadTarget, input: UploadInput): boolean {
	const declared = target as unknown as IDataObject;
	return (
		(declared.sizeBytes === undefined || declared.sizeBytes === input.fileSize) &&
		(declared.mimeType === undefined || declared.mimeType === input.mimeType)
	);
}

function otherFileUnderReference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	found: IDataObject,
	why: string,
): NodeOperationError {
	const reference = input.externalReference as { source: string; id: string };
	const state = [found.status, found.code].filter((part) => typeof part === 'string').join(', ');
	return new NodeOperationError(
		ctx.getNode(),
		`External reference ${reference.source}/${reference.id} is held by report ${String(found.reportId)} (${state}), not made from this file`,
		{
			itemIndex,
			description:
				`${why} The service keeps an external reference for one report, so the file of this item (${input.fileName}) ` +
				'cannot be uploaded under it. Nothing was uploaded or charged. If this is a corrected file (for example a re-scan after a failed report), ' +
				`give it another External Reference ID (for example "${reference.id}-2") and run again; if it is the same file, report ${String(found.reportId)} is its analysis.`,
		},
	);
}

const ANALYSED_OTHER_FILE =
	'That report was analysed from the file first uploaded under this reference; no receipt of this upload ties it to this file (the file changed, or the service has forgotten the receipt).';

// The only request for a new signed URL: the PUT, a found report and the Refresh URL operation all use it.
export async function refreshUploadUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: apiPath('/api/v1/uploads/{}/url', reportId),
		itemIndex,
	});
}

type Refreshed =
	{ live: true; upload: UploadTarget } | { live: false; expired: boolean; admitted: boolean };

async function refreshTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<Refreshed> {
	const answer = await outcomeOf(async () => await refreshUploadUrl(ctx, itemIndex, reportId));
	if (answer.ok) return { live: true, upload: answer.value.upload as unknown as UploadTarget };
	if (hasApiCondition(answer.error, 'PREPARATION_EXPIRED'))
		return { live: false, expired: true, admitted: false };
	if (hasApiCondition(answer.error, 'ALREADY_ADMITTED'))
		return { live: false, expired: false, admitted: true };
	throw answer.error;
}

export interface FileTarget {
	reportId: string;
	upload?: UploadTarget;
	admitted: boolean;
	replaces?: string;
}

// Each renewal is a new day at most.
const MAX_RENEWALS = 4;

export async function targetOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
	preparation: Preparation,
): Promise<{ target: FileTarget; reused: IDataObject }> {
	if ('prepared' in preparation)
		return { target: { ...preparation.prepared, admitted: false }, reused: {} };
	const target = await targetOfFound(
		ctx,
		itemIndex,
		input,
		planned,
		preparation.found,
		preparation.verified,
	);
	const reused: IDataObject = { recovered: true, recoveredFrom: preparation.from };
	if (preparation.verified) reused.sameFileAsBefore = true;
	return { target, reused };
}

// An unverified report is given the file only if it was prepared for its size and type and never analysed.
async function targetOfFound(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
	found: IDataObject,
	verified: boolean,
	renewal?: { round: number; replaces: string },
): Promise<FileTarget> {
	const reportId = String(found.reportId);
	const replaces = renewal?.replaces;
	const admitted = () => {
		if (!verified) throw otherFileUnderReference(ctx, itemIndex, input, found, ANALYSED_OTHER_FILE);
		return { reportId, admitted: true, replaces };
	};
	if (found.attemptId !== null && found.attemptId !== undefined) return admitted();
	const refreshed = await refreshTarget(ctx, itemIndex, reportId);
	if (refreshed.live) {
		if (!verified && !declaredFor(refreshed.upload, input))
			throw otherFileUnderReference(
				ctx,
				itemIndex,
				input,
				found,
				'That report was prepared for a file of another size or type and never analysed.',
			);
		return { reportId, upload: refreshed.upload, admitted: false, replaces };
	}
	if (refreshed.admitted) return admitted();
	return await renewedTarget(ctx, itemIndex, input, planned, reportId, (renewal?.round ?? 0) + 1);
}

async function renewedTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
	expiredReportId: string,
	round: number,
): Promise<FileTarget> {
	if (round > MAX_RENEWALS)
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload preparation of report ${expiredReportId} expired`,
			{ itemIndex },
		);
	const renewal = await renewExpiredUpload(ctx, itemIndex, input, planned, expiredReportId);
	if ('prepared' in renewal)
		return { ...renewal.prepared, admitted: false, replaces: expiredReportId };
	return await targetOfFound(ctx, itemIndex, input, planned, renewal.found, true, {
		round,
		replaces: expiredReportId,
	});
}

// Keyed and referenced by the expired report, so every repeat of this run reaches the same new report.
export async function renewExpiredUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
	expiredReportId: string,
): Promise<{ prepared: PreparedUpload } | { found: IDataObject }> {
	if (input.externalReference) {
		const reference = input.externalReference;
		throw new NodeOperationError(
			ctx.getNode(),
			`The upload preparation of report ${expiredReportId} expired before it was analysed`,
			{
				itemIndex,
				description:
					`Report ${expiredReportId} holds external reference ${reference.source}/${reference.id}, and a preparation lives 24 hours. ` +
					'The service keeps an external reference for one report, so the file cannot be prepared again under it. Nothing was charged. ' +
					`Give this file another External Reference ID (for example "${reference.id}-2") and run again.`,
			},
		);
	}
	const renews = ['renews', expiredReportId];
	const body = withFileReference(input, [...planned.content, renews], planned.choice);
	const key = writeIdempotencyKey(
		planned.choice,
		'upload',
		[...planned.identity, renews],
		UPLOAD_RENEW_STEP,
	);
	const renewal = await outcomeOf(async () => await prepareUpload(ctx, itemIndex, body, key));
	if (renewal.ok) return { prepared: renewal.value };
	const reference = body.externalReference;
	if (existsCondition(renewal.error) !== 'EXTERNAL_REFERENCE_CONFLICT' || !reference)
		throw renewal.error;
	// An earlier run renewed it already (and its receipt is gone): the renewal's reference finds it.
	return { found: await reportOfReference(ctx, itemIndex, input, reference, renewal.error) };
}

export async function putToTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: UploadInput,
	planned: PlannedUpload,
	first: FileTarget,
): Promise<{ target: FileTarget; put?: { refreshed: boolean } }> {
	let target = first;
	for (let round = 0; ; round++) {
		if (target.admitted || !target.upload) return { target };
		const { reportId, upload } = target;
		const sent = await outcomeOf(
			async () =>
				await putResumeToStorage.call(ctx, {
					reportId,
					upload,
					itemIndex,
					binaryPropertyName: binaryPropertyOf(ctx, itemIndex),
				}),
		);
		if (sent.ok) return { target, put: { refreshed: sent.value.refreshed } };
		// A replayed preparation whose analysis was already admitted: the file is frozen, the write exists.
		if (existsCondition(sent.error) === 'ALREADY_ADMITTED') {
			target = { ...target, admitted: true };
			continue;
		}
		if (!hasApiCondition(sent.error, 'PREPARATION_EXPIRED') || round >= MAX_RENEWALS)
			throw sent.error;
		target = await renewedTarget(ctx, itemIndex, input, planned, reportId, round + 1);
	}
}

// The signed URL is used here and never output: it is a bearer capability for this upload.
export async function uploadResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	checked: CheckedUpload,
): Promise<IDataObject> {
	const { input, planned } = checked;
	const facts: IDataObject = {
		fileName: input.fileName,
		fileSize: input.fileSize,
		mimeType: input.mimeType,
	};
	if (checked.sameWriteAs !== undefined) facts.sameWriteAs = checked.sameWriteAs;
	const preparation = await prepareOrFind(ctx, itemIndex, input, planned);
	const { target: first, reused } = await targetOf(ctx, itemIndex, input, planned, preparation);
	const { target, put } = await putToTarget(ctx, itemIndex, input, planned, first);
	const output: IDataObject = { reportId: target.reportId, ...facts, uploaded: true };
	if (target.replaces) output.replacesExpiredReportId = target.replaces;
	if (!put)
		return {
			...output,
			alreadyAdmitted: true,
			recovered: true,
			recoveredFrom: 'ALREADY_ADMITTED',
			...reused,
		};
	return {
		...output,
		uploadUrlRefreshed: put.refreshed || 'found' in preparation,
		...(reused.recovered ? { ...reused, alreadyAdmitted: false } : {}),
	};
}

// 10 MB over a slow uplink.
export const STORAGE_TIMEOUT_MS = 300_000;

// Refreshed early for clock skew and a slow start.
export const STORAGE_EXPIRY_MARGIN_MS = 30_000;

interface FullResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
}

interface BinarySource {
	size: number;
	open: () => Promise<unknown>;
	head: () => Promise<Uint8Array>;
	streamed: boolean;
}

async function binarySource(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
): Promise<BinarySource> {
	const binary: IBinaryData = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const id = binary.id;
	if (typeof id === 'string' && id !== '') {
		const metadata = await this.helpers.getBinaryMetadata(id);
		return {
			size: metadata.fileSize,
			streamed: true,
			open: async () => await this.helpers.getBinaryStream(id),
			head: async () => await binaryHead(this, binary),
		};
	}
	const buffer = await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return {
		size: buffer.length,
		streamed: false,
		open: async () => buffer,
		head: async () => buffer.subarray(0, 16),
	};
}

function nearlyExpired(upload: UploadTarget, issuedAt: number): boolean {
	const lifetimeMs = (upload.expiresInSeconds > 0 ? upload.expiresInSeconds : 600) * 1000;
	return Date.now() >= issuedAt + lifetimeMs - Math.min(STORAGE_EXPIRY_MARGIN_MS, lifetimeMs / 10);
}

function uploadFromRefresh(data: IDataObject | undefined): UploadTarget | undefined {
	const candidate = (data?.upload ?? data) as Partial<UploadTarget> | undefined;
	if (candidate && typeof candidate.url === 'string') {
		return {
			url: candidate.url,
			method: typeof candidate.method === 'string' ? candidate.method : 'PUT',
			mimeType: typeof candidate.mimeType === 'string' ? candidate.mimeType : '',
			sizeBytes: typeof candidate.sizeBytes === 'number' ? candidate.sizeBytes : 0,
			expiresInSeconds:
				typeof candidate.expiresInSeconds === 'number' ? candidate.expiresInSeconds : 600,
		};
	}
	return undefined;
}

// Retried: a PUT of the same bytes is idempotent.
async function putOnce(
	this: IExecuteFunctions,
	args: { upload: UploadTarget; source: BinarySource; itemIndex: number; reportId: string },
): Promise<FullResponse> {
	const { upload, source, itemIndex, reportId } = args;
	const outcome = await withRetries<FullResponse>({
		safe: true,
		policy: transportSettings.retry,
		random: transportSettings.random,
		send: async () => {
			const started = Date.now();
			const request: IHttpRequestOptions = {
				method: (upload.method || 'PUT').toUpperCase() as IHttpRequestOptions['method'],
				url: upload.url,
				body: (await source.open()) as Buffer,
				headers: {
					'Content-Type': upload.mimeType,
					'Content-Length': String(source.size),
				},
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// A redirect is reported, never followed: storage gets the URL unchanged or nothing (docs/security.md).
				disableFollowRedirect: true,
				encoding: 'stream',
				timeout: STORAGE_TIMEOUT_MS,
			};
			const response = (await this.helpers.httpRequest(request)) as FullResponse;
			if (isRedirectStatus(response.statusCode)) {
				discardBody(response.body);
				return response;
			}
			// Only an error answer is read, and only its first 64 KiB; an endless answer ends at the deadline.
			const body = await readBounded(
				response.body,
				MAX_STORAGE_RESPONSE_BYTES,
				started + STORAGE_TIMEOUT_MS,
				STORAGE_TIMEOUT_MS,
			).catch((error: unknown) => {
				if (error instanceof ResponseTooLargeError) return new TextEncoder().encode('');
				throw error;
			});
			return {
				...response,
				body: body instanceof Uint8Array ? new TextDecoder().decode(body) : body,
			};
		},
	});
	if (outcome.response) return outcome.response;
	if (isCancellation(outcome.error)) {
		throw new NodeOperationError(this.getNode(), 'The execution was cancelled', { itemIndex });
	}
	const code = outcome.networkCode ?? networkErrorCode(outcome.error);
	const attempts = outcome.attempts;
	// Never include the signed URL: it is a bearer capability for this upload.
	const message = `Could not upload the resume of report ${reportId} to storage`;
	const description = `${code ? `Network error ${code}` : 'The request failed'} after ${attempts} attempt${attempts === 1 ? '' : 's'}. Uploading again is safe (the same bytes to the same report); use Upload > Refresh URL if ten minutes have passed.`;
	const wrapped = new NodeApiError(
		this.getNode(),
		{ error: { code: 'STORAGE_UNREACHABLE', reason: code ?? 'UNKNOWN' } },
		{
			message,
			description,
			itemIndex,
		},
	);
	wrapped.message = message;
	wrapped.description = description;
	throw wrapped;
}

/** PUTs the resume to its signed URL without the credential (the API key must never reach storage: spec, Uploads). */
export async function putResumeToStorage(
	this: IExecuteFunctions,
	args: { reportId: string; upload: UploadTarget; itemIndex: number; binaryPropertyName: string },
): Promise<{ refreshed: boolean; streamed: boolean; bytes: number }> {
	const { reportId, itemIndex, binaryPropertyName } = args;
	const source = await binarySource.call(this, itemIndex, binaryPropertyName);

	if (args.upload.sizeBytes && source.size !== args.upload.sizeBytes) {
		throw new NodeOperationError(
			this.getNode(),
			`"Input Binary Field" ${binaryPropertyName} has ${source.size} bytes but the upload was prepared for ${args.upload.sizeBytes}`,
			{
				itemIndex,
				description:
					'The file size sent to storage must equal the exact byte size declared when preparing the upload. Prepare the upload again from the same binary data.',
			},
		);
	}
	const head = await source.head();
	if (!contentMatchesMimeType(head, args.upload.mimeType)) {
		throw new NodeOperationError(
			this.getNode(),
			`"Input Binary Field" ${binaryPropertyName} content does not match its type ${args.upload.mimeType}`,
			{
				itemIndex,
				description:
					'Extension, declared type and content must agree: a PDF starts with %PDF-, a DOCX is a ZIP archive. Check that the binary property holds the resume itself. Nothing was uploaded.',
			},
		);
	}

	const credentials = await credentialData.call(this, itemIndex);
	const checkTarget = (target: UploadTarget) => {
		const problem = storageUrlProblem(credentials, target.url);
		if (problem) {
			throw new NodeOperationError(
				this.getNode(),
				`Refused to upload the resume of report ${reportId}: ${problem}`,
				{
					itemIndex,
					description:
						'With the Production environment (and any host that is not loopback) storage URLs must be https. Check the API deployment the credential points at.',
				},
			);
		}
		if (hasControlCharacter(target.mimeType) || hasControlCharacter(target.method ?? '')) {
			throw new NodeOperationError(
				this.getNode(),
				`Refused to upload the resume of report ${reportId}: the upload's MIME type or method holds a control character`,
				{
					itemIndex,
					description:
						'The upload preparation returned a header value the node will not send. Prepare the upload again. Nothing was sent.',
				},
			);
		}
	};

	let upload = args.upload;
	let issuedAt = args.upload.issuedAt ?? Date.now();
	let refreshed = false;
	const refresh = async () => {
		const data = await refreshUploadUrl(this, itemIndex, reportId);
		const fresh = uploadFromRefresh(data);
		if (!fresh) {
			throw new NodeOperationError(
				this.getNode(),
				`Refreshing the upload URL of report ${reportId} returned no URL`,
				{
					itemIndex,
				},
			);
		}
		upload = {
			...fresh,
			mimeType: fresh.mimeType || upload.mimeType,
			sizeBytes: fresh.sizeBytes || upload.sizeBytes,
		};
		issuedAt = Date.now();
		refreshed = true;
	};

	if (nearlyExpired(upload, issuedAt)) await refresh();
	for (;;) {
		checkTarget(upload);
		const response = await putOnce.call(this, { upload, source, itemIndex, reportId });
		if (isRedirectStatus(response.statusCode)) {
			const location = headerValue(response.headers, 'location');
			let host = 'an address that is not a URL';
			try {
				host = location ? new URL(location, upload.url).host : 'no address';
			} catch {
				// host stays as set
			}
			throw new NodeOperationError(
				this.getNode(),
				`Storage redirected the resume upload of report ${reportId} (${response.statusCode}) to ${host}; the node does not follow storage redirects`,
				{
					itemIndex,
					description:
						'The signed upload URL must be used unchanged, so the file is sent only to the address the API returned. Prepare the upload again; if this repeats, check the proxy between n8n and storage.',
				},
			);
		}
		if (response.statusCode >= 200 && response.statusCode < 300) {
			return { refreshed, streamed: source.streamed, bytes: source.size };
		}
		// Real signed storage answers an expired or revoked URL with 403: any 403 is worth one refresh.
		if (response.statusCode === 403 && !refreshed) {
			await refresh();
			continue;
		}
		throw buildApiError(this, storageErrorParts(response, reportId, refreshed), {
			itemIndex,
			storage: true,
			// Never echo the signed URL's signature parameters.
			secrets: [...new URL(upload.url).searchParams.values()].filter((value) => value.length >= 16),
		});
	}
}

// Read for the message only, never to decide whether to refresh; the signed URL never reaches the user.
const STORAGE_HINTS: Record<string, string> = {
	AccessDenied:
		'Storage refused the upload even with a freshly refreshed URL. Check that nothing between n8n and storage (a proxy) changes the request, then prepare a new upload.',
	SignatureDoesNotMatch:
		'The request differs from what the signed URL allows (the URL must be used unchanged, with method PUT and the Content-Type prepared for it). Prepare the upload again with the right MIME type.',
	InvalidArgument:
		'Storage refused the upload because it carried an Authorization header. The API key must never be sent to storage; this is a bug, please report it.',
	EntityTooSmall:
		'The file is smaller than the size declared at preparation (an exact byte count). Prepare the upload again with the exact size.',
	EntityTooLarge:
		'The file is larger than the size declared at preparation (an exact byte count). Prepare the upload again with the exact size.',
};

export function readStorageError(
	body: unknown,
	headers: IDataObject,
): { code?: string; message?: string; requestId?: string } {
	const text =
		typeof body === 'string'
			? body
			: body instanceof Uint8Array
				? new TextDecoder().decode(body)
				: undefined;
	const requestId =
		headerValue(headers, 'x-amz-request-id') ??
		headerValue(headers, 'x-guploader-uploadid') ??
		headerValue(headers, 'x-request-id');
	const element = (name: string) => {
		const match = text === undefined ? null : new RegExp(`<${name}>([^<]*)</${name}>`).exec(text);
		return match
			? match[1]
					.replace(/&apos;/g, "'")
					.replace(/&quot;/g, '"')
					.replace(/&lt;/g, '<')
					.replace(/&gt;/g, '>')
					.replace(/&amp;/g, '&')
			: undefined;
	};
	if (text !== undefined && text.includes('<Error>')) {
		return {
			code: element('Code'),
			message: element('Message'),
			requestId: element('RequestId') ?? requestId,
		};
	}
	let parsed: unknown = body;
	if (text !== undefined) {
		try {
			parsed = JSON.parse(text);
		} catch {
			return { message: text.slice(0, 200) || undefined, requestId };
		}
	}
	const error = (
		parsed as { error?: { reason?: unknown; code?: unknown; message?: unknown } } | undefined
	)?.error;
	const code =
		typeof error?.reason === 'string'
			? error.reason
			: typeof error?.code === 'string'
				? error.code
				: undefined;
	return {
		code,
		message: typeof error?.message === 'string' ? error.message : undefined,
		requestId,
	};
}

function storageErrorParts(
	response: { statusCode: number; body: unknown; headers: IDataObject },
	reportId: string,
	refreshed: boolean,
): ApiErrorParts {
	const status = response.statusCode;
	const {
		code = `HTTP_${status}`,
		message = `HTTP ${status}`,
		requestId,
	} = readStorageError(response.body, response.headers);
	const hints: string[] = [];
	if (STORAGE_HINTS[code]) hints.push(STORAGE_HINTS[code]);
	else if (status === 403) hints.push('Storage refused the signed URL. Prepare a new upload.');
	if (status === 408 || status === 429 || status >= 500) {
		hints.push(
			'Storage failed or is busy; the node already retried. Uploading again is safe (the same bytes to the same report).',
		);
	}
	if (refreshed && status === 403)
		hints.push('The URL had already been refreshed once for this upload.');
	if (requestId) hints.push(`Storage request ID: ${requestId}.`);
	return {
		httpCode: String(status),
		status,
		code,
		requestId,
		apiMessage: message,
		body: { error: { code, message, ...(requestId ? { requestId } : {}) } },
		message: `Storage upload of report ${reportId}: ${status} ${code}: ${message}`,
		description: hints.join(' ') || `Unexpected storage answer ${status}.`,
	};
}
