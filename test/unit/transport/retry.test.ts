/**
 * The one retry loop (transport/retry.ts withRetries) on its own: which answers and failures are sent again, how
 * many times, after how long, and what the caller gets back at the end.
 */
import {
	DEFAULT_RETRY_POLICY,
	growingDelayMs,
	withRetries,
} from '../../../nodes/RecruitingAnalysis/transport/retry';

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
