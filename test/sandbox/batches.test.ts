/**
 * Batches of every kind and the batch quotes: 1..20 items, 256 KiB, unique itemKey, one active batch per
 * kind, independent items, a foreign id rejects the envelope, status reads need the creating scope,
 * capacity-limited items wait to the admission deadline, and batch.completed.
 */
import { makePdf } from '../fixtures/resumes';
import { uploadFile, waitFor, type TestSandbox } from '../helpers/sandbox';
import {
	completedReport,
	created,
	expectError,
	expectInvalid,
	interviewQuote,
	key,
	newWs,
	PDF_MIME,
	quote,
	uploaded,
	waitStatus,
	useSandboxWs,
	type Ws,
} from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

const pdf = makePdf({ candidate: 'Batch Person' });
const uploadItem = (i: number, extra: Record<string, unknown> = {}) => ({
	itemKey: `item-${i}`,
	input: { fileName: `cv-${i}.pdf`, fileSize: pdf.length, mimeType: PDF_MIME, ...extra },
});

async function finished(w: Ws, statusUrl: string) {
	return waitFor(async () => {
		const r = await w.call('GET', statusUrl);
		return r.body?.data?.status === 'completed' ? r.body.data : undefined;
	}, 8000);
}

async function rejectsBatch(
	w: Ws,
	path: string,
	body: unknown,
	status: number,
	reason?: string,
	field?: string,
	rule?: string,
) {
	const before = created(await w.counters());
	const res = await w.call('POST', path, { idempotencyKey: key(), body });
	if (field) expectInvalid(res, field, rule);
	else expectError(res, status, reason);
	expect(created(await w.counters())).toEqual(before);
	return res;
}

