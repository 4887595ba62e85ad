/**
 * The batch steps on their own (engine/batch.ts), with the fake transport of test/helpers/fakes.ts: what a batch
 * request sends, how a batch is awaited and what a recruiter is told, which refused items go again, and how the
 * Spending Limit counts a chunk.
 */
import { z } from 'zod';

import {
	awaitChargedBatch,
	batchItemFor,
	batchTimeout,
	batchTimeoutOption,
	createBatch,
	FINAL_ITEM_CODES,
	isReplayedBatch,
	itemKeyFor,
	MAX_REPLAYED_BATCHES,
	quoteBatchItems,
	readBackReusedBatch,
	readChunk,
	refusalHint,
	refusedByEarlierRun,
	reserveChunk,
	waitForBatch,
	type Batch,
	type BatchItem,
	type QuotedEntry,
} from '../../../nodes/RecruitingAnalysis/engine/batch';
import { BatchTiming } from '../../../nodes/RecruitingAnalysis/engine/batchTiming';
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ChunkState } from '../../../nodes/RecruitingAnalysis/engine/run';
import { REASON_HINTS } from '../../../nodes/RecruitingAnalysis/transport/errors';
import { ledgerOf } from '../../../nodes/RecruitingAnalysis/writes/spending';
import { apiError, fakeContext, ok } from '../../helpers/fakes';
import { runOf } from './runOf';

const COMPLETED_NOTICE =
	'A batch status "completed" means every item reached a terminal state, not that every item succeeded: check each item\'s "state" (in a simplified item: "analysisState" beside the report\'s "status") and "errorCode".';

const item = (over: Partial<BatchItem> = {}): BatchItem => ({
	itemKey: 'item-0',
	state: 'failed',
	resourceId: 'rpt_1',
	attemptId: null,
	errorCode: 'INSUFFICIENT_ALLOWANCE',
	...over,
});
const chunkOf = (itemIndexes: number[], ctx = {} as IExecuteFunctions): ChunkState => ({
	run: runOf(ctx),
	itemIndexes,
	outcomes: itemIndexes.map(() => ({})) as ChunkState['outcomes'],
});

describe('batch items and options', () => {
	it('an input item is the batch item keyed by its index', () => {
		expect(itemKeyFor(3)).toBe('item-3');
		const batch = { id: 'b', status: 'completed', items: [item({ itemKey: 'item-3' })] } as Batch;
		expect(batchItemFor(batch, 3)?.itemKey).toBe('item-3');
		expect(batchItemFor(batch, 0)).toBeUndefined();
		expect(batchItemFor({ id: 'b', status: 'completed' } as Batch, 0)).toBeUndefined();
	});

	it('Batch Timeout is the number set, else 600 seconds', () => {
		expect(batchTimeout({ batchTimeout: 30 })).toBe(30);
		expect(batchTimeout({ batchTimeout: 0 })).toBe(600);
		expect(batchTimeout({ batchTimeout: '30' })).toBe(600);
		expect(batchTimeout({})).toBe(600);
	});

	it('reading a chunk keeps each item with its position; an item that fails its read gets the error as its outcome', async () => {
		const chunk = chunkOf([4, 7, 9]);
		const entries = await readChunk(chunk, (itemIndex) => {
			if (itemIndex === 7) throw new Error('item 7 is bad');
			return { name: `i${itemIndex}` };
		});
		expect(entries).toEqual([
			{ name: 'i4', position: 0, itemIndex: 4 },
			{ name: 'i9', position: 2, itemIndex: 9 },
		]);
		expect(chunk.outcomes[1]).toEqual(new Error('item 7 is bad'));
	});
});

