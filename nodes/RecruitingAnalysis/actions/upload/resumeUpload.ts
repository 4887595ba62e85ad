// The upload of a resume, in the API's order: read and check the file, plan its key, prepare (or find the report
// that holds the file), PUT the bytes (refreshing the URL once), renew an expired preparation.
import {
	jsonParse,
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
} from 'n8n-workflow';

import {
	apiPath,
	api,
	hasApiCondition,
	outcomeOf,
	buildApiError,
	transportSettings,
} from '../../transport';
import { readBinaryFacts } from '../../transport/binary';
import { storageUrlProblem, resolveConfig } from '../../transport/environment';
import { headerValue } from '../../transport/errors';
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
	type UploadInput,
	type ValidationContext,
} from '../../validation';
import { waitOutCapacity } from '../../engine/capacity';
import {
	contentIdentity,
	fileReference,
	isFileReference,
	recordWrite,
	uploadIdentity,
	writeIdempotencyKey,
	type WriteChoice,
} from '../../writes/identity';
import { existsCondition, recoverUpload } from '../../writes/recover';
import type { WriteRun } from '../../writes/spending';
import { optionString, optionsParam, stringParam } from '../common/params';
import { checkExternalReference, idParam } from '../common/checks';

function refusal(ctx: IExecuteFunctions, itemIndex: number, message: string, description: string) {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

const GENERIC_MIME_TYPES = new Set([
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

export function inferResumeMimeType(fileName: string, mimeType: string | undefined): string {
	const declared = (mimeType ?? '').split(';')[0].trim().toLowerCase();
	if (!GENERIC_MIME_TYPES.has(declared)) return declared;
	const ext = extensionOf(fileName);
	return ext ? MIME_BY_EXTENSION[ext] : declared;
}

export function validateResumeFile(
	this: ValidationContext,
	file: { fileName?: string; fileSize?: number; mimeType?: string },
	itemIndex: number,
) {
	const { fileName, mimeType } = file;
	const inferred =
		typeof fileName === 'string' ? inferResumeMimeType(fileName, mimeType) : mimeType;
	return check(this, resumeFileSchema, { ...file, mimeType: inferred }, itemIndex);
}

function sniffContent(head: Uint8Array): 'pdf' | 'zip' | 'html' | 'unknown' {
	const text = String.fromCharCode(...head.subarray(0, 8));
	if (text.startsWith('%PDF-')) return 'pdf';
	if (text.startsWith('PK\x03\x04')) return 'zip';
	if (/^\s*</.test(text)) return 'html';
	return 'unknown';
}

const CONTENT_OF_TYPE: Record<string, string> = { [PDF_MIME_TYPE]: 'pdf', [DOCX_MIME_TYPE]: 'zip' };

export function contentMatchesMimeType(head: Uint8Array, mimeType: string): boolean {
	return sniffContent(head) === CONTENT_OF_TYPE[mimeType];
}

function binaryPropertyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	return stringParam(ctx, 'binaryPropertyName', itemIndex, 'data') || 'data';
}

// The file's fields come from the binary (Upload, Analyze) or from the panel (Prepare Only).
export async function readUploadInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
	readFile: (options: IDataObject) => Promise<IDataObject>,
): Promise<UploadInput> {
	const options = optionsParam(ctx, itemIndex);
	const expectedRevision = optionString(options, 'expectedRevision');
	const job =
		ctx.getNodeParameter('jobDescriptionSource', itemIndex, 'existing') === 'text'
			? { kind: 'text', text: ctx.getNodeParameter('jobDescriptionText', itemIndex, '') }
			: {
					kind: 'existing',
					id: idParam(ctx, 'jobDescriptionId', itemIndex, 'Saved Job ID'),
					...(expectedRevision ? { expectedRevision } : {}),
				};
	const jobDescription = validateJobDescriptionInput.call(ctx, job, itemIndex);
	const reference = checkExternalReference(ctx, options, itemIndex);
	const input: IDataObject = { ...(await readFile(options)), jobDescription };
	const { externalReferenceSource: source, externalReferenceId: id } = reference;
	if (source !== undefined && id !== undefined) input.externalReference = { source, id };
	return validateUploadInput.call(ctx, input, itemIndex);
}

/** The step a user key gets in an upload: a new preparation after the replayed one expired. */
export const UPLOAD_RENEW_STEP = 'renew';

export type CheckedUpload = Awaited<ReturnType<typeof checkUpload>>;

export async function checkUpload(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	write: WriteChoice,
	step: string | undefined,
	// Upload: a label asks for a separate report of the same file; Analyze: for a new attempt on the same report.
	{ labelMakesNewReport }: { labelMakesNewReport: boolean },
) {
	let digest = '';
	const input = await readUploadInput(ctx, itemIndex, async (options) => {
		const binary = ctx.helpers.assertBinaryData(itemIndex, binaryPropertyOf(ctx, itemIndex));
		const { mimeType } = binary;
		const fileName = optionString(options, 'fileName') ?? binary.fileName;
		// A stored file's size without reading it; bytes in memory are counted in the read that hashes them.
		const fileSize = binary.id
			? (await ctx.helpers.getBinaryMetadata(binary.id)).fileSize
			: (await readBinaryFacts(ctx, binary)).size;
		const file = validateResumeFile.call(ctx, { fileName, fileSize, mimeType }, itemIndex);
		// One streamed read gives the first bytes and the digest of the upload's key (transport/binary.ts).
		const { head, digest: read } = await readBinaryFacts(ctx, binary);
		digest = read;
		if (contentMatchesMimeType(head, file.mimeType)) return file;
		const isPdf = file.mimeType === PDF_MIME_TYPE;
		const expected = isPdf ? 'a PDF (starting with %PDF-)' : 'a DOCX (a ZIP archive)';
		const found = sniffContent(head);
		const stem = file.fileName.replace(/\.[^.]*$/, '');
		let what = `is not ${expected}`;
		let advice =
			'The file extension, the declared MIME type and the file content must agree. Check that the binary property holds the resume itself and not, for example, an HTML error page.';
		if (isPdf && found === 'zip') {
			// A Word document (DOCX is a ZIP archive) saved or renamed with .pdf: the commonest case in a folder of resumes.
			what = `is a DOCX or other ZIP file, not a PDF. If it is a Word document, rename it ${stem}.docx`;
			advice = `Rename the file to ${stem}.docx (or use the File Name option) if it is a Word document; other ZIP archives cannot be analyzed.`;
		} else if (!isPdf && found === 'pdf') {
			what = `is a PDF, not a DOCX. Rename it ${stem}.pdf`;
			advice = `Rename the file to ${stem}.pdf (or use the File Name option).`;
		} else if (found === 'html') {
			what = `holds HTML (a web page), not ${expected}`;
			advice =
				'A download returned a web page (often a login or error page) instead of the resume: check the step that fetched the file.';
		}
		const message = `"Input Binary Field" content must agree with its type: ${file.fileName} ${what}`;
		throw refusal(ctx, itemIndex, message, `${advice} Nothing was uploaded.`);
	});
	const keyChoice = labelMakesNewReport ? write : { ...write, attemptLabel: undefined };
	const identity = uploadIdentity(input, digest);
	const content = contentIdentity(input, digest);
	const byContent = ['content', content];
	const { attemptLabel } = keyChoice;
	const contentKey = writeIdempotencyKey({ attemptLabel }, 'upload', byContent);
	// The node's file reference proves the bytes by itself; under the user's reference only the key can prove them.
	const keyIsContent = input.externalReference !== undefined && !keyChoice.userKey;
	// What is sent: the input under its external reference, or else under the node's reference to the file.
	const externalReference = input.externalReference ?? fileReference(content, attemptLabel);
	return {
		write,
		keyChoice,
		input,
		identity,
		content,
		contentKey,
		key: writeIdempotencyKey(keyChoice, 'upload', keyIsContent ? byContent : identity, step),
		body: { ...input, externalReference },
		keyIsContent,
		sameWriteAs: recordWrite(run, contentKey, itemIndex),
	};
}

// The signed URL is used here and never output: it is a bearer capability for this upload.
export async function uploadResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	checked: CheckedUpload,
): Promise<IDataObject> {
	const preparation = await prepareOrFind(ctx, itemIndex, checked);
	const sent = await sendResume(ctx, itemIndex, checked, preparation);
	const { fileName, fileSize, mimeType } = checked.input;
	const sameWriteAs = checked.sameWriteAs === undefined ? {} : { sameWriteAs: checked.sameWriteAs };
	if (sent.recovered === true) sent.alreadyAdmitted ??= false;
	return { reportId: sent.reportId, fileName, fileSize, mimeType, ...sameWriteAs, ...sent };
}