describe('upload batches', () => {
	test('an upload batch creates one preparation per item; items succeed or fail independently; batch.completed', async () => {
		const w = await newWs(sb);
		await prepare1(w, { source: 'ats', id: 'taken' });
		const res = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: key(),
			body: {
				jobDescription: { kind: 'existing', id: w.jobDescriptionId },
				items: [
					uploadItem(1),
					uploadItem(2, { externalReference: { source: 'ats', id: 'taken' } }),
					uploadItem(3, { jobDescription: { kind: 'text', text: 'Inline job' } }),
				],
			},
		});
		expect(res.status).toBe(202);
		expect(res.body.data).toEqual({
			batchId: expect.stringMatching(/^bat_/),
			statusUrl: `/api/v1/upload-batches/${res.body.data.batchId}`,
		});
		const b = await finished(w, res.body.data.statusUrl);
		expect(b).toMatchObject({ id: res.body.data.batchId, kind: 'uploads', status: 'completed' });
		expect(
			b.items.map((i: { itemKey: string; state: string; errorCode: string | null }) => [
				i.itemKey,
				i.state,
				i.errorCode,
			]),
		).toEqual([
			['item-1', 'succeeded', null],
			['item-2', 'failed', 'EXTERNAL_REFERENCE_CONFLICT'],
			['item-3', 'succeeded', null],
		]);
		const first = b.items[0];
		expect(first.resourceId).toMatch(/^rpt_/);
		expect(first.upload).toMatchObject({
			method: 'PUT',
			mimeType: PDF_MIME,
			sizeBytes: pdf.length,
			expiresInSeconds: 600,
		});
		expect((await uploadFile(sb, first.upload.url, pdf, PDF_MIME)).status).toBe(200);
		expect(
			(await w.call('GET', `/api/v1/reports/${first.resourceId}/status`)).body.data,
		).toMatchObject({ status: 'queued', attemptId: null });
		const ev = await w.call('GET', '/api/v1/events?type=batch.completed');
		expect(ev.body.data.items.map((e: { data: unknown }) => e.data)).toEqual([
			{ batchId: b.id, kind: 'uploads', succeededCount: 2, failedCount: 1 },
		]);
	});

	async function prepare1(w: Ws, externalReference: { source: string; id: string }) {
		const r = await w.call('POST', '/api/v1/uploads', {
			idempotencyKey: key(),
			body: {
				fileName: 'x.pdf',
				fileSize: pdf.length,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'text', text: 'x' },
				externalReference,
			},
		});
		expect(r.status).toBe(201);
	}

	test('a batch has 1 to 20 items (empty)', async () => {
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{ jobDescription: { kind: 'text', text: 'x' }, items: [] },
			400,
			'VALIDATION_FAILED',
			'items',
			'min_items',
		);
	});
	test('a batch has 1 to 20 items (21)', async () => {
		const items = Array.from({ length: 21 }, (_, i) => uploadItem(i));
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{ jobDescription: { kind: 'text', text: 'x' }, items },
			400,
			'VALIDATION_FAILED',
			'items',
			'max_items',
		);
	});
	test('a batch request is at most 256 KiB', async () => {
		const items = [uploadItem(1, { jobDescription: { kind: 'text', text: 'x'.repeat(45_000) } })];
		const big = Array.from({ length: 6 }, (_, i) => ({ ...items[0], itemKey: `k${i}` }));
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{ items: big },
			400,
			'VALIDATION_FAILED',
			'body',
			'max_bytes_262144',
		);
	});
	test('itemKey values are unique within the batch', async () => {
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{ jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(1), uploadItem(1)] },
			400,
			'VALIDATION_FAILED',
			'items[1].itemKey',
			'unique',
		);
	});
	test('item inputs follow the UploadInput rules (field path names the item)', async () => {
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{
				jobDescription: { kind: 'text', text: 'x' },
				items: [uploadItem(0), uploadItem(3, { fileName: 'cv.exe' })],
			},
			400,
			'VALIDATION_FAILED',
			'items[1].input.fileName',
			'extension',
		);
	});
	test('without a batch-level job every item needs its jobDescription', async () => {
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{ items: [uploadItem(0)] },
			400,
			'VALIDATION_FAILED',
			'items[0].input.jobDescription',
			'required',
		);
	});
	test('a foreign job id rejects the whole envelope', async () => {
		const other = await newWs(sb);
		await rejectsBatch(
			ws,
			'/api/v1/upload-batches',
			{
				jobDescription: { kind: 'text', text: 'x' },
				items: [
					uploadItem(0),
					uploadItem(1, { jobDescription: { kind: 'existing', id: other.jobDescriptionId } }),
				],
			},
			404,
		);
	});
	test('Idempotency-Key is required for batches', async () => {
		expectInvalid(
			await ws.call('POST', '/api/v1/upload-batches', {
				body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(0)] },
			}),
			'Idempotency-Key',
			'required',
		);
	});
	test('capacity-limited items wait (waiting_capacity), then fail at the admission deadline with their item errorCode (PENDING_UPLOAD_LIMIT)', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, {
			pendingUploadLimit: 1,
			admissionDeadlineMs: 60_000,
		});
		const res = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: key(),
			body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(1), uploadItem(2)] },
		});
		const url = res.body.data.statusUrl;
		const waiting = await waitFor(async () => {
			const b = (await w.call('GET', url)).body.data;
			return b.items[1].state === 'waiting_capacity' ? b : undefined;
		});
		expect(waiting.status).toBe('processing');
		expect(waiting.items[0].state).toBe('succeeded');
		// one active batch per kind per workspace
		expectError(
			await w.call('POST', '/api/v1/upload-batches', {
				idempotencyKey: key(),
				body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(9)] },
			}),
			409,
			'BATCH_ALREADY_ACTIVE',
		);
		await sb.control.advanceClock(61_000);
		const b = await finished(w, url);
		expect(b.items[1]).toMatchObject({
			state: 'failed',
			errorCode: 'PENDING_UPLOAD_LIMIT',
			resourceId: null,
		});
	});
	test('a waiting item is admitted when capacity frees up before the deadline', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { pendingUploadLimit: 1 });
		const res = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: key(),
			body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(1), uploadItem(2)] },
		});
		const b1 = await waitFor(async () => {
			const b = (await w.call('GET', res.body.data.statusUrl)).body.data;
			return b.items[1].state === 'waiting_capacity' ? b : undefined;
		});
		expect((await w.call('DELETE', `/api/v1/uploads/${b1.items[0].resourceId}`)).status).toBe(204);
		const b = await finished(w, res.body.data.statusUrl);
		expect(b.items.map((i: { state: string }) => i.state)).toEqual(['succeeded', 'succeeded']);
	});
});

