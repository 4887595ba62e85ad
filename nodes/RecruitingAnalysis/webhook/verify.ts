// Pure: no n8n types, no clock, no I/O.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type HeaderValue = string | string[] | undefined;
export type HeaderBag = Record<string, HeaderValue>;

export type VerifyFailureReason =
	| 'NO_SECRET'
	| 'INVALID_SECRET'
	| 'BODY_NOT_RAW'
	| 'MISSING_ID'
	| 'MISSING_TIMESTAMP'
	| 'MISSING_SIGNATURE'
	| 'REPEATED_HEADER'
	| 'INVALID_TIMESTAMP'
	| 'TIMESTAMP_TOO_OLD'
	| 'TIMESTAMP_TOO_NEW'
	| 'NO_V1_SIGNATURE'
	| 'MALFORMED_SIGNATURE'
	| 'SIGNATURE_MISMATCH';

export interface VerifyInput {
	// The exact bytes received, never a re-serialised body.
	rawBody: Uint8Array;
	headers: HeaderBag;
	secrets: readonly string[];
	now: number;
	toleranceSeconds?: number;
}

export interface VerifyFailure {
	ok: false;
	reason: VerifyFailureReason;
	message: string;
}

export type VerifyResult =
	{ ok: true; webhookId: string; timestamp: number; secretIndex: number } | VerifyFailure;

// 16 bytes refuses a truncated or placeholder secret without refusing a short but sound one.
export const MIN_SECRET_BYTES = 16;

// Failures on the receiving side: answered so that the service retries (5xx is retried, other failures end the delivery).
export const RECEIVER_SIDE_FAILURES: ReadonlySet<VerifyFailureReason> = new Set([
	'NO_SECRET',
	'INVALID_SECRET',
	'BODY_NOT_RAW',
]);

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SHA256_BYTES = 32;

function fail(reason: VerifyFailureReason, message: string): VerifyFailure {
	return { ok: false, reason, message };
}

function header(headers: HeaderBag, name: string): { value?: string; repeated?: boolean } {
	let found: HeaderValue;
	for (const key of Object.keys(headers)) {
		if (key.toLowerCase() === name) {
			if (found !== undefined) return { repeated: true };
			found = headers[key];
		}
	}
	if (Array.isArray(found)) {
		if (found.length > 1) return { repeated: true };
		found = found[0];
	}
	return { value: typeof found === 'string' ? found : undefined };
}

export function decodeSigningSecret(secret: string): Buffer | undefined {
	const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
	if (body.length === 0 || !BASE64.test(body)) return undefined;
	return Buffer.from(body, 'base64');
}

export function isWellFormedSigningSecret(secret: string): boolean {
	return secret.startsWith(SECRET_PREFIX) && usableKey(secret) !== undefined;
}

function usableKey(secret: string): Buffer | undefined {
	const key = decodeSigningSecret(secret.trim());
	return key !== undefined && key.length >= MIN_SECRET_BYTES ? key : undefined;
}

function hmac(key: Buffer, webhookId: string, timestamp: string, rawBody: Uint8Array): Buffer {
	return createHmac('sha256', key)
		.update(`${webhookId}.${timestamp}.`, 'utf8')
		.update(rawBody)
		.digest();
}

export function signWebhook(args: {
	secret: string;
	webhookId: string;
	timestamp: number;
	rawBody: Uint8Array;
}): string {
	const key = decodeSigningSecret(args.secret);
	if (!key) throw new TypeError('signWebhook: the secret is not whsec_<base64>');
	return `v1,${hmac(key, args.webhookId, String(args.timestamp), args.rawBody).toString('base64')}`;
}

export function verifyWebhook(input: VerifyInput): VerifyResult {
	const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
	if (!(tolerance > 0)) throw new RangeError('verifyWebhook: toleranceSeconds must be positive');

	const secrets = input.secrets.filter((s) => typeof s === 'string' && s.trim() !== '');
	if (secrets.length === 0) {
		return fail('NO_SECRET', 'No signing secret is configured; refusing to accept any delivery');
	}
	// An unusable secret does not stop the others; matching none is then a failure on this side, not a forgery.
	const keys: Array<{ index: number; key: Buffer }> = [];
	secrets.forEach((s, index) => {
		const key = usableKey(s);
		if (key) keys.push({ index, key });
	});
	const unusable = secrets.length - keys.length;
	if (keys.length === 0) {
		return fail(
			'INVALID_SECRET',
			'No configured signing secret is whsec_ followed by base64 of at least 16 bytes',
		);
	}

	if (!(input.rawBody instanceof Uint8Array)) {
		return fail(
			'BODY_NOT_RAW',
			'The body must be the raw bytes as received; a parsed or re-serialised body cannot be verified',
		);
	}

	const id = header(input.headers, 'webhook-id');
	const ts = header(input.headers, 'webhook-timestamp');
	const sig = header(input.headers, 'webhook-signature');
	if (id.repeated || ts.repeated || sig.repeated) {
		return fail('REPEATED_HEADER', 'A webhook-* header was sent more than once');
	}
	if (!id.value) return fail('MISSING_ID', 'Missing webhook-id header');
	if (!ts.value) return fail('MISSING_TIMESTAMP', 'Missing webhook-timestamp header');
	if (sig.value === undefined) return fail('MISSING_SIGNATURE', 'Missing webhook-signature header');

	if (!/^\d{1,15}$/.test(ts.value)) {
		return fail('INVALID_TIMESTAMP', 'webhook-timestamp is not an integer number of seconds');
	}
	const timestamp = Number(ts.value);
	const nowSeconds = Math.floor(input.now / 1000);
	if (nowSeconds - timestamp > tolerance) {
		return fail('TIMESTAMP_TOO_OLD', `webhook-timestamp is more than ${tolerance} s in the past`);
	}
	if (timestamp - nowSeconds > tolerance) {
		return fail('TIMESTAMP_TOO_NEW', `webhook-timestamp is more than ${tolerance} s in the future`);
	}

	const candidates: Buffer[] = [];
	let malformed = 0;
	for (const entry of sig.value.split(' ')) {
		if (!entry.startsWith('v1,')) continue;
		const encoded = entry.slice('v1,'.length);
		const decoded = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
		if (!decoded || decoded.length !== SHA256_BYTES) {
			malformed++;
			continue;
		}
		candidates.push(decoded);
	}
	if (candidates.length === 0) {
		return malformed > 0
			? fail('MALFORMED_SIGNATURE', 'No v1 signature is valid base64 of a SHA-256 digest')
			: fail('NO_V1_SIGNATURE', 'webhook-signature carries no v1 signature');
	}

	for (const { index, key } of keys) {
		const expected = hmac(key, id.value, ts.value, input.rawBody);
		let matched = false;
		// Compare against every candidate (no early exit inside the list) to keep timing flat.
		for (const candidate of candidates) {
			if (timingSafeEqual(candidate, expected)) matched = true;
		}
		if (matched) return { ok: true, webhookId: id.value, timestamp, secretIndex: index };
	}
	if (unusable > 0) {
		return fail(
			'INVALID_SECRET',
			'No v1 signature matches a usable secret, and a configured signing secret is unusable',
		);
	}
	return fail(
		'SIGNATURE_MISMATCH',
		'No v1 signature matches. Check the signing secret, and that the raw request body was verified (a re-serialised JSON body does not match)',
	);
}
