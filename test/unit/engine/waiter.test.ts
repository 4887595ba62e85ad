/**
 * The report waiter on its own (engine/capacity.ts), with a fake clock and a fake transport: the run's pending reports
 * are read together from report list pages, each wait ends when its report is terminal (with the summary the page
 * showed), and a wait that outlives its limit ends as timed out with the last status, never as a failure.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	CAPACITY_WAIT_SECONDS,
	ReportPages,
	ReportWaiter,
	waitOutCapacity,
} from '../../../nodes/RecruitingAnalysis/engine/capacity';
import { fakeContext, ok, type SentRequest } from '../../helpers/fakes';

/** A fake list of reports: each becomes completed at its own simulated time. */
function reportsFinishingAt(doneAt: Record<string, number>, epoch: number) {
	const created = new Date(epoch).toISOString();
	return (request: SentRequest) => {
		const summary = (id: string): IDataObject => ({
			id,
			createdAt: created,
			status: Date.now() - epoch >= doneAt[id] ? 'completed' : 'processing',
			attemptId: `att_${id}`,
			code: null,
			reportSystemVersion: 'v1',
			result: null,
		});
		if (request.path === '/api/v1/reports')
			return ok({ items: Object.keys(doneAt).map(summary), nextCursor: null });
		const id = request.path.split('/')[4];
		const { id: _id, createdAt: _createdAt, result: _result, ...status } = summary(id);
		return ok({ id, ...status });
	};
}

