/**
 * The one retry loop (transport/retry.ts withRetries) on its own: which answers and failures are sent again, how
 * many times, after how long, and what the caller gets back at the end.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	DEFAULT_RETRY_POLICY,
	growingDelayMs,
	isCancellation,
	isSafeToRetry,
	networkErrorCode,
	parseRetryAfter,
	withRetries,
} from '../../../nodes/RecruitingAnalysis/transport/retry';
import { api } from '../../../nodes/RecruitingAnalysis/transport';
import { fakeContext, ok } from '../../helpers/fakes';

const policy = {
	...DEFAULT_RETRY_POLICY,
	maxAttempts: 3,
	baseDelayMs: 20,
	maxDelayMs: 40,
	maxRetryAfterMs: 1500,
};
type Answer = { statusCode: number; headers?: Record<string, string> };

function sender(...steps: Array<Answer | Error>) {
	const at: number[] = [];
	const send = async (attempt: number): Promise<Answer> => {
		at.push(Date.now());
		const step = steps[Math.min(attempt, steps.length - 1)];
		if (step instanceof Error) throw step;
		return step;
	};
	return { send, at };
}
const code = (c: string) => Object.assign(new Error(c), { code: c });

describe('the retry loop', () => {
	it('a safe request answered 503 is sent again and gives the later answer', async () => {
		const { send, at } = sender({ statusCode: 503 }, { statusCode: 200 });
		expect(await withRetries({ safe: true, policy, random: () => 0.5, send })).toEqual({
			response: { statusCode: 200 },
			attempts: 2,
		});
		expect(at).toHaveLength(2);
	});

	it('a request that is not safe to repeat is sent once, whatever the answer or failure', async () => {
		const answered = sender({ statusCode: 503 }, { statusCode: 200 });
		expect(
			await withRetries({ safe: false, policy, random: () => 0, send: answered.send }),
		).toEqual({
			response: { statusCode: 503 },
			attempts: 1,
		});
		const reset = code('ECONNRESET');
		const failed = sender(reset, { statusCode: 200 });
		expect(await withRetries({ safe: false, policy, random: () => 0, send: failed.send })).toEqual({
			error: reset,
			networkCode: 'ECONNRESET',
			attempts: 1,
		});
	});

	it('stops after the policy attempts with the last answer', async () => {
		const { send, at } = sender({ statusCode: 500 });
		expect(await withRetries({ safe: true, policy, random: () => 0, send })).toEqual({
			response: { statusCode: 500 },
			attempts: 3,
		});
		expect(at).toHaveLength(3);
	});

	it('a network failure is retried; after the last attempt its code comes back with the error', async () => {
		const reset = code('ECONNRESET');
		const recovered = sender(reset, { statusCode: 201 });
		expect(
			await withRetries({ safe: true, policy, random: () => 0, send: recovered.send }),
		).toEqual({
			response: { statusCode: 201 },
			attempts: 2,
		});
		const down = sender(code('ECONNREFUSED'));
		expect(
			await withRetries({ safe: true, policy, random: () => 0, send: down.send }),
		).toMatchObject({
			networkCode: 'ECONNREFUSED',
			attempts: 3,
		});
	});

	it('any other failure, or a cancelled execution, comes back at once', async () => {
		const bug = new TypeError('boom');
		expect(
			await withRetries({ safe: true, policy, random: () => 0, send: sender(bug).send }),
		).toEqual({
			error: bug,
			networkCode: undefined,
			attempts: 1,
		});
		const cancelled = Object.assign(new Error('socket hang up'), {
			name: 'AbortError',
			code: 'ECONNRESET',
		});
		expect(
			await withRetries({ safe: true, policy, random: () => 0, send: sender(cancelled).send }),
		).toMatchObject({
			attempts: 1,
			networkCode: undefined,
		});
	});

	it('a 4xx other than 408 and 429 is final at once', async () => {
		const { send } = sender({ statusCode: 422 }, { statusCode: 200 });
		expect(await withRetries({ safe: true, policy, random: () => 0, send })).toMatchObject({
			attempts: 1,
		});
	});

	it('waits at least what Retry-After asks, and does not wait for one beyond the policy', async () => {
		const honoured = sender(
			{ statusCode: 429, headers: { 'retry-after': '1' } },
			{ statusCode: 200 },
		);
		await withRetries({ safe: true, policy, random: () => 0, send: honoured.send });
		expect(honoured.at[1] - honoured.at[0]).toBeGreaterThanOrEqual(990);
		const tooLong = sender(
			{ statusCode: 503, headers: { 'retry-after': '2' } },
			{ statusCode: 200 },
		);
		expect(await withRetries({ safe: true, policy, random: () => 0, send: tooLong.send })).toEqual({
			response: { statusCode: 503, headers: { 'retry-after': '2' } },
			attempts: 1,
		});
	});

	it('checks before each attempt and stops when that check throws (a cancelled execution)', async () => {
		let checks = 0;
		const { send, at } = sender({ statusCode: 503 });
		const stopped = withRetries({
			safe: true,
			policy,
			random: () => 0,
			send,
			beforeAttempt: () => {
				if (++checks === 2) throw new Error('The execution was cancelled');
			},
		});
		await expect(stopped).rejects.toThrow('The execution was cancelled');
		expect(at).toHaveLength(1);
	});

	it('waits that are not retries grow by half each step up to their cap', () => {
		expect([0, 1, 2, 3, 10].map((s) => growingDelayMs(s, 100, 300))).toEqual([
			100, 150, 225, 300, 300,
		]);
		expect(growingDelayMs(-2, 100, 300)).toBe(100);
	});
});

describe('which failures are worth another attempt', () => {
	// The codes Node's sockets, DNS and undici give a connection that failed or stalled on the way.
	it.each([
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
	])('a connection that failed with %s is sent again', async (failure) => {
		const { send, at } = sender(code(failure), { statusCode: 200 });
		const outcome = await withRetries({ safe: true, policy, random: () => 0, send });
		expect(outcome).toEqual({ response: { statusCode: 200 }, attempts: 2 });
		expect(at).toHaveLength(2);
	});

	it('every 5xx up to 599 is answered again, and nothing past it', async () => {
		const { send, at } = sender({ statusCode: 599 }, { statusCode: 600 });
		const outcome = await withRetries({ safe: true, policy, random: () => 0, send });
		expect(outcome).toEqual({ response: { statusCode: 600 }, attempts: 2 });
		expect(at).toHaveLength(2);
	});

	it('a failure whose cause is null or a text ends the search there', () => {
		expect(networkErrorCode(Object.assign(new Error('failed'), { cause: null }))).toBeUndefined();
		expect(
			networkErrorCode(Object.assign(new Error('failed'), { cause: 'ECONNRESET' })),
		).toBeUndefined();
		expect(isCancellation(Object.assign(new Error('failed'), { cause: null }))).toBe(false);
	});

	it('a failure with another code, or none, is not a network failure', () => {
		expect(networkErrorCode(code('ENOTFOUND_X'))).toBeUndefined();
		expect(networkErrorCode(code('ERR_INVALID_URL'))).toBeUndefined();
		expect(networkErrorCode('ECONNRESET')).toBeUndefined();
	});

	it.each([
		'socket hang up',
		'timeout of 400ms exceeded',
		'Network Error',
		'terminated',
		'The operation was aborted',
	])('a failure without a code that says "%s" is a dropped connection', (message) => {
		expect(networkErrorCode(new Error(message))).toBe('ECONNRESET');
	});

	it('a message like that is read only from the innermost failure, and only whole numbers of ms', () => {
		const inner = new Error('Invalid header value');
		expect(
			networkErrorCode(Object.assign(new Error('socket hang up'), { cause: inner })),
		).toBeUndefined();
		expect(networkErrorCode(new Error('timeout of ms exceeded'))).toBeUndefined();
		expect(networkErrorCode(new Error('a socket hung'))).toBeUndefined();
	});

	it('a cancelled execution is neither retried nor taken for a network failure, however it is named', () => {
		// Messages a dropped connection would also give: only the name or code tells a cancellation apart.
		const abort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
		const canceled = Object.assign(new Error('Request aborted'), { code: 'ERR_CANCELED' });
		const named = Object.assign(new Error('socket hang up'), { name: 'CanceledError' });
		for (const error of [abort, canceled, named]) {
			expect(networkErrorCode(error)).toBeUndefined();
			expect(networkErrorCode({ cause: error })).toBeUndefined();
			expect(isCancellation(error)).toBe(true);
			expect(isCancellation({ message: 'wrapped', cause: error })).toBe(true);
		}
		expect(isCancellation(code('ECONNRESET'))).toBe(false);
		const loop: { cause?: unknown } = {};
		loop.cause = loop;
		expect(isCancellation(loop)).toBe(false);
		expect(networkErrorCode(loop)).toBeUndefined();
	});
});

describe('which requests are safe to send again', () => {
	it('reads and the idempotent methods, whatever the path', () => {
		for (const method of ['GET', 'HEAD', 'DELETE', 'PUT'] as const)
			expect(isSafeToRetry(method, '/api/v1/analyses')).toBe(true);
		expect(isSafeToRetry('PATCH', '/api/v1/webhooks/wh_1')).toBe(false);
	});

	it('a POST only to a quote or an upload URL refresh, by the whole path, its query aside', () => {
		for (const path of [
			'/api/v1/analysis-quotes',
			'/api/v1/analysis-batch-quotes',
			'/api/v1/interview-quotes',
			'/api/v1/interview-batch-quotes?x=1',
			'/api/v1/uploads/rpt_1/url',
		])
			expect(isSafeToRetry('POST', path)).toBe(true);
		for (const path of [
			'/api/v1/analysis-quotes/x',
			'/x/api/v1/analysis-quotes',
			'/api/v1/analysis-batch-quotes/x',
			'/x/api/v1/analysis-batch-quotes',
			'/api/v1/interview-quotes/x',
			'/x/api/v1/interview-quotes',
			'/api/v1/interview-batch-quotes/x',
			'/x/api/v1/interview-batch-quotes',
			'/api/v1/uploads/rpt_1/url/x',
			'/x/api/v1/uploads/rpt_1/url',
			'/api/v1/uploads//url',
			'/api/v1/uploads/a/b/url',
		])
			expect(isSafeToRetry('POST', path)).toBe(false);
		expect(isSafeToRetry('PATCH', '/api/v1/analysis-quotes')).toBe(false);
	});
});

describe('how long Retry-After asks to wait', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	it('seconds as a number or text, fractions too; never negative; nothing for what is no time', () => {
		expect(parseRetryAfter(1.5, now)).toBe(1500);
		expect(parseRetryAfter(-3, now)).toBe(0);
		expect(parseRetryAfter(Number.POSITIVE_INFINITY, now)).toBeUndefined();
		expect(parseRetryAfter(Number.NaN, now)).toBeUndefined();
		expect(parseRetryAfter('0.25', now)).toBe(250);
		expect(parseRetryAfter('2 seconds', now)).toBeUndefined();
		expect(parseRetryAfter('   ', now)).toBeUndefined();
		expect(parseRetryAfter([7], now)).toBe(7000);
		expect(parseRetryAfter({ seconds: 3 }, now)).toBeUndefined();
	});

	it('an HTTP date names a day or month; a bare number-like date is not read', () => {
		expect(parseRetryAfter('21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('2026-11-21T10:00:05Z', now)).toBeUndefined();
		expect(parseRetryAfter('Xyz, 99 Foo 2026', now)).toBeUndefined();
	});
});

describe('a request of a cancelled execution (transport/index.ts)', () => {
	const withSignal = (signal: AbortSignal | undefined) => {
		const fake = fakeContext(() => ok({ items: [] }));
		const ctx = { ...fake.ctx, getExecutionCancelSignal: () => signal } as IExecuteFunctions;
		return { ctx, requests: fake.requests };
	};

	it('is refused before it is sent', async () => {
		const controller = new AbortController();
		controller.abort();
		const { ctx, requests } = withSignal(controller.signal);
		await expect(api(ctx, { method: 'GET', path: '/api/v1/reports' })).rejects.toThrow(
			'The execution was cancelled',
		);
		expect(requests).toHaveLength(0);
	});

	it('is sent while the signal is not aborted, or where the context has none', async () => {
		for (const signal of [new AbortController().signal, undefined]) {
			const { ctx, requests } = withSignal(signal);
			await expect(api(ctx, { method: 'GET', path: '/api/v1/reports' })).resolves.toEqual({
				items: [],
			});
			expect(requests).toHaveLength(1);
		}
	});
});