export type UploadTarget = { url: string; method: string; mimeType: string; sizeBytes: number };

export interface Preparation {
	reportId: string;
	target: UploadTarget | 'expired' | 'admitted';
	// A report found, not prepared: `verified` when something proves it holds these bytes.
	found?: { from: string; verified: boolean };
}

// The upload's own key or reference may already hold a report: found by the reference, never prepared twice.
export async function prepareOrFind(
	ctx: IExecuteFunctions,
	itemIndex: number,
	upload: Pick<CheckedUpload, 'input' | 'body' | 'key' | 'keyIsContent'>,
): Promise<Preparation> {
	const { body, key } = upload;
	const first = await outcomeOf(async () => await prepareUpload(ctx, itemIndex, body, key));
	if (first.ok) return { reportId: first.value.reportId, target: first.value.upload };
	const from = existsCondition(first.error);
	const reused = from === 'IDEMPOTENCY_KEY_REUSED' && upload.keyIsContent;
	if (!reused && from !== 'EXTERNAL_REFERENCE_CONFLICT') throw first.error;
	const verified = reused || isFileReference(body.externalReference);
	return await reportOfReference(ctx, itemIndex, upload, { from, verified }, first.error);
}

export async function prepareUpload(
	ctx: IExecuteFunctions,
	itemIndex: number,
	body: UploadInput,
	idempotencyKey: string,
): Promise<{ reportId: string; upload: UploadTarget }> {
	const request = { method: 'POST' as const, path: '/api/v1/uploads', idempotencyKey, itemIndex };
	const send = async () => await api(ctx, { ...request, body: body as unknown as IDataObject });
	// PENDING_UPLOAD_LIMIT is waited out (engine/capacity.ts): a refused preparation created nothing.
	const prepared = await waitOutCapacity(ctx, itemIndex, send);
	return prepared as unknown as { reportId: string; upload: UploadTarget };
}

