import { createHmac, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type HeaderBag = Record<string, string | string[] | undefined>;

const MESSAGES = {
	NO_SECRET: 'No signing secret is configured; refusing to accept any delivery',
	INVALID_SECRET: 'No configured signing secret is whsec_ followed by base64 of at least 16 bytes',
	BODY_NOT_RAW:
		'The body must be the raw bytes as received; a parsed or re-serialised body cannot be verified',
	MISSING_ID: 'Missing webhook-id header',
	MISSING_TIMESTAMP: 'Missing webhook-timestamp header',
	MISSING_SIGNATURE: 'Missing webhook-signature header',
	REPEATED_HEADER: 'A webhook-* header was sent more than once',
	INVALID_TIMESTAMP: 'webhook-timestamp is not an integer number of seconds',
	TIMESTAMP_TOO_OLD: 'in the past',
	TIMESTAMP_TOO_NEW: 'in the future',
	NO_V1_SIGNATURE: 'webhook-signature carries no v1 signature',
	MALFORMED_SIGNATURE: 'No v1 signature is valid base64 of a SHA-256 digest',
	SIGNATURE_MISMATCH:
		'No v1 signature matches. Check the signing secret, and that the raw request body was verified (a re-serialised JSON body does not match)',
};

export type VerifyFailureReason = keyof typeof MESSAGES;

export interface VerifyInput {
	// The exact bytes received, never a re-serialised body.
	rawBody: Uint8Array;
	headers: HeaderBag;
	secrets: readonly string[];
	now: number;
	toleranceSeconds?: number;
}

type VerifyResult =
	| { ok: true; webhookId: string; timestamp: number; secretIndex: number }
	| { ok: false; reason: VerifyFailureReason; message: string };

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

function fail(reason: VerifyFailureReason, message = MESSAGES[reason]): VerifyResult {
	return { ok: false, reason, message };
}

function header(headers: HeaderBag, name: string): { value?: string; repeated?: boolean } {
	let found: HeaderBag[string];
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

export function verifyWebhook(input: VerifyInput): VerifyResult {
	const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
	if (!(tolerance > 0)) throw new RangeError('verifyWebhook: toleranceSeconds must be positive');

	const secrets = input.secrets.filter((s) => typeof s === 'string' && s.trim() !== '');
	if (secrets.length === 0) return fail('NO_SECRET');
	// An unusable secret does not stop the others; matching none is then a failure on this side, not a forgery.
	const keys = secrets
		.map((secret, index) => ({ index, key: usableKey(secret) }))
		.filter((k): k is { index: number; key: Buffer } => k.key !== undefined);
	if (keys.length === 0) return fail('INVALID_SECRET');
	if (!(input.rawBody instanceof Uint8Array)) return fail('BODY_NOT_RAW');

	const id = header(input.headers, 'webhook-id');
	const ts = header(input.headers, 'webhook-timestamp');
	const sig = header(input.headers, 'webhook-signature');
	if (id.repeated || ts.repeated || sig.repeated) return fail('REPEATED_HEADER');
	if (!id.value) return fail('MISSING_ID');
	if (!ts.value) return fail('MISSING_TIMESTAMP');
	if (sig.value === undefined) return fail('MISSING_SIGNATURE');

	if (!/^\d{1,15}$/.test(ts.value)) return fail('INVALID_TIMESTAMP');
	const timestamp = Number(ts.value);
	const nowSeconds = Math.floor(input.now / 1000);
	const beyond = (reason: VerifyFailureReason) =>
		fail(reason, `webhook-timestamp is more than ${tolerance} s ${MESSAGES[reason]}`);
	if (nowSeconds - timestamp > tolerance) return beyond('TIMESTAMP_TOO_OLD');
	if (timestamp - nowSeconds > tolerance) return beyond('TIMESTAMP_TOO_NEW');

	const candidates: Buffer[] = [];
	let malformed = 0;
	for (const entry of sig.value.split(' ')) {
		if (!entry.startsWith('v1,')) continue;
		const encoded = entry.slice('v1,'.length);
		const decoded = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
		if (decoded?.length === SHA256_BYTES) candidates.push(decoded);
		else malformed++;
	}
	if (candidates.length === 0) {
		return fail(malformed > 0 ? 'MALFORMED_SIGNATURE' : 'NO_V1_SIGNATURE');
	}

	for (const { index, key } of keys) {
		const expected = createHmac('sha256', key)
			.update(`${id.value}.${ts.value}.`, 'utf8')
			.update(input.rawBody)
			.digest();
		let matched = false;
		// Compare against every candidate (no early exit inside the list) to keep timing flat.
		for (const candidate of candidates) {
			if (timingSafeEqual(candidate, expected)) matched = true;
		}
		if (matched) return { ok: true, webhookId: id.value, timestamp, secretIndex: index };
	}
	if (keys.length < secrets.length) {
		return fail(
			'INVALID_SECRET',
			'No v1 signature matches a usable secret, and a configured signing secret is unusable',
		);
	}
	return fail('SIGNATURE_MISMATCH');
}
