/**
 * Analyses and reports: the happy path upload -> PUT -> quote -> start -> completed -> result, the worker's
 * deterministic outcomes, every start-analysis condition, and the report reads with their filters.
 */
import { makePdf } from '../fixtures/resumes';
import { uploadFile, type TestSandbox } from '../helpers/sandbox';
import {
	created,
	expectError,
	expectInvalid,
	key,
	newWs,
	PDF_MIME,
	prepare,
	quote,
	start,
	uploaded,
	waitStatus,
	useSandboxWs,
	type Ws,
} from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

async function rejectsStart(
	w: Ws,
	body: unknown,
	status: number,
	reason?: string,
	idempotencyKey = key(),
) {
	const before = created(await w.counters());
	const res = await w.call('POST', '/api/v1/analyses', { idempotencyKey, body });
	expectError(res, status, reason);
	expect(created(await w.counters())).toEqual(before);
	return res;
}

describe('happy path', () => {
	test('upload -> PUT -> quote -> start -> completed -> result with every result field', async () => {
		const file = makePdf({ candidate: 'Grace Hopper', score: 8.5 });
		const prep = await prepare(ws, file, { externalReference: { source: 'lever', id: 'cand-1' } });
		expect((await uploadFile(sb, prep.upload.url, file, PDF_MIME)).status).toBe(200);
		const q = await ws.call('POST', '/api/v1/analysis-quotes', {
			body: { reportId: prep.reportId },
		});
		expect(q.status).toBe(200);
		expect(q.body.data).toEqual({
			reportId: prep.reportId,
			reportSystemVersion: expect.any(String),
			creditUnits: expect.any(Number),
			creditScale: expect.any(Number),
			fingerprint: expect.stringMatching(/^[a-f0-9]{64}$/),
		});
		const s = await ws.call('POST', '/api/v1/analyses', {
			idempotencyKey: key(),
			body: { reportId: prep.reportId, quoteFingerprint: q.body.data.fingerprint },
		});
		expect(s.status).toBe(202);
		expect(s.body.data).toEqual({
			reportId: prep.reportId,
			attemptId: expect.stringMatching(/^att_/),
			statusUrl: `/api/v1/reports/${prep.reportId}/status`,
		});
		const status = await waitStatus(ws, prep.reportId, ['completed']);
		expect(status).toEqual({
			id: prep.reportId,
			status: 'completed',
			attemptId: s.body.data.attemptId,
			code: null,
			reportSystemVersion: q.body.data.reportSystemVersion,
		});
		const res = await ws.call('GET', `/api/v1/reports/${prep.reportId}/result`);
		expect(res.status).toBe(200);
		const d = res.body.data;
		expect(d).toMatchObject({
			schemaVersion: 1,
			reportId: prep.reportId,
			attemptId: s.body.data.attemptId,
			status: 'completed',
			code: null,
			externalReference: { source: 'lever', id: 'cand-1' },
		});
		expect(d.resultRevision).toMatch(/^[a-f0-9]{64}$/);
		expect(new Date(d.publishedAt).toISOString()).toBe(d.publishedAt);
		expect(d.result.scoreScale).toEqual({ minimum: 0, maximum: 10 });
		expect(d.result.score).toBe(8.5);
		for (const f of ['summary', 'scoreReasoning', 'humanReviewRecommendation', 'limitations'])
			expect(typeof d.result[f]).toBe('string');
		for (const f of ['rubric', 'highlights', 'policyWarnings', 'ignoredCriteria'])
			expect(Array.isArray(d.result[f])).toBe(true);
		expect(Object.keys(d.result.rubric[0]).sort()).toEqual([
			'analysis',
			'evidence',
			'gaps',
			'key',
			'label',
			'score',
			'status',
		]);
		expect(Object.keys(d.result.highlights[0]).sort()).toEqual([
			'category',
			'label',
			'status',
			'summary',
		]);
		expect(Object.keys(d.result.followUpQuestions).sort()).toEqual([
			'clarification',
			'riskReview',
			'technical',
		]);
		expect(Object.keys(d.result.integrity).sort()).toEqual(['riskLevel', 'signals', 'summary']);
		const summary = await ws.call('GET', `/api/v1/reports/${prep.reportId}`);
		expect(summary.body.data).toMatchObject({
			id: prep.reportId,
			status: 'completed',
			candidate: { name: 'Grace Hopper' },
			result: { score: 8.5 },
			jobDescription: { id: ws.jobDescriptionId },
		});
		expect(summary.body.data).not.toHaveProperty('externalReference');
		const withRef = await ws.call('GET', `/api/v1/reports/${prep.reportId}?include=reference`);
		expect(withRef.body.data.externalReference).toEqual({ source: 'lever', id: 'cand-1' });
	});

	test('a requires_action fixture ends in requires_action with a code and no result', async () => {
		const id = await uploaded(ws, { outcome: 'requires_action' });
		await start(ws, id);
		const st = await waitStatus(ws, id, ['requires_action', 'completed', 'failed']);
		expect(st.status).toBe('requires_action');
		expect(st.code).toEqual(expect.any(String));
		expect((await ws.call('GET', `/api/v1/reports/${id}/result`)).body.data.result).toBeNull();
	});

	test('a failed fixture ends in failed with a code; a deliberate new attempt gets a new attemptId', async () => {
		const id = await uploaded(ws, { outcome: 'failed' });
		const first = await start(ws, id);
		const st = await waitStatus(ws, id, ['failed', 'completed']);
		expect(st).toMatchObject({
			status: 'failed',
			attemptId: first.attemptId,
			code: expect.any(String),
		});
		const second = await start(ws, id);
		expect(second.attemptId).not.toBe(first.attemptId);
	});

	test('a worker retry keeps the attemptId (retry_then_completed)', async () => {
		const id = await uploaded(ws, { outcome: 'retry_then_completed' });
		const before = await ws.counters();
		const s = await start(ws, id);
		const seen = new Set<string>();
		const st = await waitStatus(ws, id, ['completed']);
		seen.add(st.attemptId);
		expect(st.attemptId).toBe(s.attemptId);
		expect((await ws.counters()).attemptsCreated - before.attemptsCreated).toBe(1);
		const events = await ws.call('GET', `/api/v1/events?reportId=${id}`);
		expect(
			events.body.data.items.map((e: { data: { attemptId: string } }) => e.data.attemptId),
		).toEqual([s.attemptId, s.attemptId]);
	});

	test('replaying start with the same key returns the same attempt and admits nothing new', async () => {
		const id = await uploaded(ws);
		const fp = await quote(ws, id);
		const k = key();
		const a = await ws.call('POST', '/api/v1/analyses', {
			idempotencyKey: k,
			body: { reportId: id, quoteFingerprint: fp },
		});
		const before = created(await ws.counters());
		const b = await ws.call('POST', '/api/v1/analyses', {
			idempotencyKey: k,
			body: { reportId: id, quoteFingerprint: fp },
		});
		expect(b.status).toBe(202);
		expect(b.body).toEqual(a.body);
		expect(created(await ws.counters())).toEqual(before);
	});
});

