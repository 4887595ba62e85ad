/**
 * The event feed: one durable order per workspace, limit/cursor/type/reportId/interviewId, hasMore,
 * cursor bound to filters and workspace, 30-day retention with 410 EVENT_CURSOR_EXPIRED, tombstones.
 */
import { useTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { completedReport, expectError, expectInvalid, invited, newWs, type Ws } from './setup';

let sb: TestSandbox;
useTestSandbox((started) => (sb = started));

type Page = {
	items: {
		id: string;
		type: string;
		schemaVersion: number;
		occurredAt: string;
		data?: Record<string, unknown>;
	}[];
	nextCursor: string;
	hasMore: boolean;
};

async function drain(
	w: Ws,
	query: string,
	limit = 2,
): Promise<{ items: Page['items']; pages: number; cursor: string }> {
	const items: Page['items'] = [];
	let cursor = '';
	let pages = 0;
	for (;;) {
		const res = await w.call<{ data: Page }>(
			'GET',
			`/api/v1/events?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		expect(res.status).toBe(200);
		pages += 1;
		items.push(...res.body.data.items);
		cursor = res.body.data.nextCursor;
		if (!res.body.data.hasMore) return { items, pages, cursor };
	}
}

test('events follow one durable order per workspace; hasMore drains the pages; envelopes carry schemaVersion 1', async () => {
	const w = await newWs(sb);
	const other = await newWs(sb);
	await sb.control.seedEvents(other.workspaceId, 3);
	const r1 = await completedReport(w);
	const r2 = await completedReport(w);
	const all = await drain(w, '');
	expect(all.items.map((e) => [e.type, e.data?.reportId])).toEqual([
		['report.completed', r1],
		['report.result_ready', r1],
		['report.completed', r2],
		['report.result_ready', r2],
	]);
	expect(all.pages).toBe(2);
	for (const e of all.items) {
		expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
		expect(e.schemaVersion).toBe(1);
		expect(new Date(e.occurredAt).toISOString()).toBe(e.occurredAt);
	}
	expect(all.items[0].data).toEqual({
		reportId: r1,
		attemptId: expect.stringMatching(/^att_/),
		status: 'completed',
		code: null,
	});
	expect(all.items[1].data).toEqual({
		reportId: r1,
		attemptId: all.items[0].data?.attemptId,
		resultRevision: expect.stringMatching(/^[a-f0-9]{64}$/),
	});
	// the saved position returns only newer events; an empty page still returns a position
	const empty = await w.call<{ data: Page }>(
		'GET',
		`/api/v1/events?limit=2&cursor=${encodeURIComponent(all.cursor)}`,
	);
	expect(empty.body.data).toEqual({ items: [], nextCursor: expect.any(String), hasMore: false });
	const r3 = await completedReport(w);
	const next = await w.call<{ data: Page }>(
		'GET',
		`/api/v1/events?limit=2&cursor=${encodeURIComponent(empty.body.data.nextCursor)}`,
	);
	expect(next.body.data.items.map((e) => e.data?.reportId)).toEqual([r3, r3]);
});

test('type, reportId and interviewId filter the feed', async () => {
	const w = await newWs(sb);
	const r1 = await completedReport(w);
	const r2 = await completedReport(w);
	const inv = await invited(w, r2, 'feed@example.com', false);
	expect((await drain(w, '&type=report.completed')).items.map((e) => e.data?.reportId)).toEqual([
		r1,
		r2,
	]);
	expect((await drain(w, `&reportId=${r1}`)).items.map((e) => e.type)).toEqual([
		'report.completed',
		'report.result_ready',
	]);
	const byInterview = await drain(w, `&interviewId=${inv.interviewId}`);
	expect(byInterview.items.map((e) => e.type)).toEqual(['interview.invited']);
	expect(byInterview.items[0].data).toEqual({
		interviewId: inv.interviewId,
		reportId: r2,
		lifecycle: 'invited',
		preparation: 'queued',
		evaluation: 'not_started',
		emailDelivery: 'not_requested',
	});
});

test('payloads carry identifiers and status only (no resume, contact, reference, token or URL)', async () => {
	const w = await newWs(sb);
	const r = await completedReport(w);
	const inv = await invited(w, r, 'secret.person@example.com', false);
	const text = JSON.stringify((await drain(w, '')).items);
	for (const leak of [
		'secret.person@example.com',
		inv.invitationToken as string,
		'/_storage/',
		'Candidate',
		'Cand ',
	])
		expect(text).not.toContain(leak);
});

test('the type filter accepts the event types of the spec', async () => {
	const w = await newWs(sb);
	expectInvalid(await w.call('GET', '/api/v1/events?type=report.exploded'), 'type', 'enum');
	for (const t of [
		'report.deleted',
		'interview.invitation_failed',
		'batch.completed',
		'webhook.test',
	]) {
		expect((await w.call('GET', `/api/v1/events?type=${t}`)).status).toBe(200);
	}
});

test('filters are bound to the cursor (changed filters are INVALID_CURSOR)', async () => {
	const w = await newWs(sb);
	await sb.control.seedEvents(w.workspaceId, 3);
	const page = await w.call<{ data: Page }>('GET', '/api/v1/events?limit=1&type=report.completed');
	expectError(
		await w.call(
			'GET',
			`/api/v1/events?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
		),
		400,
		'INVALID_CURSOR',
	);
	const other = await newWs(sb);
	expectError(
		await other.call(
			'GET',
			`/api/v1/events?limit=1&type=report.completed&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
		),
		400,
		'INVALID_CURSOR',
	);
});

test('events are retained 30 days; an older cursor is 410 EVENT_CURSOR_EXPIRED and a fresh start works', async () => {
	const w = await newWs(sb);
	await sb.control.seedEvents(w.workspaceId, 3);
	const page = await w.call<{ data: Page }>('GET', '/api/v1/events?limit=1');
	expect(page.body.data.hasMore).toBe(true);
	await sb.control.advanceClock(29 * 24 * 3600_000);
	expect(
		(
			await w.call(
				'GET',
				`/api/v1/events?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
			)
		).status,
	).toBe(200);
	await sb.control.advanceClock(2 * 24 * 3600_000);
	const gone = await w.call(
		'GET',
		`/api/v1/events?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
	);
	expectError(gone, 410);
	expect(gone.body.error.code).toBe('EVENT_CURSOR_EXPIRED');
	const fresh = await w.call<{ data: Page }>('GET', '/api/v1/events');
	expect(fresh.body.data).toEqual({ items: [], nextCursor: expect.any(String), hasMore: false });
});

test('after a report is deleted its events become tombstones and report.deleted is published', async () => {
	const w = await newWs(sb);
	const r = await completedReport(w);
	await sb.control.deleteReport(r);
	const items = (await drain(w, `&reportId=${r}`, 10)).items;
	expect(items.map((e) => e.type)).toEqual([
		'report.completed',
		'report.result_ready',
		'report.deleted',
	]);
	for (const e of items)
		expect(Object.keys(e).sort()).toEqual(['id', 'occurredAt', 'schemaVersion', 'type']);
	expectError(await w.call('GET', `/api/v1/reports/${r}`), 404);
});

test('the feed needs events:read', async () => {
	const w = await newWs(sb, { scopes: ['reports:read'] });
	const res = await w.call('GET', '/api/v1/events');
	expectError(res, 403, 'MISSING_SCOPE');
	expect(res.body.error.requiredScopes).toEqual(['events:read']);
});