// A found report not yet admitted gets a fresh URL (its first one is long gone); unverified, it must have been
// prepared for this file's size and type and never analysed.
export async function reportOfReference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	{ input, body: { externalReference } }: Pick<CheckedUpload, 'input' | 'body'>,
	found: { from: string; verified: boolean },
	error?: unknown,
): Promise<Preparation> {
	const jobDescription = input.jobDescription as unknown as IDataObject;
	const write = { kind: 'upload' as const, externalReference, jobDescription };
	const report = await recoverUpload(ctx, itemIndex, write, 'EXTERNAL_REFERENCE_CONFLICT', error);
	const reportId = String(report.reportId);
	let target: UploadTarget | 'admitted' = 'admitted';
	if (report.attemptId === null || report.attemptId === undefined) {
		const answer = await outcomeOf(async () => await refreshUploadUrl(ctx, itemIndex, reportId));
		if (answer.ok) target = answer.value.upload as unknown as UploadTarget;
		else if (hasApiCondition(answer.error, 'PREPARATION_EXPIRED'))
			return { reportId, target: 'expired', found };
		else if (!hasApiCondition(answer.error, 'ALREADY_ADMITTED')) throw answer.error;
	}
	const declared = target === 'admitted' ? undefined : (target as Partial<UploadTarget>);
	const sameFile =
		declared !== undefined &&
		(declared.sizeBytes === undefined || declared.sizeBytes === input.fileSize) &&
		(declared.mimeType === undefined || declared.mimeType === input.mimeType);
	if (found.verified || sameFile) return { reportId, target, found };
	const why = declared
		? 'That report was prepared for a file of another size or type and never analysed.'
		: 'That report was analysed from the file first uploaded under this reference; no receipt of this upload ties it to this file (the file changed, or the service has forgotten the receipt).';
	const { source, id } = input.externalReference as { source: string; id: string };
	const state = [report.status, report.code].filter((part) => typeof part === 'string').join(', ');
	const message = `External reference ${source}/${id} is held by report ${reportId} (${state}), not made from this file`;
	const description =
		`${why} The service keeps an external reference for one report, so the file of this item (${input.fileName}) ` +
		'cannot be uploaded under it. Nothing was uploaded or charged. If this is a corrected file (for example a re-scan after a failed report), ' +
		`give it another External Reference ID (for example "${id}-2") and run again; if it is the same file, report ${reportId} is its analysis.`;
	throw refusal(ctx, itemIndex, message, description);
}