describe('analysis batches and quotes', () => {
	test('analysis batch quote: per-item quote or errorCode, informational total', async () => {
		const id1 = await uploaded(ws);
		const done = await completedReport(ws);
		const res = await ws.call('POST', '/api/v1/analysis-batch-quotes', {
			body: {
				items: [
					{ itemKey: 'a', input: { reportId: id1 } },
					{ itemKey: 'b', input: { reportId: done } },
				],
			},
		});
		expect(res.status).toBe(200);
		expect(res.body.data.total).toEqual({
			creditUnits: expect.any(Number),
			creditScale: expect.any(Number),
			quotedItems: 1,
			failedItems: 1,
			admissionGuaranteed: false,
		});
		expect(res.body.data.items[0]).toMatchObject({
			itemKey: 'a',
			errorCode: null,
			quote: { reportId: id1, fingerprint: expect.stringMatching(/^[a-f0-9]{64}$/) },
		});
		expect(res.body.data.items[1]).toEqual({
			itemKey: 'b',
			quote: null,
			errorCode: 'ANALYSIS_ALREADY_STARTED',
		});
	});
	test('an analysis batch finishes only after every admitted analysis is terminal', async () => {
		const w = await newWs(sb);
		const a = await uploaded(w, { outcome: 'completed' });
		const b = await uploaded(w, { outcome: 'failed' });
		const c = await uploaded(w);
		const items = [
			{ itemKey: 'a', input: { reportId: a, quoteFingerprint: await quote(w, a) } },
			{ itemKey: 'b', input: { reportId: b, quoteFingerprint: await quote(w, b) } },
			{ itemKey: 'c', input: { reportId: c, quoteFingerprint: 'f'.repeat(64) } },
		];
		const before = await w.counters();
		const res = await w.call('POST', '/api/v1/analysis-batches', {
			idempotencyKey: key(),
			body: { items },
		});
		expect(res.status).toBe(202);
		expect(res.body.data.statusUrl).toBe(`/api/v1/analysis-batches/${res.body.data.batchId}`);
		const batch = await finished(w, res.body.data.statusUrl);
		expect(
			batch.items.map((i: { state: string; errorCode: string | null }) => [i.state, i.errorCode]),
		).toEqual([
			['succeeded', null],
			['succeeded', null],
			['failed', 'QUOTE_STALE'],
		]);
		expect(batch.items[0].attemptId).toMatch(/^att_/);
		expect((await w.call('GET', `/api/v1/reports/${a}/status`)).body.data.status).toBe('completed');
		expect((await w.call('GET', `/api/v1/reports/${b}/status`)).body.data.status).toBe('failed');
		expect((await w.counters()).attemptsCreated - before.attemptsCreated).toBe(2);
	});
	test('a foreign report id rejects the whole analysis envelope', async () => {
		const other = await newWs(sb);
		const foreign = await uploaded(other);
		const mine = await uploaded(ws);
		await rejectsBatch(
			ws,
			'/api/v1/analysis-batches',
			{
				items: [
					{ itemKey: 'a', input: { reportId: mine, quoteFingerprint: await quote(ws, mine) } },
					{ itemKey: 'b', input: { reportId: foreign, quoteFingerprint: 'a'.repeat(64) } },
				],
			},
			404,
		);
		expectError(
			await ws.call('POST', '/api/v1/analysis-batch-quotes', {
				body: { items: [{ itemKey: 'b', input: { reportId: foreign } }] },
			}),
			404,
		);
	});
	test('analysis items beyond the active-analysis limit are admitted as capacity frees, and the batch completes', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { activeAnalysisLimit: 1 });
		const ids = [await uploaded(w), await uploaded(w)];
		const items = await Promise.all(
			ids.map(async (id, i) => ({
				itemKey: `i${i}`,
				input: { reportId: id, quoteFingerprint: await quote(w, id) },
			})),
		);
		const res = await w.call('POST', '/api/v1/analysis-batches', {
			idempotencyKey: key(),
			body: { items },
		});
		const b = await finished(w, res.body.data.statusUrl);
		expect(b.items.map((i: { state: string }) => i.state)).toEqual(['succeeded', 'succeeded']);
		for (const id of ids) expect((await waitStatus(w, id, ['completed'])).status).toBe('completed');
	});
	test('one active batch per kind per workspace: a second analysis batch conflicts, another kind does not', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { activeAnalysisLimit: 0 });
		const id = await uploaded(w);
		const fp = await quote(w, id);
		const first = await w.call('POST', '/api/v1/analysis-batches', {
			idempotencyKey: key(),
			body: { items: [{ itemKey: 'a', input: { reportId: id, quoteFingerprint: fp } }] },
		});
		expect(first.status).toBe(202);
		await waitFor(
			async () =>
				(await w.call('GET', first.body.data.statusUrl)).body.data.items[0].state ===
				'waiting_capacity',
		);
		await rejectsBatch(
			w,
			'/api/v1/analysis-batches',
			{ items: [{ itemKey: 'b', input: { reportId: id, quoteFingerprint: fp } }] },
			409,
			'BATCH_ALREADY_ACTIVE',
		);
		expect(
			(
				await w.call('POST', '/api/v1/upload-batches', {
					idempotencyKey: key(),
					body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(1)] },
				})
			).status,
		).toBe(202);
		await sb.control.patchWorkspace(w.workspaceId, { activeAnalysisLimit: 5 });
		const done = await finished(w, first.body.data.statusUrl);
		expect(done.items[0]).toMatchObject({
			state: 'succeeded',
			attemptId: expect.stringMatching(/^att_/),
		});
	});
	test('batch status reads need the scope that created the kind', async () => {
		const w = await newWs(sb);
		const res = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: key(),
			body: { jobDescription: { kind: 'text', text: 'x' }, items: [uploadItem(1)] },
		});
		const { apiKey } = await sb.control.createKey(w.workspaceId, {
			scopes: ['reports:read', 'interviews:write'],
		});
		const denied = await w.call('GET', res.body.data.statusUrl, { key: apiKey });
		expectError(denied, 403, 'MISSING_SCOPE');
		expect(denied.body.error.requiredScopes).toEqual(['analyses:write']);
		expectError(await w.call('GET', `/api/v1/interview-batches/${res.body.data.batchId}`), 404);
	});
});

