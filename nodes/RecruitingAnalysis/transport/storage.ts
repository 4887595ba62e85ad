/**
 * The resume PUT to the signed storage URL (spec, Uploads: "the API key must not be sent to storage").
 * Sent with `helpers.httpRequest` (no credential), the body streamed from n8n's binary store when the binary has an
 * id (filesystem / database modes) so a 10 MB file is never held whole in memory, with `Content-Type` and
 * `Content-Length` set.
 *
 * Expiry is read as real signed storage (S3, GCS) reports it, not from any API convention: the node knows the
 * URL's lifetime from `expiresInSeconds` and the time it was issued, refreshes it before sending on a URL that has
 * (nearly) expired, and treats any 403 from the storage host as a reason to refresh once and send again from a
 * fresh stream. Storage error bodies are S3-style XML (`<Error><Code>…</Code><Message>…</Message>`); they are read
 * for the message only (a JSON error body is read too), never to decide whether to refresh.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { contentMatchesMimeType } from '../validation';
import { binaryHead } from './binary';
import { storageUrlProblem } from './environment';
import { headerValue } from './errors';
import {
	discardBody,
	hasControlCharacter,
	isRedirectStatus,
	MAX_STORAGE_RESPONSE_BYTES,
	readBounded,
	ResponseTooLargeError,
} from './guard';
import { apiPath, apiRequest, buildApiError, credentialData, transportSettings } from './request';
import { storageErrorParts } from './storageErrors';
export { readStorageError } from './storageErrors';
import { isCancellation, networkErrorCode, withRetries } from './retry';

/** Per-attempt timeout of the storage PUT (10 MB over a slow uplink). */
export const STORAGE_TIMEOUT_MS = 300_000;

/** A URL is refreshed before sending when less than this remains of its lifetime (clock skew, a slow start). */
export const STORAGE_EXPIRY_MARGIN_MS = 30_000;

export interface UploadTarget {
	url: string;
	method: string;
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
	/** When the URL was issued (epoch ms; at the latest, when its answer was received). Default: now. */
	issuedAt?: number;
}

interface FullResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
}

/** Where the bytes come from: a stream opener (fresh stream per attempt) or the in-memory buffer. */
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
			// The first bytes come from the read that gave the file's digest (binary.ts): no open of its own.
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

/** Whether less than the margin remains of the URL's lifetime (counted from when it was issued). */
function nearlyExpired(upload: UploadTarget, issuedAt: number): boolean {
	const lifetimeMs = (upload.expiresInSeconds > 0 ? upload.expiresInSeconds : 600) * 1000;
	return Date.now() >= issuedAt + lifetimeMs - Math.min(STORAGE_EXPIRY_MARGIN_MS, lifetimeMs / 10);
}

/** The Upload object inside a refresh answer (`{reportId, upload}`), tolerant of a bare upload object. */
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

/** One PUT with retries on network errors, 408, 429 and 5xx (a PUT of the same bytes is idempotent). */
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
				// A stream (or the in-memory buffer); n8n hands it to its HTTP client unchanged.
				body: (await source.open()) as Buffer,
				headers: {
					'Content-Type': upload.mimeType,
					'Content-Length': String(source.size),
				},
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// Storage gets the URL unchanged or nothing: a redirect is reported, never followed (docs/security.md).
				disableFollowRedirect: true,
				encoding: 'stream',
				timeout: STORAGE_TIMEOUT_MS,
			};
			const response = (await this.helpers.httpRequest(request)) as FullResponse;
			if (isRedirectStatus(response.statusCode)) {
				discardBody(response.body);
				return response;
			}
			// Only an error answer is read, and only its first 64 KiB matter; an endless answer ends at the deadline.
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

/**
 * PUTs the item's binary property to the signed upload URL. Returns whether the URL had to be refreshed, whether
 * the body was streamed from n8n's binary store (true when the binary has an id), and the bytes sent.
 * Checks before sending: the byte size equals the prepared `sizeBytes`, and the first bytes match the prepared
 * MIME type (PDF or DOCX).
 */
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
		const data = await apiRequest.call<
			IExecuteFunctions,
			[Parameters<typeof apiRequest>[0]],
			Promise<IDataObject>
		>(this, {
			method: 'POST',
			path: apiPath('/api/v1/uploads/{}/url', reportId),
			itemIndex,
		});
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

	// A URL past (or about to pass) its lifetime is refreshed before the file is sent on it.
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
		// Real signed storage answers an expired, revoked or otherwise refused URL with 403 and a body of its own:
		// any 403 is worth one refresh (the refresh itself says PREPARATION_EXPIRED or ALREADY_ADMITTED when that is why).
		if (response.statusCode === 403 && !refreshed) {
			await refresh();
			continue;
		}
		throw buildApiError(this, storageErrorParts(response, reportId, refreshed), {
			itemIndex,
			storage: true,
			// Never echo the signed URL's credentials (`signature`, `X-Amz-Signature`, `X-Goog-Signature`, ...).
			secrets: [...new URL(upload.url).searchParams.values()].filter((value) => value.length >= 16),
		});
	}
}
