// Sent without the credential: the API key must never reach storage (spec, Uploads).
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

// 10 MB over a slow uplink.
export const STORAGE_TIMEOUT_MS = 300_000;

// Refreshed early for clock skew and a slow start.
export const STORAGE_EXPIRY_MARGIN_MS = 30_000;

export interface UploadTarget {
	url: string;
	method: string;
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
	// When the answer carrying the URL arrived (default: now): its lifetime counts from there.
	issuedAt?: number;
}

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