describe('the report waiter', () => {
	beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] }));
	afterEach(() => jest.useRealTimers());

	it('reads every pending report from shared list pages and ends each wait when its report is terminal', async () => {
		const epoch = Date.now();
		const finishing = { rpt_a: 1_000, rpt_b: 2_000, rpt_c: 3_000 };
		const { ctx, requests } = fakeContext(reportsFinishingAt(finishing, epoch));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const waits = Object.keys(finishing).map(
			async (id, itemIndex) => await waiter.wait(id, itemIndex, 60),
		);
		await jest.advanceTimersByTimeAsync(10_000);
		const outcomes = await Promise.all(waits);
		expect(
			outcomes.map((outcome) => [outcome.status.id, outcome.status.status, outcome.timedOut]),
		).toEqual([
			['rpt_a', 'completed', false],
			['rpt_b', 'completed', false],
			['rpt_c', 'completed', false],
		]);
		// A page shows every report: the summary comes with the status, and no report is read alone.
		expect(outcomes.every((outcome) => outcome.summary?.reportSystemVersion === 'v1')).toBe(true);
		expect(requests.every((request) => request.path === '/api/v1/reports')).toBe(true);
		await waiter.close(new Error('done'));
	});

	it("reads the newest pages once, then only the window of the seen reports' creation times", async () => {
		const epoch = Date.now();
		const { ctx, requests } = fakeContext(
			reportsFinishingAt({ rpt_a: 3_000, rpt_b: 3_000 }, epoch),
		);
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const waits = [waiter.wait('rpt_a', 0, 60), waiter.wait('rpt_b', 1, 60)];
		await jest.advanceTimersByTimeAsync(10_000);
		await Promise.all(waits);
		const pages = requests.filter((request) => request.path === '/api/v1/reports');
		expect(pages.length).toBeGreaterThan(1);
		expect(pages[0].qs?.createdAfter).toBeUndefined();
		for (const page of pages.slice(1)) {
			expect(page.qs).toMatchObject({
				createdAfter: new Date(epoch - 1).toISOString(),
				createdBefore: new Date(epoch + 1).toISOString(),
			});
		}
		await waiter.close(new Error('done'));
	});

	it("a round reads the pending reports' own share of the newest pages and one page more, then reads a report they miss alone", async () => {
		const created = new Date(Date.now()).toISOString();
		// 300 reports of others after the run's listed one: the list is longer than a round may read.
		const listed = ['rpt_listed', ...Array.from({ length: 300 }, (_, i) => `rpt_other_${i}`)];
		const { ctx, requests } = fakeContext((request) => {
			if (request.path !== '/api/v1/reports')
				return ok({ id: 'rpt_gone', status: 'failed', attemptId: 'att_gone', code: 'GONE' });
			const from = Number(request.qs?.cursor ?? 0);
			const items = listed
				.slice(from, from + 100)
				.map((id) => ({ id, createdAt: created, status: 'completed', attemptId: `att_${id}` }));
			return ok({ items, nextCursor: from + 100 < listed.length ? String(from + 100) : null });
		});
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const waits = [waiter.wait('rpt_listed', 0, 60), waiter.wait('rpt_gone', 1, 60)];
		await jest.advanceTimersByTimeAsync(1_000);
		await Promise.all(waits);
		// Two pending reports fit in one page: that page and one more, never the whole list, then the missing one alone.
		expect(requests.map((request) => request.path)).toEqual([
			'/api/v1/reports',
			'/api/v1/reports',
			'/api/v1/reports/rpt_gone/status',
		]);
		await waiter.close(new Error('done'));
	});

	it('ends a wait past its limit as timed out, with the last status read', async () => {
		const epoch = Date.now();
		const { ctx } = fakeContext(reportsFinishingAt({ rpt_slow: 10 * 60_000 }, epoch));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const wait = waiter.wait('rpt_slow', 0, 5);
		await jest.advanceTimersByTimeAsync(6_000);
		const outcome = await wait;
		expect(outcome.timedOut).toBe(true);
		expect(outcome.status).toMatchObject({ id: 'rpt_slow', status: 'processing' });
		await waiter.close(new Error('done'));
	});

	it('reads a report the pages do not show on its own, and a closed waiter rejects its pending waits', async () => {
		const epoch = Date.now();
		const answer = reportsFinishingAt({ rpt_listed: 60_000 }, epoch);
		const { ctx, requests } = fakeContext((request) =>
			request.path === '/api/v1/reports'
				? answer(request)
				: ok({ id: 'rpt_hidden', status: 'failed', attemptId: 'att_h', code: 'UNREADABLE' }),
		);
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const hidden = waiter.wait('rpt_hidden', 0, 60);
		const listed = waiter.wait('rpt_listed', 1, 60).then(
			() => 'resolved',
			(error: Error) => error.message,
		);
		await jest.advanceTimersByTimeAsync(2_000);
		expect(await hidden).toMatchObject({
			status: { id: 'rpt_hidden', status: 'failed', code: 'UNREADABLE' },
			timedOut: false,
		});
		expect(requests.some((request) => request.path === '/api/v1/reports/rpt_hidden/status')).toBe(
			true,
		);
		await waiter.close(new Error('the node stopped'));
		expect(await listed).toBe('the node stopped');
	});
	it('two items waiting for one report both end with its outcome, from the one entry the rounds read', async () => {
		const epoch = Date.now();
		const { ctx, requests } = fakeContext(reportsFinishingAt({ rpt_a: 1_000 }, epoch));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const waits = [waiter.wait('rpt_a', 0, 60), waiter.wait('rpt_a', 1, 60)];
		await jest.advanceTimersByTimeAsync(5_000);
		const outcomes = await Promise.all(waits);
		expect(outcomes.map((outcome) => [outcome.status.status, outcome.timedOut])).toEqual([
			['completed', false],
			['completed', false],
		]);
		// The second item added no reads of its own: each round read one page, for both.
		expect(requests.every((request) => request.path === '/api/v1/reports')).toBe(true);
		await waiter.close(new Error('done'));
	});

	it("a lane waiting for a place (the limit learned from a refusal) holds a step back until one of the run's analyses finishes", async () => {
		const epoch = Date.now();
		const finishing: Record<string, number> = { rpt_1: 1_000, rpt_2: 3_000, rpt_3: 60_000 };
		const { ctx } = fakeContext(reportsFinishingAt(finishing, epoch));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const admitted: string[] = [];
		let refusals = 0;
		// The workspace runs two analyses at once: a third start is refused while two of them run.
		const start = async (id: string) =>
			await waitOutCapacity(
				ctx,
				0,
				async () => {
					if (admitted.filter((a) => Date.now() - epoch < finishing[a]).length >= 2) {
						refusals++;
						throw { error: { code: 'UNPROCESSABLE_CONTENT', reason: 'ACTIVE_ANALYSIS_LIMIT' } };
					}
					admitted.push(id);
					return { reportId: id };
				},
				waiter,
			);
		const waits: Array<Promise<unknown>> = [];
		for (const [index, id] of ['rpt_1', 'rpt_2'].entries()) {
			await start(id);
			waits.push(waiter.wait(id, index, 60).catch(() => undefined));
		}
		// No lane waits for a place: nothing is held back.
		expect(waiter.placeOpening(0)).toBeUndefined();
		const third = start('rpt_3');
		await jest.advanceTimersByTimeAsync(0);
		expect(refusals).toBe(1);
		// One lane waits, one step is already held: the next step is not held back either.
		expect(waiter.placeOpening(1)).toBeUndefined();
		let opened = false;
		void waiter.placeOpening(0)?.then(() => (opened = true));
		await jest.advanceTimersByTimeAsync(800);
		expect([opened, admitted]).toEqual([false, ['rpt_1', 'rpt_2']]);
		await jest.advanceTimersByTimeAsync(1_000);
		expect(opened).toBe(true);
		await expect(third).resolves.toMatchObject({ reportId: 'rpt_3' });
		// Once refused, the lane waited for the place instead of being refused again.
		expect(refusals).toBe(1);
		await waiter.close(new Error('done'));
		await Promise.all(waits);
	});
	it("a start refused while none of the run's analyses is in flight backs off with growing pauses, as any capacity refusal", async () => {
		const { ctx } = fakeContext(reportsFinishingAt({}, Date.now()));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const sent: number[] = [];
		const started = waitOutCapacity(
			ctx,
			0,
			async () => {
				sent.push(Date.now());
				if (sent.length < 3)
					throw { error: { code: 'UNPROCESSABLE_CONTENT', reason: 'ACTIVE_ANALYSIS_LIMIT' } };
				return { reportId: 'rpt_1' };
			},
			waiter,
		);
		await jest.advanceTimersByTimeAsync(5_000);
		await expect(started).resolves.toMatchObject({ reportId: 'rpt_1', capacityWaitSeconds: 1.3 });
		expect(sent.map((at) => at - sent[0])).toEqual([0, 500, 1_250]);
		await waiter.close(new Error('done'));
	});
	it('a start held for a place gives up with the refusal once the capacity wait has passed, the place wait included', async () => {
		const { ctx } = fakeContext(reportsFinishingAt({ rpt_1: 3_600_000 }, Date.now()));
		const waiter = new ReportWaiter(ctx, new ReportPages(ctx));
		const running = waiter.wait('rpt_1', 0, 3_600).catch(() => undefined);
		const sent: number[] = [];
		const outcome = waitOutCapacity(
			ctx,
			1,
			async () => {
				sent.push(Date.now());
				throw { error: { code: 'UNPROCESSABLE_CONTENT', reason: 'ACTIVE_ANALYSIS_LIMIT' } };
			},
			waiter,
		).then(
			() => 'admitted',
			(error: { error: IDataObject }) => error.error.reason,
		);
		await jest.advanceTimersByTimeAsync((CAPACITY_WAIT_SECONDS + 20) * 1000);
		expect(await outcome).toBe('ACTIVE_ANALYSIS_LIMIT');
		// Refused once, then held for a place (no pauses, no resends) until the wait's one deadline.
		expect(sent.map((at) => at - sent[0])).toEqual([0, CAPACITY_WAIT_SECONDS * 1000]);
		await waiter.close(new Error('done'));
		await running;
	});
});
