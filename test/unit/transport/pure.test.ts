/** Pure parts of the transport: backoff, Retry-After, retry eligibility, key derivation, error mapping, paths. */
import {
	growingDelayMs,
	DEFAULT_RETRY_POLICY,
	isRetryableStatus,
	isSafeToRetry,
	networkErrorCode,
	isCancellation,
	parseRetryAfter,
	withRetries,
} from '../../../nodes/RecruitingAnalysis/transport/retry';
import {
	derivedIdempotencyKey,
	DERIVED_KEY_PREFIX,
	userKeyProblem,
	idempotencyKeyOf,
} from '../../../nodes/RecruitingAnalysis/writes/identity';
import { describeApiError, REASON_HINTS } from '../../../nodes/RecruitingAnalysis/transport/errors';
import { redactSecrets } from '../../../nodes/RecruitingAnalysis/transport/guard';
import {
	keyEnvironmentProblem,
	resolveBaseUrl,
} from '../../../nodes/RecruitingAnalysis/transport/environment';
import { apiPath } from '../../../nodes/RecruitingAnalysis/transport';
import { idempotencyKeySchema } from '../../../nodes/RecruitingAnalysis/validation';
import {
	PRODUCTION_BASE_URL,
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	SANDBOX_BASE_URL,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

const policy = {
	...DEFAULT_RETRY_POLICY,
	baseDelayMs: 100,
	maxDelayMs: 1_000,
	maxRetryAfterMs: 5_000,
};

type Answer = { statusCode: number; headers?: Record<string, string> };
const busy = (retryAfter?: string): Answer =>
	retryAfter === undefined
		? { statusCode: 503 }
		: { statusCode: 503, headers: { 'retry-after': retryAfter } };

/** The waits of the retry loop between the given answers, read from its timers (fake: nothing really waits). */
async function waitsBetween(answers: Answer[], random: () => number): Promise<number[]> {
	jest.useFakeTimers();
	const timers = jest.spyOn(global, 'setTimeout');
	try {
		const done = withRetries({
			safe: true,
			policy: { ...policy, maxAttempts: answers.length },
			random,
			send: async (attempt) => answers[attempt],
		});
		await jest.runAllTimersAsync();
		await done;
		return timers.mock.calls.map(([, ms]) => Number(ms));
	} finally {
		timers.mockRestore();
		jest.useRealTimers();
	}
}

describe('backoff', () => {
	const ok = { statusCode: 200 };
	test('full jitter: uniform in [0, min(cap, base * 2^retry)]', async () => {
		expect(await waitsBetween([busy(), ok], () => 0)).toEqual([0]);
		expect(await waitsBetween([busy(), ok], () => 0.999999)).toEqual([99]);
		// ceiling 400 at the third retry
		expect(await waitsBetween([busy(), busy(), busy(), ok], () => 0.5)).toEqual([50, 100, 200]);
		// capped at 1000 from the fifth retry on
		const eleven = await waitsBetween([...Array(11).fill(busy()), ok], () => 0.999999);
		expect(eleven).toHaveLength(11);
		expect(eleven[10]).toBe(999);
	});
	test('Retry-After is a floor under the jitter', async () => {
		expect(await waitsBetween([busy('2'), ok], () => 0.5)).toEqual([2_000]);
		const late = await waitsBetween([busy(), busy(), busy(), busy('0.01'), ok], () => 0.5);
		expect(late[3]).toBe(400);
		expect(await waitsBetween([busy(), ok], () => 0.25)).toEqual([25]);
	});
	test('a Retry-After beyond the policy maximum is not waited for', async () => {
		expect(await waitsBetween([busy('5.001'), ok], () => 0.5)).toEqual([]);
		expect(await waitsBetween([busy('5'), ok], () => 0.5)).toEqual([5_000]);
	});
	test('poll delay grows by 1.5 and is capped', () => {
		expect(growingDelayMs(0, 1000, 15000)).toBe(1000);
		expect(growingDelayMs(1, 1000, 15000)).toBe(1500);
		expect(growingDelayMs(2, 1000, 15000)).toBe(2250);
		expect(growingDelayMs(19, 1000, 15000)).toBe(15000);
	});
});

describe('Retry-After parsing', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');
	test('delta-seconds', () => {
		expect(parseRetryAfter('1', now)).toBe(1000);
		expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
		expect(parseRetryAfter(['3'], now)).toBe(3000);
		expect(parseRetryAfter(2, now)).toBe(2000);
	});
	test('HTTP date, relative to now, never negative', () => {
		expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
	});
	test('absent or unreadable', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('-5', now)).toBeUndefined();
	});
});

