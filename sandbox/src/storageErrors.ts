/**
 * How the signed storage destination answers errors: as real signed object storage does (S3 style), with an
 * XML `<Error>` body and `x-amz-request-id`, never the API's JSON error body. Shared by the storage route
 * (routes/storage.ts), the app's not-found and auth hooks (app.ts) and fault injection (http.ts).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

export const STORAGE_PREFIX = '/_storage';

export const isStoragePath = (path: string) =>
	path === STORAGE_PREFIX || path.startsWith(`${STORAGE_PREFIX}/`);

/** An S3-style storage error: the status, the `<Code>` and `<Message>`, and extra elements (e.g. Expires). */
export class StorageError extends Error {
	constructor(
		public readonly status: number,
		public readonly code: string,
		message: string,
		public readonly extra: Record<string, string> = {},
	) {
		super(message);
	}
}

const xmlEscape = (s: string) =>
	s.replace(
		/[<>&'"]/g,
		(c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
	);

/** Sends a storage error as S3 does: XML body, `x-amz-request-id`, no API conventions. */
export function sendStorageError(
	reply: FastifyReply,
	err: StorageError,
	headers: Record<string, string> = {},
): FastifyReply {
	const requestId = randomBytes(8).toString('hex').toUpperCase();
	const elements = {
		Code: err.code,
		Message: err.message,
		...err.extra,
		RequestId: requestId,
		HostId: randomBytes(24).toString('base64'),
	};
	const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${Object.entries(elements)
		.map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
		.join('')}</Error>`;
	for (const [h, v] of Object.entries(headers)) reply.header(h, v);
	return reply
		.code(err.status)
		.header('x-amz-request-id', requestId)
		.type('application/xml')
		.send(body);
}

export const signatureDoesNotMatch = () =>
	new StorageError(
		403,
		'SignatureDoesNotMatch',
		'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
	);

/** A fault injected on storage keeps its status and answers in storage's own words (S3 codes). */
export function storageFault(status: number): StorageError {
	const codes: Record<number, [string, string]> = {
		403: ['AccessDenied', 'Access Denied'],
		429: ['SlowDown', 'Please reduce your request rate.'],
		500: ['InternalError', 'We encountered an internal error. Please try again.'],
		503: ['SlowDown', 'Please reduce your request rate.'],
	};
	const [code, message] =
		codes[status] ??
		(status >= 500
			? ['ServiceUnavailable', 'Service is unable to handle request.']
			: ['InvalidRequest', `Injected fault (${status}).`]);
	return new StorageError(status, code, message);
}
