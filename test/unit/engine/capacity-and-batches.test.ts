/**
 * Capacity waits on their own (engine/capacity.ts), with a fake clock and a fake transport: a write refused for
 * workspace capacity is sent again, unchanged (same key, same body), after a growing pause, for at most
 * CAPACITY_WAIT_SECONDS; any other answer is final at once.
 */
import { isReplayedBatch, refusalHint } from '../../../nodes/RecruitingAnalysis/engine/batch';
import {
	CAPACITY_WAIT_SECONDS,
	waitOutCapacity,
} from '../../../nodes/RecruitingAnalysis/engine/capacity';
import { api } from '../../../nodes/RecruitingAnalysis/transport';
import { apiError, fakeContext, ok } from '../../helpers/fakes';

const start = (ctx: Parameters<typeof api>[0]) => async () =>
	await api(ctx, {
		method: 'POST',
		path: '/api/v1/analyses',
		body: { reportId: 'rpt_1', quoteFingerprint: 'f'.repeat(64) },
		idempotencyKey: 'key-1',
		itemIndex: 0,
	});

describe('capacity waits', () => {
	beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] }));
	afterEach(() => jest.useRealTimers());

	it('sends the same write again after growing pauses until admitted, and says how long it waited', async () => {
		let refusals = 2;
		const { ctx, requests } = fakeContext(() =>
			refusals-- > 0
				? apiError(422, 'UNPROCESSABLE_CONTENT', 'ACTIVE_ANALYSIS_LIMIT')
				: ok({ reportId: 'rpt_1', attemptId: 'att_1' }, 202),
		);
		const done = waitOutCapacity(ctx, 0, start(ctx));
		await jest.advanceTimersByTimeAsync(5_000);
		const result = await done;
		expect(requests).toHaveLength(3);
		expect(new Set(requests.map((request) => request.headers['Idempotency-Key']))).toEqual(
			new Set(['key-1']),
		);
		expect(new Set(requests.map((request) => JSON.stringify(request.body))).size).toBe(1);
		// Pauses of 500 ms, then 750 ms (×1.5).
		expect(requests[1].at - requests[0].at).toBe(500);
		expect(requests[2].at - requests[1].at).toBe(750);
		expect(result).toMatchObject({ attemptId: 'att_1', capacityWaitSeconds: 1.3 });
	});

	it('gives up with the refusal once the wait limit has passed', async () => {
		const { ctx, requests } = fakeContext(() =>
			apiError(422, 'UNPROCESSABLE_CONTENT', 'ACTIVE_ANALYSIS_LIMIT'),
		);
		const done = waitOutCapacity(ctx, 0, start(ctx));
		const outcome = done.then(
			() => 'admitted',
			(error: Error) => error.message,
		);
		await jest.advanceTimersByTimeAsync((CAPACITY_WAIT_SECONDS + 20) * 1000);
		expect(await outcome).toMatch(/ACTIVE_ANALYSIS_LIMIT|capacity|422/i);
		const waited = requests[requests.length - 1].at - requests[0].at;
		expect(waited).toBeLessThanOrEqual(CAPACITY_WAIT_SECONDS * 1000);
		expect(waited).toBeGreaterThanOrEqual(CAPACITY_WAIT_SECONDS * 1000 - 10_000);
	});

	it('does not wait on an answer that is not a capacity refusal', async () => {
		const { ctx, requests } = fakeContext(() =>
			apiError(422, 'UNPROCESSABLE_CONTENT', 'INSUFFICIENT_ALLOWANCE'),
		);
		await expect(waitOutCapacity(ctx, 0, start(ctx))).rejects.toThrow();
		expect(requests).toHaveLength(1);
	});
});

describe('replayed batches and refused items', () => {
	it("tells a batch answered from an earlier receipt by the API's own times, and counts it as new when they cannot tell", () => {
		// The Date header of the answer that named the batch: whole seconds of the API's clock.
		const answeredAt = Date.parse('Wed, 25 Nov 2026 10:00:10 GMT');
		const batch = (createdAt: string) => ({
			id: 'bat_1',
			status: 'completed',
			items: [],
			createdAt,
		});
		expect(isReplayedBatch(batch('2026-11-25T09:00:00.000Z'), answeredAt)).toBe(true);
		expect(isReplayedBatch(batch('2026-11-25T10:00:08.900Z'), answeredAt)).toBe(true);
		// Created within the second the answer names, or the one before: this request's batch, or too close to tell.
		expect(isReplayedBatch(batch('2026-11-25T10:00:10.700Z'), answeredAt)).toBe(false);
		expect(isReplayedBatch(batch('2026-11-25T10:00:09.100Z'), answeredAt)).toBe(false);
		// Without the API's time, or without the batch's, nothing is proven: the batch counts as new.
		expect(isReplayedBatch(batch('2026-11-25T09:00:00.000Z'), undefined)).toBe(false);
		expect(isReplayedBatch({ id: 'bat_2', status: 'completed', items: [] }, answeredAt)).toBe(
			false,
		);
	});

	it('says whether running again helps a refused item', () => {
		expect(refusalHint('INSUFFICIENT_ALLOWANCE').hint).toContain(
			'run again: the node submits this item again',
		);
		expect(refusalHint('INVALID_UPLOAD').hint).toContain('Running again does not change this item');
		expect(refusalHint(null)).toEqual({});
	});
});