// Each renewal is a new day at most.
const MAX_RENEWALS = 4;

/** The upload's output fields: an admitted analysis means the file is frozen and the write exists, so nothing was PUT. */
export async function sendResume(
	ctx: IExecuteFunctions,
	itemIndex: number,
	checked: CheckedUpload,
	start: Preparation,
): Promise<IDataObject> {
	// Said of the first preparation even after a renewal replaced it.
	const { found } = start;
	const sameFile = found?.verified ? { sameFileAsBefore: true } : {};
	const reused = found ? { recovered: true, recoveredFrom: found.from, ...sameFile } : {};
	const admitted = { alreadyAdmitted: true, recovered: true, recoveredFrom: 'ALREADY_ADMITTED' };
	const { input, keyChoice } = checked;
	let current = start;
	let replaces: IDataObject = {};
	for (let renewals = 0; ; renewals++) {
		const { reportId, target } = current;
		let fields: IDataObject | undefined = target === 'admitted' ? admitted : undefined;
		let expiredError: unknown;
		if (typeof target === 'object') {
			const binaryPropertyName = binaryPropertyOf(ctx, itemIndex);
			const args = { reportId, upload: target, itemIndex, binaryPropertyName };
			const put = await outcomeOf(async () => await putResumeToStorage.call(ctx, args));
			if (put.ok) fields = { uploadUrlRefreshed: put.value.refreshed || found !== undefined };
			// A replayed preparation whose analysis was already admitted: the file is frozen, the write exists.
			else if (existsCondition(put.error) === 'ALREADY_ADMITTED') fields = admitted;
			else if (hasApiCondition(put.error, 'PREPARATION_EXPIRED')) expiredError = put.error;
			else throw put.error;
		}
		if (fields) return { reportId, uploaded: true, ...replaces, ...fields, ...reused };
		if (renewals >= MAX_RENEWALS) {
			const message = `The upload preparation of report ${reportId} expired`;
			throw expiredError ?? new NodeOperationError(ctx.getNode(), message, { itemIndex });
		}
		const reference = input.externalReference;
		if (reference) {
			const message = `The upload preparation of report ${reportId} expired before it was analysed`;
			const description =
				`Report ${reportId} holds external reference ${reference.source}/${reference.id}, and a preparation lives 24 hours. ` +
				'The service keeps an external reference for one report, so the file cannot be prepared again under it. Nothing was charged. ' +
				`Give this file another External Reference ID (for example "${reference.id}-2") and run again.`;
			throw refusal(ctx, itemIndex, message, description);
		}
		// Keyed and referenced by the expired report, so every repeat of this run reaches the same new report; an
		// earlier run that renewed it already (its receipt gone) is found by the renewal's reference.
		const renews = ['renews', reportId];
		const identity = [...checked.identity, renews];
		const externalReference = fileReference([...checked.content, renews], keyChoice.attemptLabel);
		current = await prepareOrFind(ctx, itemIndex, {
			input,
			body: { ...input, externalReference },
			key: writeIdempotencyKey(keyChoice, 'upload', identity, UPLOAD_RENEW_STEP),
			keyIsContent: false,
		});
		replaces = { replacesExpiredReportId: reportId };
	}
}

