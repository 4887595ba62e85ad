import { sleep, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { headerValue } from './errors';

export const DEFAULT_RETRY_POLICY = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	// A Retry-After longer than this is not waited for: the error is reported instead.
	maxRetryAfterMs: 60_000,
};

export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
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

const NETWORK_MESSAGE_PATTERN =
	/socket hang up|timeout of \d+ms exceeded|network error|terminated|aborted/i;

type Failure = { code?: unknown; cause?: unknown; message?: unknown; name?: unknown };

// The error and its causes, outermost first, each once: a cause may point back to its error.
function* causeChain(error: unknown): Generator<Failure> {
	const seen = new Set<unknown>();
	let current = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		yield current as Failure;
		current = (current as Failure).cause;
	}
}

const isAbort = (failure: Failure): boolean =>
	failure.name === 'CanceledError' ||
	failure.name === 'AbortError' ||
	failure.code === 'ERR_CANCELED';

export function networkErrorCode(error: unknown): string | undefined {
	for (const failure of causeChain(error)) {
		if (typeof failure.code === 'string' && RETRYABLE_NETWORK_CODES.has(failure.code))
			return failure.code;
		if (isAbort(failure)) return undefined;
		if (!failure.cause && NETWORK_MESSAGE_PATTERN.test(String(failure.message)))
			return 'ECONNRESET';
	}
	return undefined;
}

export function isCancellation(error: unknown): boolean {
	return [...causeChain(error)].some(isAbort);
}

const SIDE_EFFECT_FREE_POST =
	/^\/api\/v1\/(?:(?:analysis|interview)(?:-batch)?-quotes|uploads\/[^/]+\/url)$/;

// Only requests safe to send again are retried: idempotent methods, quotes, and writes carrying an Idempotency-Key.
export function isSafeToRetry(method: IHttpRequestMethods, path: string, idempotencyKey?: string) {
	if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'PUT') return true;
	if (idempotencyKey) return true;
	return method === 'POST' && SIDE_EFFECT_FREE_POST.test(path.split('?')[0]);
}

export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (typeof raw === 'number' && Number.isFinite(raw)) return Math.max(0, raw * 1000);
	if (typeof raw !== 'string') return undefined;
	const text = raw.trim();
	if (/^\d+(?:\.\d+)?$/.test(text)) return Math.max(0, Math.round(Number(text) * 1000));
	// HTTP-date ("Sat, 21 Nov 2026 10:00:30 GMT"): must name a weekday or month, so "-5" is not read as year -5.
	if (!/[A-Za-z]{3}/.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

export function growingDelayMs(step: number, firstMs: number, maxMs: number): number {
	return Math.min(maxMs, Math.round(firstMs * 1.5 ** Math.max(0, step)));
}

export async function withRetries<R extends { statusCode: number; headers?: unknown }>(args: {
	safe: boolean;
	policy: typeof DEFAULT_RETRY_POLICY;
	random: () => number;
	send: (attempt: number) => Promise<R>;
	beforeAttempt?: () => void;
}): Promise<{ response?: R; error?: unknown; networkCode?: string; attempts: number }> {
	const { safe, policy, random, send } = args;
	const jitter = (retry: number) =>
		Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
	for (let attempt = 0; ; attempt++) {
		const last = !safe || attempt + 1 >= policy.maxAttempts;
		args.beforeAttempt?.();
		let response: R;
		try {
			response = await send(attempt);
		} catch (error) {
			const networkCode = isCancellation(error) ? undefined : networkErrorCode(error);
			if (networkCode && !last) {
				await sleep(jitter(attempt));
				continue;
			}
			return { error, networkCode, attempts: attempt + 1 };
		}
		if (isRetryableStatus(response.statusCode) && !last) {
			const retryAfterMs = parseRetryAfter(
				headerValue(response.headers as IDataObject | undefined, 'retry-after'),
				Date.now(),
			);
			if (retryAfterMs === undefined || retryAfterMs <= policy.maxRetryAfterMs) {
				await sleep(Math.max(retryAfterMs ?? 0, jitter(attempt)));
				continue;
			}
		}
		return { response, attempts: attempt + 1 };
	}
}
