/**
 * Fault injection (latency, 5xx, 429 + Retry-After, commit-then-drop), the sandbox reset, the seven-day
 * data expiry, and the counters that prove nothing was duplicated.
 */
import { makePdf } from '../fixtures/resumes';
import { api, startTestSandbox, useTestSandbox, type TestSandbox } from '../helpers/sandbox';
import {
	completedReport,
	created,
	expectError,
	invited,
	key,
	newWs,
	PDF_MIME,
	uploadBody,
} from './setup';

let sb: TestSandbox;
useTestSandbox((started) => (sb = started), { clearFaultsAfterEach: true });

const pdf = makePdf({ candidate: 'Fault Person' });

test('commit-then-drop: the write is committed, the client sees no response, the same key replays it once', async () => {
	const w = await newWs(sb);
	await sb.control.setFaults({
		rules: [{ method: 'POST', path: '/api/v1/uploads', mode: 'commit-then-drop', count: 1 }],
	});
	const k = key();
	const body = uploadBody(w, pdf);
	await expect(w.call('POST', '/api/v1/uploads', { idempotencyKey: k, body })).rejects.toThrow();
	const afterDrop = await w.counters();
	expect(afterDrop.reportsCreated).toBe(1);
	const retry = await w.call('POST', '/api/v1/uploads', { idempotencyKey: k, body });
	expect(retry.status).toBe(201);
	const after = await w.counters();
	expect(after.reportsCreated).toBe(1);
	expect(after.preparationsCreated).toBe(1);
	expect(after.idempotentReplays).toBe(1);
	expect(after.requests['POST /api/v1/uploads']).toBe(2);
	const list = await w.call('GET', '/api/v1/reports');
	expect(list.body.data.items.map((r: { id: string }) => r.id)).toEqual([retry.body.data.reportId]);
});

test('a 429 fault answers TOO_MANY_REQUESTS with an integer Retry-After of at least 1, before any processing', async () => {
	const w = await newWs(sb);
	await sb.control.setFaults({
		rules: [{ path: '/api/v1/uploads', status: 429, retryAfterSeconds: 2, count: 1 }],
	});
	const before = created(await w.counters());
	const res = await w.call('POST', '/api/v1/uploads', {
		idempotencyKey: key(),
		body: uploadBody(w, pdf),
	});
	expectError(res, 429);
	expect(res.headers.get('retry-after')).toBe('2');
	expect(created(await w.counters())).toEqual(before);
	expect(
		(await w.call('POST', '/api/v1/uploads', { idempotencyKey: key(), body: uploadBody(w, pdf) }))
			.status,
	).toBe(201);
});

test('a 5xx rate fault is reproducible with a seed', async () => {
	const w = await newWs(sb);
	const run = async () => {
		await sb.control.setFaults({
			seed: 42,
			rules: [{ method: 'GET', path: '/api/v1/job-descriptions', status: 503, rate: 0.5 }],
		});
		const statuses: number[] = [];
		for (let i = 0; i < 12; i += 1)
			statuses.push((await w.call('GET', '/api/v1/job-descriptions')).status);
		return statuses;
	};
	const a = await run();
	const b = await run();
	expect(a).toEqual(b);
	expect(a).toContain(503);
	expect(a).toContain(200);
	const failed = await (async () => {
		await sb.control.setFaults({ rules: [{ path: '/api/v1/job-descriptions', status: 500 }] });
		return w.call('GET', '/api/v1/job-descriptions');
	})();
	expectError(failed, 500);
});

test('latency delays responses', async () => {
	const w = await newWs(sb);
	await sb.control.setFaults({ latencyMs: 150 });
	const t0 = Date.now();
	expect((await w.call('GET', '/api/v1/job-descriptions')).status).toBe(200);
	expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
});

test('a gathering latency rule holds requests until that many are held, then lets them go together', async () => {
	const w = await newWs(sb);
	await sb.control.setFaults({
		rules: [
			{
				method: 'GET',
				path: '/api/v1/job-descriptions',
				mode: 'latency',
				latencyMs: 60_000,
				gather: 3,
			},
		],
	});
	const read = () => w.call('GET', '/api/v1/job-descriptions');
	// Two reads stay held (their latency is a minute); a third releases all three at once.
	const first = [read(), read()];
	const held = async () => (await sb.control.faults()).rules[0];
	for (let i = 0; (await held()).heldNow < 2; i++) {
		if (i > 200) throw new Error('the sandbox never held the first two reads');
		await new Promise((r) => setTimeout(r, 25));
	}
	const answers = await Promise.all([...first, read()]);
	expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
	expect(await held()).toMatchObject({ fired: 3, heldNow: 0, heldMax: 3 });
	// Out of latency mode a gather is refused, naming the field.
	const refused = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rules: [{ mode: 'before', gather: 2 }] }),
	});
	expect(refused.status).toBe(400);
	expect(JSON.stringify(await refused.json())).toContain('rules[0].gather');
});