describe('what a refused batch item says to do', () => {
	it('a code a re-run cannot fix says the item must change first, after the API guidance', () => {
		expect(FINAL_ITEM_CODES).toContain('INVALID_UPLOAD');
		expect(refusalHint('INVALID_UPLOAD')).toEqual({
			hint: `${REASON_HINTS.INVALID_UPLOAD} Running again does not change this item: it must change first.`,
		});
		expect(refusalHint('NOT_FOUND').hint).toMatch(
			/Running again does not change this item: it must change first\.$/,
		);
	});

	it('any other code says a re-run submits it again, uncharged; no code says nothing', () => {
		expect(refusalHint('SOMETHING_NEW')).toEqual({
			hint: 'Once the cause is fixed, run again: the node submits this item again (a refused item is not charged).',
		});
		expect(refusalHint(null)).toEqual({});
		expect(refusalHint('')).toEqual({});
	});

	it('an item an earlier run refused goes again only when the cause is one a re-run can fix', () => {
		expect(refusedByEarlierRun(true, item())).toBe(true);
		expect(refusedByEarlierRun(false, item())).toBe(false);
		expect(refusedByEarlierRun(true, item({ state: 'succeeded' }))).toBe(false);
		expect(refusedByEarlierRun(true, item({ errorCode: null }))).toBe(false);
		expect(refusedByEarlierRun(true, item({ errorCode: 'INVALID_UPLOAD' }))).toBe(false);
		expect(refusedByEarlierRun(true, undefined)).toBe(false);
	});
});

describe('creating and awaiting a batch', () => {
	it('posts to the kind path with its key, and keeps the API time of the answer', async () => {
		const { ctx, requests } = fakeContext(() => ({
			statusCode: 202,
			body: { data: { batchId: 'bat_1', statusUrl: '/api/v1/interview-batches/bat_1' } },
			headers: { date: 'Sat, 28 Nov 2026 10:00:00 GMT' },
		}));
		expect(await createBatch(ctx, 'interviews', { items: [] }, 'key-1', 0)).toEqual({
			batchId: 'bat_1',
			statusUrl: '/api/v1/interview-batches/bat_1',
			apiDateMs: Date.parse('2026-11-28T10:00:00Z'),
		});
		expect(requests[0]).toMatchObject({
			method: 'POST',
			path: '/api/v1/interview-batches',
			body: { items: [] },
		});
		expect(requests[0].headers['Idempotency-Key']).toBe('key-1');
	});

	it('another batch of the kind still active is waited out, then the same request is sent again', async () => {
		let active = 1;
		const { ctx, requests } = fakeContext(() =>
			active-- > 0
				? apiError(409, 'CONFLICT', 'BATCH_ALREADY_ACTIVE')
				: { statusCode: 202, body: { data: { batchId: 'bat_2' } } },
		);
		expect(await createBatch(ctx, 'uploads', { items: [1] }, 'key-2', 0)).toMatchObject({
			batchId: 'bat_2',
		});
		expect(requests.map((r) => r.path)).toEqual([
			'/api/v1/upload-batches',
			'/api/v1/upload-batches',
		]);
	});

	it('reads the batch until it is completed, then says "completed" does not mean every item succeeded', async () => {
		let reads = 0;
		const { ctx, requests, hints } = fakeContext(() =>
			ok({ id: 'bat_1', status: ++reads < 2 ? 'processing' : 'completed', items: [] }),
		);
		const batch = await waitForBatch(ctx, runOf(ctx), 'analyses', 'bat_1', 0, 30);
		expect(batch.status).toBe('completed');
		expect(requests.map((r) => r.path)).toEqual([
			'/api/v1/analysis-batches/bat_1',
			'/api/v1/analysis-batches/bat_1',
		]);
		expect(hints).toEqual([COMPLETED_NOTICE]);
	});

	it('a batch still processing at the timeout is an error saying it keeps running and how to read it later', async () => {
		const { ctx, hints } = fakeContext(() => ok({ id: 'bat_9', status: 'processing', items: [] }));
		const error = (await waitForBatch(ctx, runOf(ctx), 'uploads', 'bat_9', 0, 1).catch(
			(e: unknown) => e,
		)) as {
			message: string;
			description: string;
		};
		expect(error.message).toBe('Batch bat_9 did not complete within 1 seconds');
		expect(error.description).toBe(
			'The batch is still processing and keeps running on the service. Read it later with the Get Batch operation of this resource; only one batch of a kind can be active at a time.',
		);
		expect(hints).toEqual([]);
	});

	it("a batch this execution created before is its own replay; another's is told by the API's times alone", async () => {
		const created = (createdAt: string) =>
			fakeContext(() => ok({ id: 'bat_1', status: 'completed', createdAt, items: [] }));
		const apiDateMs = Date.parse('2026-11-28T10:00:00Z');
		const reservedNone = (sentBefore: boolean) => ({
			entries: [],
			sent: () => sentBefore,
			settle: () => undefined,
			settleAll: () => undefined,
		});
		const earlier = created('2026-11-28T09:00:00Z');
		expect(
			await awaitChargedBatch(
				earlier.ctx,
				runOf(earlier.ctx),
				'uploads',
				{ batchId: 'bat_1', apiDateMs },
				reservedNone(false),
				0,
				5,
			),
		).toMatchObject({ earlierRun: true, replayed: true });
		const fresh = created('2026-11-28T10:00:00Z');
		expect(
			await awaitChargedBatch(
				fresh.ctx,
				runOf(fresh.ctx),
				'uploads',
				{ batchId: 'bat_1', apiDateMs },
				reservedNone(false),
				0,
				5,
			),
		).toMatchObject({ earlierRun: false, replayed: false });
		const own = created('2026-11-28T09:00:00Z');
		expect(
			await awaitChargedBatch(
				own.ctx,
				runOf(own.ctx),
				'uploads',
				{ batchId: 'bat_1', apiDateMs },
				reservedNone(true),
				0,
				5,
			),
		).toMatchObject({ earlierRun: false, replayed: true });
	});
});