describe('start-analysis rules', () => {
	test('reportId and quoteFingerprint are both required', async () => {
		const res = await ws.call('POST', '/api/v1/analyses', { idempotencyKey: key(), body: {} });
		expectInvalid(res, 'reportId', 'required');
		expectInvalid(res, 'quoteFingerprint', 'required');
	});
	test('quoteFingerprint matches ^[a-f0-9]{64}$', async () => {
		const id = await uploaded(ws);
		expectInvalid(
			await ws.call('POST', '/api/v1/analyses', {
				idempotencyKey: key(),
				body: { reportId: id, quoteFingerprint: 'A'.repeat(64) },
			}),
			'quoteFingerprint',
			'pattern',
		);
	});
	test('a changed file makes the quote stale (QUOTE_STALE)', async () => {
		const file = makePdf({ candidate: 'Stale One' });
		const prep = await prepare(ws, file);
		await uploadFile(sb, prep.upload.url, file, PDF_MIME);
		const fp = await quote(ws, prep.reportId);
		const other = Buffer.from(file);
		other[other.length - 10] = 0x42; // same size, different bytes
		expect((await uploadFile(sb, prep.upload.url, other, PDF_MIME)).status).toBe(200);
		await rejectsStart(ws, { reportId: prep.reportId, quoteFingerprint: fp }, 422, 'QUOTE_STALE');
	});
	test('a changed price version makes the quote stale (QUOTE_STALE)', async () => {
		const w = await newWs(sb);
		const id = await uploaded(w);
		const fp = await quote(w, id);
		await sb.control.patchWorkspace(w.workspaceId, { priceVersion: 2 });
		await rejectsStart(w, { reportId: id, quoteFingerprint: fp }, 422, 'QUOTE_STALE');
	});
	test('a changed price makes the quote stale, and the new quote carries the new price', async () => {
		const w = await newWs(sb);
		const id = await uploaded(w);
		const fp = await quote(w, id);
		await sb.control.patchWorkspace(w.workspaceId, { analysisCreditUnits: 5000 });
		await rejectsStart(w, { reportId: id, quoteFingerprint: fp }, 422, 'QUOTE_STALE');
		const again = await w.call('POST', '/api/v1/analysis-quotes', { body: { reportId: id } });
		expect(again.body.data).toMatchObject({ creditUnits: 5000, creditScale: 100 });
	});
	test('an upload that was never PUT cannot start (INVALID_UPLOAD)', async () => {
		const prep = await prepare(ws, makePdf());
		const fp = await quote(ws, prep.reportId);
		await rejectsStart(
			ws,
			{ reportId: prep.reportId, quoteFingerprint: fp },
			422,
			'INVALID_UPLOAD',
		);
	});
	test('active analyses are limited (ACTIVE_ANALYSIS_LIMIT)', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { activeAnalysisLimit: 0 });
		const id = await uploaded(w);
		await rejectsStart(
			w,
			{ reportId: id, quoteFingerprint: await quote(w, id) },
			422,
			'ACTIVE_ANALYSIS_LIMIT',
		);
	});
	test('the workspace allowance is checked at admission (INSUFFICIENT_ALLOWANCE)', async () => {
		const w = await newWs(sb, { analysisAllowance: 0 });
		const id = await uploaded(w);
		await rejectsStart(
			w,
			{ reportId: id, quoteFingerprint: await quote(w, id) },
			422,
			'INSUFFICIENT_ALLOWANCE',
		);
	});
	test('a completed analysis cannot be restarted (ANALYSIS_ALREADY_STARTED)', async () => {
		const id = await uploaded(ws);
		const fp = await quote(ws, id);
		await ws.call('POST', '/api/v1/analyses', {
			idempotencyKey: key(),
			body: { reportId: id, quoteFingerprint: fp },
		});
		await waitStatus(ws, id, ['completed']);
		await rejectsStart(ws, { reportId: id, quoteFingerprint: fp }, 409, 'ANALYSIS_ALREADY_STARTED');
		expectError(
			await ws.call('POST', '/api/v1/analysis-quotes', { body: { reportId: id } }),
			409,
			'ANALYSIS_ALREADY_STARTED',
		);
	});
	test('a job revised after preparation with expectedRevision fails the submission (JD_REVISION_CHANGED)', async () => {
		const w = await newWs(sb);
		const job = (await w.call('GET', `/api/v1/job-descriptions/${w.jobDescriptionId}`)).body.data;
		const id = await uploaded(
			w,
			{},
			{
				jobDescription: {
					kind: 'existing',
					id: w.jobDescriptionId,
					expectedRevision: job.revision,
				},
			},
		);
		const fp = await quote(w, id);
		await sb.control.reviseJob(w.jobDescriptionId);
		await rejectsStart(w, { reportId: id, quoteFingerprint: fp }, 409, 'JD_REVISION_CHANGED');
	});
	test('a report of another workspace is 404', async () => {
		const other = await newWs(sb);
		const id = await uploaded(other);
		await rejectsStart(ws, { reportId: id, quoteFingerprint: 'a'.repeat(64) }, 404);
		expectError(await ws.call('GET', `/api/v1/reports/${id}`), 404);
	});
});