test('faults apply to storage too', async () => {
	const w = await newWs(sb);
	const prep = (
		await w.call('POST', '/api/v1/uploads', { idempotencyKey: key(), body: uploadBody(w, pdf) })
	).body.data;
	await sb.control.setFaults({
		rules: [{ method: 'PUT', path: '/_storage/uploads/{reportId}', status: 503, count: 1 }],
	});
	const first = await fetch(prep.upload.url, {
		method: 'PUT',
		headers: { 'content-type': PDF_MIME },
		body: pdf,
	});
	expect(first.status).toBe(503);
	const second = await fetch(prep.upload.url, {
		method: 'PUT',
		headers: { 'content-type': PDF_MIME },
		body: pdf,
	});
	expect(second.status).toBe(200);
	expect((await w.counters()).storagePuts).toBe(1);
});

describe('sandbox reset', () => {
	test('reset revokes test keys, erases reports, interviews and receiver history, and keeps receipts', async () => {
		const w = await newWs(sb);
		const reportId = await completedReport(w);
		await invited(w, reportId, 'reset@example.com', false);
		const ep = await sb.control.addWebhookEndpoint(w.workspaceId, {
			url: sb.control.inboxUrl(w.workspaceId),
		});
		await sb.control.sendTest(ep.id);
		// Receiver history to erase: wait until the delivery has landed (one still in flight at the reset would
		// arrive after it and be recorded as new history).
		for (let i = 0; i < 200 && (await sb.control.inbox(w.workspaceId)).items.length === 0; i++) {
			await new Promise((resolve) => setTimeout(resolve, 25));
		}
		expect((await sb.control.inbox(w.workspaceId)).items).toHaveLength(1);
		const k = key();
		const body = uploadBody(w, pdf);
		const first = await w.call('POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expect(first.status).toBe(201);
		const { apiKey } = await sb.control.reset(w.workspaceId);
		expectError(await w.call('GET', '/api/v1/reports'), 401);
		const fresh = { baseUrl: sb.baseUrl, seed: { apiKey } };
		expectError(await api(fresh, 'GET', `/api/v1/reports/${reportId}`), 404);
		expect((await api(fresh, 'GET', '/api/v1/reports')).body.data.items).toEqual([]);
		expect((await api(fresh, 'GET', '/api/v1/interviews')).body.data.items).toEqual([]);
		expect((await api(fresh, 'GET', '/api/v1/events')).body.data.items).toEqual([]);
		expect((await sb.control.inbox(w.workspaceId)).items).toEqual([]);
		expect((await sb.control.mail(w.workspaceId)).items).toEqual([]);
		// the old idempotency key cannot create work again
		const before = created(await w.counters());
		const replay = await api(fresh, 'POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expect(replay.status).toBe(201);
		expect(replay.body).toEqual(first.body);
		expect(created(await w.counters())).toEqual(before);
		expectError(await api(fresh, 'GET', `/api/v1/reports/${first.body.data.reportId}`), 404);
	});

	test('reset cancels queued work', async () => {
		const slow = await startTestSandbox({ workerDelayMs: 200 });
		try {
			const w = await newWs(slow);
			const prep = (
				await w.call('POST', '/api/v1/uploads', { idempotencyKey: key(), body: uploadBody(w, pdf) })
			).body.data;
			await fetch(prep.upload.url, {
				method: 'PUT',
				headers: { 'content-type': PDF_MIME },
				body: pdf,
			});
			const fp = (
				await w.call('POST', '/api/v1/analysis-quotes', { body: { reportId: prep.reportId } })
			).body.data.fingerprint;
			expect(
				(
					await w.call('POST', '/api/v1/analyses', {
						idempotencyKey: key(),
						body: { reportId: prep.reportId, quoteFingerprint: fp },
					})
				).status,
			).toBe(202);
			const { apiKey } = await slow.control.reset(w.workspaceId);
			await new Promise((r) => setTimeout(r, 600));
			const events = await api(
				{ baseUrl: slow.baseUrl, seed: { apiKey } },
				'GET',
				'/api/v1/events',
			);
			expect(events.body.data.items).toEqual([]);
		} finally {
			await slow.close();
		}
	});
});

test('sandbox data expires after seven days', async () => {
	const w = await newWs(sb);
	const reportId = await completedReport(w);
	await sb.control.advanceClock(6 * 24 * 3600_000);
	expect((await w.call('GET', `/api/v1/reports/${reportId}`)).status).toBe(200);
	await sb.control.advanceClock(24 * 3600_000 + 1000);
	expectError(await w.call('GET', `/api/v1/reports/${reportId}`), 404);
});

test('counters are exact per operation', async () => {
	const w = await newWs(sb);
	await w.call('GET', '/api/v1/reports');
	await w.call('GET', '/api/v1/reports');
	await w.call('GET', `/api/v1/job-descriptions/${w.jobDescriptionId}`);
	const c = await w.counters();
	expect(c.requests).toEqual({ 'GET /api/v1/reports': 2, 'GET /api/v1/job-descriptions/{id}': 1 });
	expect(created(c)).toEqual({
		reportsCreated: 0,
		preparationsCreated: 0,
		attemptsCreated: 0,
		interviewsCreated: 0,
		emailsSent: 0,
		batchesCreated: 0,
		storagePuts: 0,
		storageAuthorizationHeaders: 0,
		webhookAuthorizationHeaders: 0,
		preparedAheadOfSubmissionMax: 0,
	});
});
