// Read for the message only, never to decide whether to refresh (storage.ts); the signed URL never reaches the user.
import type { IDataObject } from 'n8n-workflow';

import { headerValue, type ApiErrorParts } from './errors';

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

export function storageErrorParts(
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