describe('what is retried', () => {
	test('retryable statuses: 408, 429, 5xx', () => {
		for (const status of [408, 429, 500, 502, 503, 504])
			expect(isRetryableStatus(status)).toBe(true);
		for (const status of [400, 401, 403, 404, 409, 410, 422])
			expect(isRetryableStatus(status)).toBe(false);
	});
	test('only requests safe to repeat: GET, DELETE, side-effect-free POSTs, writes with a key', () => {
		expect(isSafeToRetry('GET', '/api/v1/reports')).toBe(true);
		expect(isSafeToRetry('DELETE', '/api/v1/uploads/rpt_1')).toBe(true);
		expect(isSafeToRetry('POST', '/api/v1/analysis-quotes')).toBe(true);
		expect(isSafeToRetry('POST', '/api/v1/interview-batch-quotes')).toBe(true);
		expect(isSafeToRetry('POST', '/api/v1/uploads/rpt_1/url')).toBe(true);
		expect(isSafeToRetry('POST', '/api/v1/uploads')).toBe(false);
		expect(isSafeToRetry('POST', '/api/v1/analyses')).toBe(false);
		expect(isSafeToRetry('POST', '/api/v1/analyses', 'key-1')).toBe(true);
	});
	test('network error codes are found through wrapped causes', () => {
		const axiosLike = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		const wrapped = Object.assign(new Error('Request failed'), { cause: axiosLike });
		expect(networkErrorCode(wrapped)).toBe('ECONNRESET');
		expect(
			networkErrorCode(
				Object.assign(new Error('timeout of 30000ms exceeded'), { code: 'ECONNABORTED' }),
			),
		).toBe('ECONNABORTED');
		expect(networkErrorCode(new Error('Invalid URL'))).toBeUndefined();
	});
	test('a cancelled execution is never a network error', () => {
		const cancelled = Object.assign(new Error('canceled'), {
			name: 'CanceledError',
			code: 'ERR_CANCELED',
		});
		expect(networkErrorCode(cancelled)).toBeUndefined();
		expect(isCancellation({ cause: cancelled })).toBe(true);
	});
});

describe('idempotency key derivation', () => {
	const parts = {
		write: 'upload',
		identity: [['existing', 'jd_1', null], 'f'.repeat(64), 'cv.pdf', 'application/pdf', null],
	};
	test('deterministic and within the spec pattern and length', () => {
		const key = derivedIdempotencyKey(parts);
		expect(key).toBe(derivedIdempotencyKey({ ...parts, identity: [...parts.identity] }));
		expect(key.startsWith(DERIVED_KEY_PREFIX)).toBe(true);
		expect(key).toHaveLength(DERIVED_KEY_PREFIX.length + 64);
		expect(idempotencyKeySchema.safeParse(key).success).toBe(true);
	});
	test('each identifying part changes the key (write, identity, label, step); nothing else goes in', () => {
		const base = derivedIdempotencyKey(parts);
		const variants = [
			{ write: 'analysis.start' },
			{ identity: [...parts.identity.slice(0, 4), ['ats', 'app-1']] },
			{ identity: [parts.identity[0], 'e'.repeat(64), ...parts.identity.slice(2)] },
			{ attemptLabel: 'second' },
			{ step: 'renew' },
		].map((change) => derivedIdempotencyKey({ ...parts, ...change }));
		expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
	});
	test('a user key is used as given, with the label and step appended; never truncated', () => {
		expect(idempotencyKeyOf({ ...parts, userKey: 'app-7' })).toBe('app-7');
		expect(
			idempotencyKeyOf({ ...parts, userKey: 'app-7', attemptLabel: 'two', step: 'start' }),
		).toBe('app-7:two:start');
		expect(userKeyProblem('k'.repeat(120), undefined, ['start.requote'])).toMatch(
			/must be at most 114 characters/,
		);
		expect(userKeyProblem('k'.repeat(114), undefined, ['start.requote'])).toBeUndefined();
		expect(() =>
			idempotencyKeyOf({ ...parts, userKey: 'k'.repeat(120), step: 'start.requote' }),
		).toThrow(/at most 114 characters/);
	});
});

