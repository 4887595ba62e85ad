/**
 * The resume PUT to the signed storage URL (spec, Uploads: "the API key must not be sent to storage").
 * Sent with `helpers.httpRequest` (no credential), the body streamed from n8n's binary store when the binary has an
 * id (filesystem / database modes) so a 10 MB file is never held whole in memory, with `Content-Type` and
 * `Content-Length` set. On 403 URL_EXPIRED the URL is refreshed once and the file sent again from a fresh stream.
 */
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { contentMatchesMimeType } from '../validation';
import { describeApiError, headerValue } from './errors';
import { apiPath, apiRequest, buildApiError, transportSettings } from './request';
import { isCancellation, isRetryableStatus, networkErrorCode, nextDelayMs, parseRetryAfter } from './retry';

/** Per-attempt timeout of the storage PUT (10 MB over a slow uplink). */
export const STORAGE_TIMEOUT_MS = 300_000;

export interface UploadTarget {
	url: string;
	method: string;
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
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

async function binarySource(this: IExecuteFunctions, itemIndex: number, binaryPropertyName: string): Promise<BinarySource> {
	const binary: IBinaryData = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const id = binary.id;
	if (typeof id === 'string' && id !== '') {
		const metadata = await this.helpers.getBinaryMetadata(id);
		return {
			size: metadata.fileSize,
			streamed: true,
			open: async () => await this.helpers.getBinaryStream(id),
			head: async () => {
				const stream = await this.helpers.getBinaryStream(id, 16);
				let head: Uint8Array = new Uint8Array(0);
				for await (const chunk of stream as AsyncIterable<Uint8Array>) {
					head = chunk;
					break; // leaving the loop closes the stream
				}
				return head;
			},
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

function storageReason(response: FullResponse): string | undefined {
	let body = response.body;
	if (typeof body === 'string') {
		try {
			body = JSON.parse(body);
		} catch {
			return undefined;
		}
	}
	const error = (body as { error?: { reason?: unknown; code?: unknown } } | undefined)?.error;
	if (typeof error?.reason === 'string') return error.reason;
	return typeof error?.code === 'string' ? error.code : undefined;
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
			expiresInSeconds: typeof candidate.expiresInSeconds === 'number' ? candidate.expiresInSeconds : 600,
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
	const policy = transportSettings.retry;
	for (let attempt = 0; ; attempt++) {
		const isLastAttempt = attempt + 1 >= policy.maxAttempts;
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
			timeout: STORAGE_TIMEOUT_MS,
		};
		try {
			const response = (await this.helpers.httpRequest(request)) as FullResponse;
			if (isRetryableStatus(response.statusCode) && !isLastAttempt) {
				const retryAfterMs = parseRetryAfter(headerValue(response.headers, 'retry-after'), Date.now());
				const delay = nextDelayMs(attempt, retryAfterMs, policy, transportSettings.random);
				if (delay !== undefined) {
					await sleep(delay);
					continue;
				}
			}
			return response;
		} catch (error) {
			if (isCancellation(error)) {
				throw new NodeOperationError(this.getNode(), 'The execution was cancelled', { itemIndex });
			}
			const code = networkErrorCode(error);
			if (code && !isLastAttempt) {
				await sleep(nextDelayMs(attempt, undefined, policy, transportSettings.random) ?? 0);
				continue;
			}
			// Never include the signed URL: it is a bearer capability for this upload.
			const message = `Could not upload the resume of report ${reportId} to storage`;
			const description = `${code ? `Network error ${code}` : 'The request failed'} after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}. Uploading again is safe (the same bytes to the same report); use Upload > Refresh URL if ten minutes have passed.`;
			const wrapped = new NodeApiError(this.getNode(), { error: { code: 'STORAGE_UNREACHABLE', reason: code ?? 'UNKNOWN' } }, {
				message,
				description,
				itemIndex,
			});
			wrapped.message = message;
			wrapped.description = description;
			throw wrapped;
		}
	}
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

	let upload = args.upload;
	let refreshed = false;
	for (;;) {
		const response = await putOnce.call(this, { upload, source, itemIndex, reportId });
		if (response.statusCode >= 200 && response.statusCode < 300) {
			return { refreshed, streamed: source.streamed, bytes: source.size };
		}

		const reason = storageReason(response);
		if (response.statusCode === 403 && reason === 'URL_EXPIRED' && !refreshed) {
			const data = await apiRequest.call<IExecuteFunctions, [Parameters<typeof apiRequest>[0]], Promise<IDataObject>>(
				this,
				{ method: 'POST', path: apiPath('/api/v1/uploads/{}/url', reportId), itemIndex },
			);
			const fresh = uploadFromRefresh(data);
			if (!fresh) {
				throw new NodeOperationError(this.getNode(), `Refreshing the upload URL of report ${reportId} returned no URL`, {
					itemIndex,
				});
			}
			upload = { ...fresh, mimeType: fresh.mimeType || upload.mimeType, sizeBytes: fresh.sizeBytes || upload.sizeBytes };
			refreshed = true;
			continue;
		}
		const parts = describeApiError({
			status: response.statusCode,
			body: response.body,
			headers: response.headers,
			subject: `Storage upload of report ${reportId}`,
			safeToRetry: true,
		});
		throw buildApiError(this, parts, { itemIndex, secrets: [new URL(upload.url).searchParams.get('signature') ?? ''] });
	}
}