// 10 MB over a slow uplink.
const STORAGE_TIMEOUT_MS = 300_000;

/** PUTs the resume to its signed URL without the credential (the API key must never reach storage: spec, Uploads). */
export async function putResumeToStorage(
	this: IExecuteFunctions,
	args: { reportId: string; upload: UploadTarget; itemIndex: number; binaryPropertyName: string },
): Promise<{ refreshed: boolean; streamed: boolean; bytes: number }> {
	const { reportId, itemIndex, binaryPropertyName } = args;
	const binary = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const id = binary.id ?? '';
	const buffer = id
		? undefined
		: await this.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	// The size and content the check held to what is prepared: transport/binary.ts keeps them, n8n is not asked again.
	const { size } = await readBinaryFacts(this, binary);
	const { credentials } = await resolveConfig.call(this, itemIndex);
	let upload = args.upload;
	const refused = `Refused to upload the resume of report ${reportId}`;
	for (let refreshed = false; ; refreshed = true) {
		const problem = storageUrlProblem(credentials, upload.url);
		if (problem) {
			const advice =
				'With the Production environment (and any host that is not loopback) storage URLs must be https. Check the API deployment the credential points at.';
			throw refusal(this, itemIndex, `${refused}: ${problem}`, advice);
		}
		if (hasControlCharacter(upload.mimeType) || hasControlCharacter(upload.method ?? '')) {
			const message = `${refused}: the upload's MIME type or method holds a control character`;
			const advice =
				'The upload preparation returned a header value the node will not send. Prepare the upload again. Nothing was sent.';
			throw refusal(this, itemIndex, message, advice);
		}
		const { url, method, mimeType } = upload;
		// Retried: a PUT of the same bytes is idempotent.
		const outcome = await withRetries<IN8nHttpFullResponse>({
			safe: true,
			policy: transportSettings.retry,
			random: transportSettings.random,
			send: async () => {
				const started = Date.now();
				const response = (await this.helpers.httpRequest({
					method: (method || 'PUT').toUpperCase() as IHttpRequestOptions['method'],
					url,
					body: buffer ?? (await this.helpers.getBinaryStream(id)),
					headers: { 'Content-Type': mimeType, 'Content-Length': String(size) },
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					// A redirect is reported, never followed: storage gets the URL unchanged or nothing (docs/security.md).
					disableFollowRedirect: true,
					encoding: 'stream',
					timeout: STORAGE_TIMEOUT_MS,
				})) as IN8nHttpFullResponse;
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
					if (error instanceof ResponseTooLargeError) return new Uint8Array();
					throw error;
				});
				const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : body;
				return { ...response, body: text as IN8nHttpFullResponse['body'] };
			},
		});
		const response = outcome.response;
		if (!response) {
			if (isCancellation(outcome.error)) {
				throw new NodeOperationError(this.getNode(), 'The execution was cancelled', { itemIndex });
			}
			const code = outcome.networkCode ?? networkErrorCode(outcome.error);
			// Never include the signed URL: it is a bearer capability for this upload.
			const message = `Could not upload the resume of report ${reportId} to storage`;
			const description = `${code ? `Network error ${code}` : 'The request failed'} after ${outcome.attempts} attempt${outcome.attempts === 1 ? '' : 's'}. Uploading again is safe (the same bytes to the same report); use Upload > Refresh URL if ten minutes have passed.`;
			const body = { error: { code: 'STORAGE_UNREACHABLE', reason: code ?? 'UNKNOWN' } };
			const wrapped = new NodeApiError(this.getNode(), body, { message, description, itemIndex });
			wrapped.message = message;
			wrapped.description = description;
			throw wrapped;
		}
		const status = response.statusCode;
		if (isRedirectStatus(status)) {
			const location = headerValue(response.headers, 'location');
			let host = location ? 'an address that is not a URL' : 'no address';
			if (location && URL.canParse(location, url)) host = new URL(location, url).host;
			const message = `Storage redirected the resume upload of report ${reportId} (${status}) to ${host}; the node does not follow storage redirects`;
			const advice =
				'The signed upload URL must be used unchanged, so the file is sent only to the address the API returned. Prepare the upload again; if this repeats, check the proxy between n8n and storage.';
			throw refusal(this, itemIndex, message, advice);
		}
		if (status >= 200 && status < 300) return { refreshed, streamed: id !== '', bytes: size };
		// Real signed storage answers an expired or revoked URL with 403: any 403 is worth the one refresh. The URL's
		// lifetime is not compared with this host's clock (it counts on the API's).
		if (status !== 403 || refreshed) {
			throw buildApiError(this, storageErrorParts(response, reportId, refreshed), {
				itemIndex,
				storage: true,
				// Never echo the signed URL's signature parameters.
				secrets: [...new URL(url).searchParams.values()].filter((value) => value.length >= 16),
			});
		}
		const fresh = (await refreshUploadUrl(this, itemIndex, reportId)).upload as IDataObject;
		upload = { ...upload, ...fresh };
	}
}