describe('error mapping', () => {
	test('reason in error.reason: message has status, code and reason; description has the recovery hint and request id', () => {
		const parts = describeApiError({
			status: 409,
			body: {
				error: {
					code: 'CONFLICT',
					reason: 'PENDING_UPLOAD_LIMIT',
					message: 'Too many pending uploads',
					requestId: 'req-1',
				},
			},
		});
		expect(parts.message).toBe(
			'Recruiting Analysis API: 409 CONFLICT (PENDING_UPLOAD_LIMIT): Too many pending uploads',
		);
		expect(parts.description).toContain(REASON_HINTS.PENDING_UPLOAD_LIMIT);
		expect(parts.description).toContain('Request ID: req-1');
		expect(parts).toMatchObject({
			httpCode: '409',
			code: 'CONFLICT',
			reason: 'PENDING_UPLOAD_LIMIT',
			requestId: 'req-1',
		});
	});
	test('a sub-condition in error.code is read as the reason (tolerant reader)', () => {
		const parts = describeApiError({
			status: 422,
			body: { error: { code: 'QUOTE_STALE', message: 'stale' } },
		});
		expect(parts.code).toBe('UNPROCESSABLE_CONTENT');
		expect(parts.reason).toBe('QUOTE_STALE');
		expect(parts.description).toMatch(/Get a new quote and start again with it/);
	});
	test('403 MISSING_SCOPE names the scopes and where keys are created', () => {
		const parts = describeApiError({
			status: 403,
			body: {
				error: {
					code: 'FORBIDDEN',
					reason: 'MISSING_SCOPE',
					requiredScopes: ['reports:read'],
					message: 'no',
					requestId: 'r',
				},
			},
		});
		expect(parts.description).toMatch(/lacks the scope reports:read/);
		expect(parts.description).toMatch(/Settings > Developer > API keys/);
	});
	test('400 VALIDATION_FAILED lists field and rule', () => {
		const parts = describeApiError({
			status: 400,
			body: {
				error: {
					code: 'BAD_REQUEST',
					reason: 'VALIDATION_FAILED',
					message: 'invalid',
					details: [{ field: 'items[3].input.fileName', rule: 'pattern' }],
				},
			},
		});
		expect(parts.description).toContain('items[3].input.fileName: pattern');
	});
	test('401 says invalid, expired or revoked key', () => {
		const parts = describeApiError({
			status: 401,
			body: { error: { code: 'UNAUTHORIZED', message: 'bad key' } },
		});
		expect(parts.description).toMatch(/invalid, expired or revoked/);
	});
	test('429 and 5xx say retries were made', () => {
		expect(
			describeApiError({ status: 429, body: {}, retries: 3, safeToRetry: true }).description,
		).toMatch(/already retried 3 times/);
		expect(
			describeApiError({ status: 503, body: {}, retries: 2, safeToRetry: true }).description,
		).toMatch(/same idempotency key is safe/);
	});
	test('410 EVENT_CURSOR_EXPIRED code keeps its code and says to start fresh', () => {
		const parts = describeApiError({
			status: 410,
			body: { error: { code: 'EVENT_CURSOR_EXPIRED', message: 'old' } },
		});
		expect(parts.code).toBe('EVENT_CURSOR_EXPIRED');
		expect(parts.description).toMatch(/start a fresh position/);
	});
	test('non-JSON bodies and missing fields fall back to the status', () => {
		const parts = describeApiError({
			status: 502,
			body: '<html>Bad gateway</html>',
			headers: { 'X-Request-Id': 'abc' },
		});
		expect(parts.code).toBe('BAD_GATEWAY');
		expect(parts.requestId).toBe('abc');
		expect(parts.message).toContain('<html>Bad gateway</html>');
	});
	test('405 names the allowed methods', () => {
		expect(
			describeApiError({ status: 405, body: {}, headers: { allow: 'GET' } }).description,
		).toContain('Allowed methods: GET.');
	});
	test('secrets are redacted from text', () => {
		expect(redactSecrets('Bearer svc_test_abc123 failed', ['svc_test_abc123'])).toBe(
			'Bearer [redacted] failed',
		);
		expect(redactSecrets('x', [undefined, ''])).toBe('x');
	});
});