describe('report reads', () => {
	test('schemaVersion other than 1 is RESULT_VERSION_UNSUPPORTED', async () => {
		const id = await uploaded(ws);
		expectError(
			await ws.call('GET', `/api/v1/reports/${id}/result?schemaVersion=2`),
			422,
			'RESULT_VERSION_UNSUPPORTED',
		);
		expect((await ws.call('GET', `/api/v1/reports/${id}/result?schemaVersion=1`)).status).toBe(200);
	});
	test('a pending report has a null result (not a zero score)', async () => {
		const id = await uploaded(ws);
		const r = await ws.call('GET', `/api/v1/reports/${id}/result`);
		expect(r.body.data).toMatchObject({ status: 'queued', attemptId: null, result: null });
		expect((await ws.call('GET', `/api/v1/reports/${id}`)).body.data.result).toBeNull();
	});
	test('include accepts only reference', async () => {
		expectInvalid(await ws.call('GET', '/api/v1/reports?include=candidate'), 'include', 'enum');
	});
	test('the list is newest first and pages with nextCursor until null', async () => {
		const w = await newWs(sb);
		const ids: string[] = [];
		for (let i = 0; i < 5; i += 1) ids.push((await prepare(w, makePdf())).reportId);
		const seen: string[] = [];
		let cursor: string | null = null;
		do {
			const qs: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
			const page = await w.call('GET', `/api/v1/reports?limit=2${qs}`);
			expect(page.status).toBe(200);
			seen.push(...page.body.data.items.map((r: { id: string }) => r.id));
			cursor = page.body.data.nextCursor;
		} while (cursor);
		expect(seen).toEqual([...ids].reverse());
	});
	test('createdAfter and createdBefore are exclusive bounds', async () => {
		const w = await newWs(sb);
		const a = await prepare(w, makePdf());
		await sb.control.advanceClock(1000);
		const b = await prepare(w, makePdf());
		await sb.control.advanceClock(1000);
		const c = await prepare(w, makePdf());
		const created = async (id: string) =>
			(await w.call('GET', `/api/v1/reports/${id}`)).body.data.createdAt as string;
		const [ta, tc] = [await created(a.reportId), await created(c.reportId)];
		const list = await w.call('GET', `/api/v1/reports?createdAfter=${ta}&createdBefore=${tc}`);
		expect(list.body.data.items.map((r: { id: string }) => r.id)).toEqual([b.reportId]);
	});
	test('createdBefore must be later than createdAfter', async () => {
		const t = '2026-01-01T00:00:00.000Z';
		expectInvalid(
			await ws.call('GET', `/api/v1/reports?createdAfter=${t}&createdBefore=${t}`),
			'createdBefore',
			'after_createdAfter',
		);
	});
	test('createdAfter is an ISO 8601 date-time with timezone', async () => {
		expectInvalid(
			await ws.call('GET', '/api/v1/reports?createdAfter=2026-01-01T00:00:00'),
			'createdAfter',
			'date_time',
		);
	});
	test('externalReferenceSource and externalReferenceId: both or neither', async () => {
		expectInvalid(
			await ws.call('GET', '/api/v1/reports?externalReferenceSource=lever'),
			'externalReferenceId',
			'both_or_neither',
		);
	});
	test('externalReferenceSource as a filter matches ^[a-z0-9]+(?:-[a-z0-9]+)*$, length 1 to 64', async () => {
		expectInvalid(
			await ws.call('GET', '/api/v1/reports?externalReferenceSource=Lever&externalReferenceId=1'),
			'externalReferenceSource',
			'pattern',
		);
		expectInvalid(
			await ws.call(
				'GET',
				`/api/v1/reports?externalReferenceSource=${'a'.repeat(65)}&externalReferenceId=1`,
			),
			'externalReferenceSource',
			'max_length',
		);
	});
	test('externalReferenceId as a filter has length 1 to 128', async () => {
		expectInvalid(
			await ws.call(
				'GET',
				`/api/v1/reports?externalReferenceSource=lever&externalReferenceId=${'i'.repeat(129)}`,
			),
			'externalReferenceId',
			'max_length',
		);
		expectInvalid(
			await ws.call('GET', '/api/v1/reports?externalReferenceSource=lever&externalReferenceId='),
			'externalReferenceId',
			'min_length',
		);
	});
	test('the external reference filter finds the report', async () => {
		const w = await newWs(sb);
		const p = await prepare(w, makePdf(), {
			externalReference: { source: 'workday', id: 'Case-Sensitive-1' },
		});
		await prepare(w, makePdf(), {
			externalReference: { source: 'workday', id: 'case-sensitive-1' },
		});
		const list = await w.call(
			'GET',
			'/api/v1/reports?externalReferenceSource=workday&externalReferenceId=Case-Sensitive-1&include=reference',
		);
		expect(
			list.body.data.items.map((r: { id: string; externalReference: unknown }) => [
				r.id,
				r.externalReference,
			]),
		).toEqual([[p.reportId, { source: 'workday', id: 'Case-Sensitive-1' }]]);
	});
	test('a deleted report reads 404', async () => {
		const id = await uploaded(ws);
		await sb.control.deleteReport(id);
		expectError(await ws.call('GET', `/api/v1/reports/${id}/status`), 404);
	});
});