describe('interview batches and quotes', () => {
	test('interview batch quote and batch: invitations admitted, independent of candidate progress', async () => {
		const w = await newWs(sb);
		const r1 = await completedReport(w);
		const r2 = await uploaded(w);
		const q = await w.call('POST', '/api/v1/interview-batch-quotes', {
			body: {
				items: [
					{
						itemKey: 'x',
						input: { reportId: r1, candidateEmail: 'x@example.com', sendEmail: true },
					},
					{
						itemKey: 'y',
						input: { reportId: r2, candidateEmail: 'y@example.com', sendEmail: true },
					},
				],
			},
		});
		expect(q.status).toBe(200);
		expect(q.body.data.items[1]).toEqual({
			itemKey: 'y',
			quote: null,
			errorCode: 'ANALYSIS_NOT_USABLE',
		});
		expect(q.body.data.total).toMatchObject({
			quotedItems: 1,
			failedItems: 1,
			admissionGuaranteed: false,
		});
		const before = await w.counters();
		const res = await w.call('POST', '/api/v1/interview-batches', {
			idempotencyKey: key(),
			body: {
				items: [
					{
						itemKey: 'x',
						input: {
							reportId: r1,
							candidateEmail: 'x@example.com',
							sendEmail: true,
							quoteFingerprint: q.body.data.items[0].quote.fingerprint,
						},
					},
				],
			},
		});
		expect(res.status).toBe(202);
		const b = await finished(w, res.body.data.statusUrl);
		expect(b.kind).toBe('interviews');
		expect(b.items[0]).toMatchObject({
			itemKey: 'x',
			state: 'succeeded',
			resourceId: expect.stringMatching(/^int_/),
			errorCode: null,
		});
		expect(
			(await w.call('GET', `/api/v1/interviews/${b.items[0].resourceId}`)).body.data.lifecycle,
		).toBe('invited');
		expect((await w.counters()).interviewsCreated - before.interviewsCreated).toBe(1);
	});
	test('batches support only sendEmail true', async () => {
		const r1 = await completedReport(ws);
		const fp = await interviewQuote(ws, r1, 'x@example.com', false);
		await rejectsBatch(
			ws,
			'/api/v1/interview-batches',
			{
				items: [
					{
						itemKey: 'x',
						input: {
							reportId: r1,
							candidateEmail: 'x@example.com',
							sendEmail: false,
							quoteFingerprint: fp,
						},
					},
				],
			},
			400,
			'VALIDATION_FAILED',
			'items[0].input.sendEmail',
			'batches_require_true',
		);
	});
	test('a foreign report id rejects the whole interview envelope', async () => {
		const other = await newWs(sb);
		const foreign = await completedReport(other);
		await rejectsBatch(
			ws,
			'/api/v1/interview-batches',
			{
				items: [
					{
						itemKey: 'x',
						input: {
							reportId: foreign,
							candidateEmail: 'x@example.com',
							sendEmail: true,
							quoteFingerprint: 'a'.repeat(64),
						},
					},
				],
			},
			404,
		);
	});
	test('the same batch body under the same key replays the same batch id', async () => {
		const w = await newWs(sb);
		const r1 = await completedReport(w);
		const fp = await interviewQuote(w, r1, 'z@example.com');
		const body = {
			items: [
				{
					itemKey: 'z',
					input: {
						reportId: r1,
						candidateEmail: 'z@example.com',
						sendEmail: true,
						quoteFingerprint: fp,
					},
				},
			],
		};
		const k = key();
		const a = await w.call('POST', '/api/v1/interview-batches', { idempotencyKey: k, body });
		const done = await finished(w, a.body.data.statusUrl);
		await waitFor(
			async () =>
				(await w.call('GET', `/api/v1/interviews/${done.items[0].resourceId}`)).body.data
					.emailDelivery === 'sent',
		);
		const before = created(await w.counters());
		const b = await w.call('POST', '/api/v1/interview-batches', { idempotencyKey: k, body });
		expect(b.status).toBe(202);
		expect(b.body).toEqual(a.body);
		expect(created(await w.counters())).toEqual(before);
	});
});
