/**
 * Capacity as a real service has it: limits per workspace (control API and CLI flags), the strict
 * profile (small limits, the admission deadline in effect, quotes that age), and batch items over capacity that
 * wait to the admission deadline and then fail with their item errorCode.
 */
import { PROFILES } from '../../sandbox/src';
import { waitFor, type TestSandbox } from '../helpers/sandbox';
import {
	completedReport,
	created,
	expectError,
	interviewQuote,
	key,
	newWs,
	quote,
	uploaded,
	useSandboxWs,
	type Ws,
} from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started), { sandbox: { profile: 'strict' } });

const MINUTE = 60_000;

async function batchWhen(
	w: Ws,
	statusUrl: string,
	done: (b: { status: string; items: { state: string }[] }) => boolean,
) {
	return await waitFor(async () => {
		const b = (await w.call('GET', statusUrl)).body.data;
		return done(b) ? b : undefined;
	}, 8000);
}

describe('the strict profile', () => {
	test('capacity: a workspace of the strict profile gets small limits (10 active analyses, 30 pending preparations), a one-minute admission deadline, ten-minute quotes and 24-hour receipts', async () => {
		const settings = await sb.control.patchWorkspace(ws.workspaceId, {});
		expect(settings).toMatchObject(PROFILES.strict);
		expect(PROFILES.strict).toEqual({
			activeAnalysisLimit: 10,
			pendingUploadLimit: 30,
			batchCapacity: 5,
			admissionDeadlineMs: MINUTE,
			quoteMaxAgeMs: 10 * MINUTE,
			receiptLifetimeMs: 24 * 60 * MINUTE,
		});
		expect(await (await fetch(`${sb.baseUrl}/_sandbox/limits`)).json()).toEqual({
			profile: 'strict',
			limits: PROFILES.strict,
		});
	});

	test('limits per workspace are settable by the control API, at creation and later', async () => {
		const w = await newWs(sb, { activeAnalysisLimit: 3, pendingUploadLimit: 4 });
		expect(await sb.control.patchWorkspace(w.workspaceId, {})).toMatchObject({
			activeAnalysisLimit: 3,
			pendingUploadLimit: 4,
			batchCapacity: 5,
		});
		expect(await sb.control.patchWorkspace(w.workspaceId, { quoteMaxAgeMs: 0 })).toMatchObject({
			quoteMaxAgeMs: 0,
		});
	});

	test('QUOTE_STALE when an analysis quote outlives the set age; a fresh quote starts', async () => {
		const reportId = await uploaded(ws);
		const old = await quote(ws, reportId);
		await sb.control.advanceClock(10 * MINUTE + 1000);
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', '/api/v1/analyses', {
				idempotencyKey: key(),
				body: { reportId, quoteFingerprint: old },
			}),
			422,
			'QUOTE_STALE',
		);
		expect(created(await ws.counters())).toEqual(before);
		const fresh = await quote(ws, reportId);
		expect(
			(
				await ws.call('POST', '/api/v1/analyses', {
					idempotencyKey: key(),
					body: { reportId, quoteFingerprint: fresh },
				})
			).status,
		).toBe(202);
	});

	test('QUOTE_STALE when an analysis quote outlives a price change', async () => {
		const w = await newWs(sb);
		const reportId = await uploaded(w);
		const fp = await quote(w, reportId);
		await sb.control.patchWorkspace(w.workspaceId, { priceVersion: 2 });
		expectError(
			await w.call('POST', '/api/v1/analyses', {
				idempotencyKey: key(),
				body: { reportId, quoteFingerprint: fp },
			}),
			422,
			'QUOTE_STALE',
		);
	});

	test('QUOTE_STALE when an interview quote outlives the set age', async () => {
		const w = await newWs(sb);
		const reportId = await completedReport(w);
		const fp = await interviewQuote(w, reportId);
		await sb.control.advanceClock(10 * MINUTE + 1000);
		const body = {
			reportId,
			candidateEmail: 'ada@example.com',
			sendEmail: true,
			quoteFingerprint: fp,
		};
		expectError(
			await w.call('POST', '/api/v1/interviews', { idempotencyKey: key(), body }),
			422,
			'QUOTE_STALE',
		);
		const fresh = await interviewQuote(w, reportId);
		expect(
			(
				await w.call('POST', '/api/v1/interviews', {
					idempotencyKey: key(),
					body: { ...body, quoteFingerprint: fresh },
				})
			).status,
		).toBe(202);
	});

	test('batch items over capacity wait to the admission deadline and then fail with their item errorCode (ACTIVE_ANALYSIS_LIMIT)', async () => {
		const w = await newWs(sb);
		const reports = [await uploaded(w), await uploaded(w)];
		const items = [];
		for (const [i, reportId] of reports.entries())
			items.push({
				itemKey: `a${i}`,
				input: { reportId, quoteFingerprint: await quote(w, reportId) },
			});
		await sb.control.patchWorkspace(w.workspaceId, { activeAnalysisLimit: 0 });
		const before = created(await w.counters());
		const res = await w.call('POST', '/api/v1/analysis-batches', {
			idempotencyKey: key(),
			body: { items },
		});
		expect(res.status).toBe(202);
		const waiting = await batchWhen(w, res.body.data.statusUrl, (b) =>
			b.items.every((it) => it.state === 'waiting_capacity'),
		);
		expect(waiting.status).toBe('processing');
		await sb.control.advanceClock(MINUTE + 1000);
		const done = await batchWhen(w, res.body.data.statusUrl, (b) => b.status === 'completed');
		expect(done.items).toEqual([
			expect.objectContaining({
				itemKey: 'a0',
				state: 'failed',
				errorCode: 'ACTIVE_ANALYSIS_LIMIT',
				resourceId: null,
				attemptId: null,
			}),
			expect.objectContaining({
				itemKey: 'a1',
				state: 'failed',
				errorCode: 'ACTIVE_ANALYSIS_LIMIT',
				resourceId: null,
				attemptId: null,
			}),
		]);
		const after = created(await w.counters());
		expect(after.attemptsCreated).toBe(before.attemptsCreated);
	});

	test('upload batch items over the pending-preparation limit fail at the deadline with PENDING_UPLOAD_LIMIT', async () => {
		const w = await newWs(sb, { pendingUploadLimit: 1 });
		const input = (i: number) => ({
			itemKey: `u${i}`,
			input: { fileName: `cv-${i}.pdf`, fileSize: 100, mimeType: 'application/pdf' },
		});
		const res = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: key(),
			body: { jobDescription: { kind: 'text', text: 'x' }, items: [input(0), input(1)] },
		});
		await batchWhen(w, res.body.data.statusUrl, (b) => b.items[1].state === 'waiting_capacity');
		await sb.control.advanceClock(MINUTE + 1000);
		const done = await batchWhen(w, res.body.data.statusUrl, (b) => b.status === 'completed');
		expect(
			done.items.map((it: { state: string; errorCode: string | null }) => [it.state, it.errorCode]),
		).toEqual([
			['succeeded', null],
			['failed', 'PENDING_UPLOAD_LIMIT'],
		]);
	});
});