describe('analysis quote rules', () => {
	test('the analysis quote needs reportId', async () => {
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', '/api/v1/analysis-quotes', { body: {} }),
			'reportId',
			'required',
		);
		expectInvalid(
			await ws.call('POST', '/api/v1/analysis-quotes', { body: { reportId: 'r'.repeat(101) } }),
			'reportId',
			'max_length',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('an unknown report cannot be quoted (404)', async () => {
		expectError(
			await ws.call('POST', '/api/v1/analysis-quotes', { body: { reportId: 'rpt_unknown' } }),
			404,
		);
	});
	test('a quote reserves nothing: quoting twice gives the same fingerprint and creates nothing', async () => {
		const id = await uploaded(ws);
		const before = created(await ws.counters());
		expect(await quote(ws, id)).toBe(await quote(ws, id));
		expect(created(await ws.counters())).toEqual(before);
	});
	test('a write with an invalid key creates nothing (401)', async () => {
		const id = await uploaded(ws);
		const fp = await quote(ws, id);
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', '/api/v1/analyses', {
				key: 'svc_test_nope',
				idempotencyKey: key(),
				body: { reportId: id, quoteFingerprint: fp },
			}),
			401,
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('a write without analyses:write creates nothing (403)', async () => {
		const id = await uploaded(ws);
		const fp = await quote(ws, id);
		const { apiKey } = await sb.control.createKey(ws.workspaceId, { scopes: ['reports:read'] });
		const before = created(await ws.counters());
		const res = await ws.call('POST', '/api/v1/analyses', {
			key: apiKey,
			idempotencyKey: key(),
			body: { reportId: id, quoteFingerprint: fp },
		});
		expectError(res, 403, 'MISSING_SCOPE');
		expect(res.body.error.requiredScopes).toEqual(['analyses:write']);
		expect(created(await ws.counters())).toEqual(before);
	});
});