interface Entry extends QuotedEntry {
	name: string;
}
const entry = (itemIndex: number, over: Partial<Entry> = {}): Entry => ({
	position: itemIndex,
	itemIndex,
	name: `e${itemIndex}`,
	...over,
});

describe('quoting the items of a chunk', () => {
	const schema = z.object({
		items: z.array(z.object({ itemKey: z.string(), input: z.object({}).passthrough() })),
	});

	it('quotes only the items without a fingerprint, in one request, and names those not quoted', async () => {
		const { ctx, requests } = fakeContext(() =>
			ok({
				items: [
					{ itemKey: 'item-1', quote: { fingerprint: 'f1', creditUnits: 100, creditScale: 100 } },
					{ itemKey: 'item-2', quote: null, errorCode: 'NOT_ELIGIBLE' },
					{ itemKey: 'item-3', quote: { creditUnits: 1 } },
				],
			}),
		);
		const entries = [entry(0, { fingerprint: 'given' }), entry(1), entry(2), entry(3)];
		const notQuoted = await quoteBatchItems(
			ctx,
			'/api/v1/analysis-quotes/batch',
			schema,
			entries,
			(e) => ({
				name: e.name,
			}),
		);
		expect(requests).toHaveLength(1);
		expect(requests[0].body).toEqual({
			items: [
				{ itemKey: 'item-1', input: { name: 'e1' } },
				{ itemKey: 'item-2', input: { name: 'e2' } },
				{ itemKey: 'item-3', input: { name: 'e3' } },
			],
		});
		expect(entries[1]).toMatchObject({ fingerprint: 'f1', quote: { fingerprint: 'f1' } });
		expect(notQuoted).toEqual([
			{ entry: entries[2], errorCode: 'NOT_ELIGIBLE' },
			{ entry: entries[3], errorCode: 'NOT_QUOTED' },
		]);
		expect(entries[0].fingerprint).toBe('given');
	});

	it('sends nothing when every item has its fingerprint', async () => {
		const { ctx, requests } = fakeContext(() => ok({ items: [] }));
		expect(
			await quoteBatchItems(ctx, '/q', schema, [entry(0, { fingerprint: 'f' })], () => ({})),
		).toEqual([]);
		expect(requests).toHaveLength(0);
	});

	it('an answer without items leaves every item not quoted', async () => {
		const { ctx } = fakeContext(() => ok({}));
		expect(await quoteBatchItems(ctx, '/q', schema, [entry(0)], () => ({}))).toEqual([
			{ entry: expect.objectContaining({ itemIndex: 0 }), errorCode: 'NOT_QUOTED' },
		]);
	});
});