describe('environment and key', () => {
	test('base URL per environment', () => {
		expect(resolveBaseUrl({ environment: 'production', baseUrl: 'http://ignored' })).toEqual({
			baseUrl: PRODUCTION_BASE_URL,
		});
		expect(resolveBaseUrl({ environment: 'sandbox' })).toEqual({ baseUrl: SANDBOX_BASE_URL });
		expect(resolveBaseUrl({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:5000/' })).toEqual({
			baseUrl: 'http://127.0.0.1:5000',
		});
		expect(
			resolveBaseUrl({ environment: 'custom', baseUrl: 'https://eu.example.com/api/v1/' }),
		).toEqual({
			baseUrl: 'https://eu.example.com',
		});
		expect(resolveBaseUrl({ environment: 'custom', baseUrl: '' })).toHaveProperty('problem');
		expect(resolveBaseUrl({ environment: 'custom', baseUrl: 'ftp://x' })).toHaveProperty('problem');
	});
	test('plain http without the opt-in only for a literal loopback address or localhost itself', () => {
		const custom = (baseUrl: string) => resolveBaseUrl({ environment: 'custom', baseUrl });
		for (const url of [
			'http://127.0.0.1:4010',
			'http://127.8.9.10',
			'http://127.1:4010',
			'http://[::1]:4010',
			'http://[0:0:0:0:0:0:0:1]',
			'http://localhost:4010',
			'http://LOCALHOST',
		])
			expect({ url, result: custom(url) }).toEqual({
				url,
				result: { baseUrl: url },
			});
		for (const url of ['http://10.0.0.5', 'http://128.0.0.1', 'http://localhost.example.com'])
			expect({ url, result: custom(url) }).toEqual({
				url,
				result: { problem: expect.stringContaining('uses plain http: the API key would travel') },
			});
	});
	test('a plain-http *.localhost name is refused: the error names the field, the rule, 127.0.0.1 and the opt-in', () => {
		for (const url of [
			'http://api.localhost:4010',
			'http://a.b.LOCALHOST',
			'http://localhost.:4010',
		]) {
			const result = resolveBaseUrl({ environment: 'custom', baseUrl: url });
			expect(result).toHaveProperty('problem');
			const problem = (result as { problem: string }).problem;
			expect(problem).toContain("The credential's Base URL");
			expect(problem).toContain(
				'plain http is accepted only for a literal loopback address (127.0.0.0/8, ::1) or "localhost" itself',
			);
			expect(problem).toContain('http://127.0.0.1');
			expect(problem).toContain('"Allow Plain HTTP"');
		}
		expect(
			(
				resolveBaseUrl({ environment: 'custom', baseUrl: 'http://api.localhost:4010' }) as {
					problem: string;
				}
			).problem,
		).toContain('Use http://127.0.0.1:4010');
		// The opt-in, https, and the Sandbox environment (synthetic data only) are unchanged.
		expect(
			resolveBaseUrl({
				environment: 'custom',
				baseUrl: 'http://api.localhost:4010',
				allowInsecureHttp: true,
			}),
		).toEqual({ baseUrl: 'http://api.localhost:4010' });
		expect(resolveBaseUrl({ environment: 'custom', baseUrl: 'https://api.localhost' })).toEqual({
			baseUrl: 'https://api.localhost',
		});
	});
	test('a svc_test_ key on Production, or a non-test key on Sandbox, is refused', () => {
		expect(keyEnvironmentProblem({ environment: 'production', apiKey: 'svc_test_1' })).toBe(
			PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
		);
		expect(keyEnvironmentProblem({ environment: 'sandbox', apiKey: 'svc_live_1' })).toBe(
			SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
		);
		expect(
			keyEnvironmentProblem({ environment: 'production', apiKey: 'svc_live_1' }),
		).toBeUndefined();
		expect(keyEnvironmentProblem({ environment: 'sandbox', apiKey: 'svc_test_1' })).toBeUndefined();
		expect(keyEnvironmentProblem({ environment: 'custom', apiKey: 'svc_test_1' })).toBeUndefined();
	});
});

describe('apiPath', () => {
	test('every id is URI-encoded', () => {
		expect(apiPath('/api/v1/reports/{}/status', 'rpt_1')).toBe('/api/v1/reports/rpt_1/status');
		expect(apiPath('/api/v1/reports/{}', '../admin?x=1#')).toBe(
			'/api/v1/reports/..%2Fadmin%3Fx%3D1%23',
		);
	});
	test('placeholder and id counts must match', () => {
		expect(() => apiPath('/api/v1/reports/{}')).toThrow(RangeError);
		expect(() => apiPath('/api/v1/reports', 'x')).toThrow(RangeError);
	});
});
