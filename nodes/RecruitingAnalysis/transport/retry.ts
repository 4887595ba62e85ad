/**
 * Retry policy (the spec's "Errors" retry guidance and the webhook receiver contract's retried statuses): network errors, timeouts, 408, 429 and 5xx are
 * retried with capped full-jitter exponential backoff that honours `Retry-After`, and only for requests that are
 * safe to repeat. Pure functions: no n8n types, no timers.
 */
import { sleep, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { headerValue } from './errors';

export interface RetryPolicy {
	/** Total attempts, the first one included. */
	maxAttempts: number;
	/** Backoff base: attempt n (0-based retry) waits up to baseDelayMs * 2^n. */
	baseDelayMs: number;
	/** Cap on one computed backoff. */
	maxDelayMs: number;
	/** A Retry-After longer than this is not waited for: the error is reported instead. */
	maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	maxRetryAfterMs: 60_000,
});

/** 408 Request Timeout, 429 Too Many Requests and every 5xx. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Error codes of a request that never got a complete answer (connection refused/reset/dropped, timeouts, DNS). */
export const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Messages that mark a dropped connection when no code survives the wrapping. */
const NETWORK_MESSAGE_PATTERN =
	/socket hang up|timeout of \d+ms exceeded|network error|terminated|aborted/i;

/** Walks an error and its causes for a network error code. */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const candidate = current as {
			code?: unknown;
			cause?: unknown;
			message?: unknown;
			name?: unknown;
		};
		if (typeof candidate.code === 'string' && RETRYABLE_NETWORK_CODES.has(candidate.code))
			return candidate.code;
		if (
			candidate.name === 'CanceledError' ||
			candidate.name === 'AbortError' ||
			candidate.code === 'ERR_CANCELED'
		) {
			return undefined;
		}
		if (
			typeof candidate.message === 'string' &&
			NETWORK_MESSAGE_PATTERN.test(candidate.message) &&
			!candidate.cause
		) {
			return 'ECONNRESET';
		}
		current = candidate.cause;
	}
	return undefined;
}

/** True when the error is the execution being cancelled (never retried). */
export function isCancellation(error: unknown): boolean {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const candidate = current as { code?: unknown; cause?: unknown; name?: unknown };
		if (
			candidate.name === 'CanceledError' ||
			candidate.code === 'ERR_CANCELED' ||
			candidate.name === 'AbortError'
		) {
			return true;
		}
		current = candidate.cause;
	}
	return false;
}

/** POSTs that have no effect besides their answer: quotes and the upload URL refresh. */
const SIDE_EFFECT_FREE_POSTS: RegExp[] = [
	/^\/api\/v1\/analysis-quotes$/,
	/^\/api\/v1\/analysis-batch-quotes$/,
	/^\/api\/v1\/interview-quotes$/,
	/^\/api\/v1\/interview-batch-quotes$/,
	/^\/api\/v1\/uploads\/[^/]+\/url$/,
];

/**
 * Safe to send again: GET, HEAD, DELETE and PUT (idempotent by HTTP semantics; the API's only DELETE, cancel
 * upload, is documented as safe to repeat), POSTs that only compute an answer, and any write carrying an
 * Idempotency-Key (the API returns the same logical outcome for the same key and body).
 */
export function isSafeToRetry(
	method: IHttpRequestMethods,
	path: string,
	idempotencyKey?: string,
): boolean {
	if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'PUT') return true;
	if (idempotencyKey) return true;
	const pathOnly = path.split('?')[0];
	return method === 'POST' && SIDE_EFFECT_FREE_POSTS.some((pattern) => pattern.test(pathOnly));
}

/**
 * `Retry-After` as milliseconds: delta-seconds (the spec: integer, at least 1) or an HTTP date. Undefined when
 * absent or unreadable; never negative.
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (typeof raw === 'number' && Number.isFinite(raw)) return Math.max(0, raw * 1000);
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim();
	if (text === '') return undefined;
	if (/^\d+(?:\.\d+)?$/.test(text)) return Math.max(0, Math.round(Number(text) * 1000));
	// HTTP-date ("Sat, 21 Nov 2026 10:00:30 GMT"): must name a weekday or month, so "-5" is not read as year -5.
	if (!/[A-Za-z]{3}/.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

/**
 * Full-jitter backoff for retry number `retry` (0 for the first retry): uniform in [0, min(cap, base * 2^retry)].
 * `random` returns a number in [0, 1).
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry));
	return Math.floor(random() * ceiling);
}

/**
 * How long to wait before the next attempt: the jittered backoff, but never less than what `Retry-After` asked
 * for. Undefined when Retry-After asks for longer than the policy allows (the caller then reports the error).
 */
export function nextDelayMs(
	retry: number,
	retryAfterMs: number | undefined,
	policy: RetryPolicy,
	random: () => number,
): number | undefined {
	if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return undefined;
	const jitter = backoffDelayMs(retry, policy, random);
	return retryAfterMs === undefined ? jitter : Math.max(retryAfterMs, jitter);
}

/**
 * The one growing delay for waits that are not retries (reads of work in progress, capacity refusals): `firstMs`,
 * then ×1.5 a step, capped at `maxMs`. Pure.
 */
export function growingDelayMs(step: number, firstMs: number, maxMs: number): number {
	return Math.min(maxMs, Math.round(firstMs * 1.5 ** Math.max(0, step)));
}

/** What one attempt of a request gave: an answer with its HTTP status, or what was thrown. */
export interface RetriedRequest<R> {
	/** The last answer, when the last attempt got one. */
	response?: R;
	/** What the last attempt threw (a network error after the retries, or any other error at once). */
	error?: unknown;
	/** The network error code of `error`, when it is one. */
	networkCode?: string;
	/** Attempts made, the first one included. */
	attempts: number;
}

/**
 * The one retry loop: sends with `send`, and when `safe`, sends again after network errors and retryable statuses
 * (408, 429, 5xx) with the jittered backoff, honouring Retry-After, up to the policy's attempts. Returns the last
 * answer (any status) or the last error; the caller turns either into its own error. `beforeAttempt` may throw to
 * stop (a cancelled execution).
 */
export async function withRetries<R extends { statusCode: number; headers?: unknown }>(args: {
	safe: boolean;
	policy: RetryPolicy;
	random: () => number;
	send: (attempt: number) => Promise<R>;
	beforeAttempt?: () => void;
}): Promise<RetriedRequest<R>> {
	const { safe, policy, random, send } = args;
	for (let attempt = 0; ; attempt++) {
		const last = !safe || attempt + 1 >= policy.maxAttempts;
		args.beforeAttempt?.();
		let response: R;
		try {
			response = await send(attempt);
		} catch (error) {
			const networkCode = isCancellation(error) ? undefined : networkErrorCode(error);
			if (networkCode && !last) {
				await sleep(nextDelayMs(attempt, undefined, policy, random) ?? 0);
				continue;
			}
			return { error, networkCode, attempts: attempt + 1 };
		}
		if (isRetryableStatus(response.statusCode) && !last) {
			const retryAfterMs = parseRetryAfter(
				headerValue(response.headers as IDataObject | undefined, 'retry-after'),
				Date.now(),
			);
			const delay = nextDelayMs(attempt, retryAfterMs, policy, random);
			if (delay !== undefined) {
				await sleep(delay);
				continue;
			}
		}
		return { response, attempts: attempt + 1 };
	}
}