describe('a chunk within the Spending Limit', () => {
	const quote = (credits: number) => ({
		fingerprint: 'f',
		creditUnits: credits * 100,
		creditScale: 100,
	});

	it('an item that would pass the limit gets its refusal as outcome and is not sent; the others are reserved', () => {
		const { ctx } = fakeContext(() => ok({}), { spendingLimit: 3 });
		const chunk = chunkOf([0, 1, 2], ctx);
		const reserved = reserveChunk(
			ctx,
			chunk,
			[entry(0, { quote: quote(2) }), entry(1, { quote: quote(2) }), entry(2, { quote: quote(1) })],
			'analysis',
		);
		expect(reserved.entries.map((e) => e.itemIndex)).toEqual([0, 2]);
		expect((chunk.outcomes[1] as Error).message).toMatch(/^Spending Limit of 3 credits reached/);
		expect(ledgerOf(ctx, runOf(ctx)).inFlight).toBe(3);
		reserved.settle(reserved.entries[0], true);
		reserved.settle(reserved.entries[1], false);
		reserved.settle(entry(1, { quote: quote(2) }), true);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
	});

	it('once the batch is created its items count as spent, and an item the batch refused is given back', () => {
		const { ctx } = fakeContext(() => ok({}), { spendingLimit: 10 });
		const reserved = reserveChunk(
			ctx,
			chunkOf([0, 1], ctx),
			[entry(0, { quote: quote(2) }), entry(1, { quote: quote(3) })],
			'analysis',
		);
		expect(reserved.sent('bat_1')).toBe(false);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 5, inFlight: 0 });
		reserved.settle(reserved.entries[1], false);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(2);
		expect(reserved.sent('bat_1')).toBe(true);
	});

	it('a batch request that failed as a whole settles every item alike', () => {
		const charged = fakeContext(() => ok({}), { spendingLimit: 10 });
		reserveChunk(
			charged.ctx,
			chunkOf([0, 1], charged.ctx),
			[entry(0, { quote: quote(2) }), entry(1, { quote: quote(3) })],
			'analysis',
		).settleAll(true);
		expect(ledgerOf(charged.ctx, runOf(charged.ctx))).toMatchObject({ spent: 5, inFlight: 0 });
		const refused = fakeContext(() => ok({}), { spendingLimit: 10 });
		reserveChunk(
			refused.ctx,
			chunkOf([0], refused.ctx),
			[entry(0, { quote: quote(2) })],
			'analysis',
		).settleAll(false);
		expect(ledgerOf(refused.ctx, runOf(refused.ctx))).toMatchObject({ spent: 0, inFlight: 0 });
	});
});