// The only request for a new signed URL: the PUT, a found report and the Refresh URL operation all use it.
export async function refreshUploadUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<IDataObject> {
	const path = apiPath('/api/v1/uploads/{}/url', reportId);
	return await api(ctx, { method: 'POST', path, itemIndex });
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

const XML_ENTITIES: Record<string, string> = { apos: "'", quot: '"', lt: '<', gt: '>', amp: '&' };

// S3 and GCS answer in XML, other stores in JSON or plain text.
function storageErrorParts(response: IN8nHttpFullResponse, reportId: string, refreshed: boolean) {
	const status = response.statusCode;
	const text = typeof response.body === 'string' ? response.body : undefined;
	let found: { code?: string; message?: string; requestId?: string };
	if (text?.includes('<Error>')) {
		const element = (name: string) =>
			new RegExp(`<${name}>([^<]*)</${name}>`)
				.exec(text)?.[1]
				.replace(/&(apos|quot|lt|gt|amp);/g, (_, entity: string) => XML_ENTITIES[entity]);
		found = { code: element('Code'), message: element('Message'), requestId: element('RequestId') };
	} else {
		const fallbackValue = { error: { message: text?.slice(0, 200) || undefined } };
		const parsed = text === undefined ? response.body : jsonParse(text, { fallbackValue });
		const error = (parsed as { error?: IDataObject } | null)?.error;
		const code = [error?.reason, error?.code].find((value) => typeof value === 'string');
		const message = typeof error?.message === 'string' ? error.message : undefined;
		found = { code: code as string | undefined, message };
	}
	const code = found.code ?? `HTTP_${status}`;
	const message = found.message ?? `HTTP ${status}`;
	const requestHeaders = ['x-amz-request-id', 'x-guploader-uploadid', 'x-request-id'];
	const fromHeaders = requestHeaders.map((name) => headerValue(response.headers, name));
	const requestId = found.requestId ?? fromHeaders.find((value) => value !== undefined);
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
		body: { error: { code, message, ...(requestId ? { requestId } : {}) } },
		message: `Storage upload of report ${reportId}: ${status} ${code}: ${message}`,
		description: hints.join(' ') || `Unexpected storage answer ${status}.`,
	};
}