describe('a batch key reused by an earlier run', () => {
	const reused = Object.assign(new Error('reused'), {
		context: { apiError: { status: 409, code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_REUSED' } },
	});
	const nothing = () => Object.assign(new Error('No interview'), { nothingToRecover: true });

	function reservedOf(entries: Entry[]) {
		const settled: boolean[] = [];
		return {
			settled,
			reserved: {
				entries,
				sent: () => false,
				settle: () => undefined,
				settleAll: (charged: boolean) => settled.push(charged),
			},
		};
	}

	it('reads each item back: recovered ones are done, refused ones go again in a batch named after the reused key', async () => {
		const chunk = chunkOf([0, 1, 2]);
		const { reserved, settled } = reservedOf([
			entry(0, { fingerprint: 'a' }),
			entry(1, { fingerprint: 'b' }),
			entry(2, { fingerprint: 'c' }),
		]);
		const failure = new Error('read failed');
		const out = await readBackReusedBatch(
			chunk,
			reserved,
			reused,
			'x'.repeat(10) + '0123456789abcdef',
			0,
			async (e) => {
				if (e.itemIndex === 1) throw nothing();
				if (e.itemIndex === 2) throw failure;
			},
		);
		expect(settled).toEqual([false]);
		expect(out.refused.map((r) => r.entry.itemIndex)).toEqual([1]);
		expect(out.again).toEqual([{ ...entry(1), fingerprint: undefined }]);
		expect(out.afterBatchId).toBe('reused-0123456789abcdef');
		expect(chunk.outcomes[2]).toBe(failure);
		expect(chunk.outcomes[0]).toEqual({});
	});

	it(`after ${MAX_REPLAYED_BATCHES} replays, or with nothing refused, nothing goes again`, async () => {
		const tooMany = await readBackReusedBatch(
			chunkOf([0]),
			reservedOf([entry(0)]).reserved,
			reused,
			'k',
			MAX_REPLAYED_BATCHES,
			async () => {
				throw nothing();
			},
		);
		expect(tooMany.refused).toHaveLength(1);
		expect(tooMany.again).toEqual([]);
		const fewer = await readBackReusedBatch(
			chunkOf([0]),
			reservedOf([entry(0)]).reserved,
			reused,
			'k',
			MAX_REPLAYED_BATCHES - 1,
			async () => {
				throw nothing();
			},
		);
		expect(fewer.again).toHaveLength(1);
		const none = await readBackReusedBatch(
			chunkOf([0]),
			reservedOf([entry(0)]).reserved,
			reused,
			'k',
			0,
			async () => undefined,
		);
		expect(none.again).toEqual([]);
	});

	it('any other failure is thrown: charged unless the API refused the request', async () => {
		const refusal = Object.assign(new Error('422'), { context: { apiError: { status: 422 } } });
		const refused = reservedOf([entry(0)]);
		await expect(
			readBackReusedBatch(chunkOf([0]), refused.reserved, refusal, 'k', 0, async () => undefined),
		).rejects.toBe(refusal);
		expect(refused.settled).toEqual([false]);
		const lost = new Error('socket hang up');
		const maybeCharged = reservedOf([entry(0)]);
		await expect(
			readBackReusedBatch(chunkOf([0]), maybeCharged.reserved, lost, 'k', 0, async () => undefined),
		).rejects.toBe(lost);
		expect(maybeCharged.settled).toEqual([true]);
	});
});

describe('when an analysis batch is read first', () => {
	it('a batch found finished at its first read moves the next first read earlier by a tenth', () => {
		const timing = new BatchTiming(1000);
		timing.observe([1000]);
		expect(timing.firstReadMs()).toBe(900);
		expect(timing.stepMs()).toBe(90);
	});

	it('a batch found later puts the next first read between the read that missed and the one that found it', () => {
		const timing = new BatchTiming(100);
		timing.observe([100, 250, 700]);
		expect(timing.firstReadMs()).toBe(475);
	});

	it('stays between 25 ms and 10 seconds, later reads at least 25 ms apart; no reads change nothing', () => {
		const timing = new BatchTiming(26);
		timing.observe([26]);
		expect(timing.firstReadMs()).toBe(25);
		expect(timing.stepMs()).toBe(25);
		timing.observe([30_000, 50_000]);
		expect(timing.firstReadMs()).toBe(10_000);
		timing.observe([]);
		expect(timing.firstReadMs()).toBe(10_000);
	});

	it('is one timing per node run, started from the first initial delay', () => {
		const { ctx } = fakeContext(() => ok({}));
		const timing = runOf(ctx).batchTiming;
		expect(runOf(ctx).batchTiming).toBe(timing);
		expect(timing.firstReadMs()).toBe(100);
		expect(runOf(fakeContext(() => ok({})).ctx).batchTiming).not.toBe(timing);
		expect(new BatchTiming(500).firstReadMs()).toBe(500);
	});

	it('an analysis batch is first read after the timing, and the timing learns from it', async () => {
		const { ctx, requests } = fakeContext(() => ok({ id: 'b', status: 'completed', items: [] }));
		const started = Date.now();
		await waitForBatch(ctx, runOf(ctx), 'analyses', 'b', 0, 5);
		expect(requests[0].at - started).toBeGreaterThanOrEqual(95);
		expect(runOf(ctx).batchTiming.firstReadMs()).toBeLessThan(200);
		const upload = fakeContext(() => ok({ id: 'u', status: 'completed', items: [] }));
		const uploadStarted = Date.now();
		await waitForBatch(upload.ctx, runOf(upload.ctx), 'uploads', 'u', 0, 5);
		expect(upload.requests[0].at - uploadStarted).toBeLessThan(90);
	});
});

describe('batch details a user sees or relies on', () => {
	it('the timing learns only from a batch that completed: found at its first read, the next first read is 10 % earlier', async () => {
		const done = fakeContext(() => ok({ id: 'b', status: 'completed', items: [] }));
		await waitForBatch(done.ctx, runOf(done.ctx), 'analyses', 'b', 0, 5);
		expect(runOf(done.ctx).batchTiming.firstReadMs()).toBe(90);
		const late = fakeContext(() => ok({ id: 'b', status: 'processing', items: [] }));
		await expect(waitForBatch(late.ctx, runOf(late.ctx), 'analyses', 'b', 0, 1)).rejects.toThrow(
			'Batch b did not complete within 1 seconds',
		);
		expect(runOf(late.ctx).batchTiming.firstReadMs()).toBe(100);
	});

	it('a batch found at its second read puts the next first read between its two reads, timed from its creation', async () => {
		let reads = 0;
		const { ctx } = fakeContext(() =>
			ok({ id: 'b', status: ++reads < 2 ? 'processing' : 'completed', items: [] }),
		);
		await waitForBatch(ctx, runOf(ctx), 'analyses', 'b', 0, 5);
		const next = runOf(ctx).batchTiming.firstReadMs();
		expect(next).toBeGreaterThanOrEqual(100);
		expect(next).toBeLessThan(1000);
	});

	it('Batch Timeout is offered from 1 to 3600 seconds, 600 by default, saying why each chunk waits', () => {
		expect(batchTimeoutOption).toEqual({
			displayName: 'Batch Timeout (Seconds)',
			name: 'batchTimeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3600 },
			default: 600,
			description:
				'How long to wait at most for each batch of up to 20 items to complete. Only one batch of a kind can be active per workspace, so each chunk waits for the previous one.',
		});
	});

	it('a batch created exactly the margin before the answer is not yet proven an earlier run', () => {
		const apiDateMs = Date.parse('2026-11-28T10:00:00Z');
		const at = (iso: string) =>
			({ id: 'b', status: 'completed', items: [], createdAt: iso }) as Batch;
		expect(isReplayedBatch(at('2026-11-28T09:59:59.000Z'), apiDateMs)).toBe(false);
		expect(isReplayedBatch(at('2026-11-28T09:59:58.999Z'), apiDateMs)).toBe(true);
		expect(isReplayedBatch(at('2026-11-28T09:00:00.000Z'), undefined)).toBe(false);
	});

	it.each([
		'INVALID_UPLOAD',
		'DOCUMENT_UNREADABLE',
		'HUMAN_REVIEW_REQUIRED',
		'ANALYSIS_NOT_USABLE',
		'INTERVIEW_NOT_ELIGIBLE',
		'JD_REVISION_CHANGED',
		'VALIDATION_FAILED',
		'PREPARATION_EXPIRED',
		'NOT_FOUND',
	])(
		"%s: running again does not help, and an earlier run's refusal of it is not sent again",
		(code) => {
			expect(refusalHint(code).hint).toMatch(
				/Running again does not change this item: it must change first\.$/,
			);
			expect(refusedByEarlierRun(true, item({ errorCode: code }))).toBe(false);
		},
	);

	it('the items of a batch quote are checked before the request is sent', async () => {
		const { ctx, requests } = fakeContext(() => ok({ items: [] }));
		const strict = z.object({
			items: z.array(
				z.object({ itemKey: z.string(), input: z.object({ name: z.string().min(5) }) }),
			),
		});
		await expect(
			quoteBatchItems(ctx, '/q', strict, [entry(0)], (e) => ({ name: e.name })),
		).rejects.toThrow();
		expect(requests).toHaveLength(0);
	});
});
