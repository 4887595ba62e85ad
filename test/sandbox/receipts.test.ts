/**
 * Idempotency receipts as the spec has them ("Endpoints / Conventions", "Errors", "Sandbox rules" 4): a key names
 * one write in its workspace whatever the endpoint, a changed body under a used key is 409 CONFLICT, receipts
 * survive a reset, and a receipt is kept for the workspace's receipt lifetime (strict profile: 24 hours; default:
 * for ever). The /_sandbox/.../receipts controls age and forget receipts, so a test can show what a client meets
 * once the service has forgotten one.
 */
import { makePdf } from '../fixtures/resumes';
import { api, http, useTestSandbox, waitFor, type TestSandbox } from '../helpers/sandbox';
import {
	created,
	expectError,
	key,
	newWs,
	PDF_MIME,
	uploadBody,
	useSandboxWs,
	type Ws,
} from './setup';

const DAY_SECONDS = 24 * 3600;
const pdf = makePdf({ candidate: 'Receipt Person' });

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

const batchBody = (fileName: string) => ({
	jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
	items: [{ itemKey: 'only', input: { fileName, fileSize: pdf.length, mimeType: PDF_MIME } }],
});

async function prepared(w: Ws, idempotencyKey: string, body = uploadBody(w, pdf)) {
	const res = await w.call('POST', '/api/v1/uploads', { idempotencyKey, body });
	expect(res.status).toBe(201);
	return res.body.data.reportId as string;
}

describe('a key names one write in its workspace, whatever the endpoint', () => {
	test('a key used on POST /uploads and then on POST /upload-batches with another body is 409 CONFLICT (IDEMPOTENCY_KEY_REUSED) and creates nothing', async () => {
		const k = key();
		await prepared(ws, k);
		const before = created(await ws.counters());
		const res = await ws.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: k,
			body: batchBody('other.pdf'),
		});
		expectError(res, 409, 'IDEMPOTENCY_KEY_REUSED');
		expect(res.body.error.message).toMatch(/POST \/api\/v1\/uploads/);
		expect(created(await ws.counters())).toEqual(before);
	});

	test('the identical body under the same key on the same endpoint replays, also after the key was refused on another endpoint', async () => {
		const k = key();
		const body = uploadBody(ws, pdf);
		const first = await ws.call('POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expectError(
			await ws.call('POST', '/api/v1/upload-batches', {
				idempotencyKey: k,
				body: batchBody('resume.pdf'),
			}),
			409,
			'IDEMPOTENCY_KEY_REUSED',
		);
		const before = await ws.counters();
		const again = await ws.call('POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expect(again.status).toBe(201);
		expect(again.body).toEqual(first.body);
		const after = await ws.counters();
		expect(created(after)).toEqual(created(before));
		expect(after.idempotentReplays).toBe(before.idempotentReplays + 1);
	});

	test('a batch key then used for a single upload conflicts too', async () => {
		const k = key();
		const w = await newWs(sb);
		const batch = await w.call('POST', '/api/v1/upload-batches', {
			idempotencyKey: k,
			body: { ...batchBody('a.pdf'), jobDescription: { kind: 'existing', id: w.jobDescriptionId } },
		});
		expect(batch.status).toBe(202);
		// The batch prepares its item after the 202: counted before the single upload, not during it.
		await waitFor(async () => {
			const read = await w.call('GET', `/api/v1/upload-batches/${batch.body.data.batchId}`);
			return read.body?.data?.status === 'completed';
		}, 8000);
		const before = created(await w.counters());
		expectError(
			await w.call('POST', '/api/v1/uploads', { idempotencyKey: k, body: uploadBody(w, pdf) }),
			409,
			'IDEMPOTENCY_KEY_REUSED',
		);
		expect(created(await w.counters())).toEqual(before);
	});

	test('another workspace may use the same key: receipts are scoped to the workspace', async () => {
		const k = key();
		const other = await newWs(sb);
		const mine = await prepared(ws, k);
		const theirs = await prepared(other, k);
		expect(theirs).not.toBe(mine);
		expect((await other.counters()).idempotentReplays).toBe(0);
	});
});

describe('receipt lifetime: the default profile keeps receipts for ever', () => {
	test('a year later the same request still replays (nothing forgotten, nothing created)', async () => {
		const w = await newWs(sb);
		const k = key();
		const reportId = await prepared(w, k);
		expect(await sb.control.ageReceipts(w.workspaceId, 365 * DAY_SECONDS)).toEqual({
			receiptLifetimeMs: 0,
			aged: 1,
			forgotten: 0,
			kept: 1,
		});
		expect((await sb.control.receipts(w.workspaceId)).items).toEqual([
			{
				key: k,
				operation: 'POST /api/v1/uploads',
				status: 201,
				createdAt: expect.any(String),
				expiresAt: null,
			},
		]);
		const before = created(await w.counters());
		expect(await prepared(w, k)).toBe(reportId);
		expect(created(await w.counters())).toEqual(before);
	});

	test('a lifetime set on one workspace (PATCH receiptLifetimeMs) applies to its receipts only', async () => {
		const w = await newWs(sb);
		const keeps = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { receiptLifetimeMs: 3_600_000 });
		const k = key();
		const first = await prepared(w, k);
		const kept = await prepared(keeps, k);
		expect(await sb.control.ageReceipts(w.workspaceId, 3600)).toEqual({
			receiptLifetimeMs: 3_600_000,
			aged: 1,
			forgotten: 1,
			kept: 0,
		});
		expect(await sb.control.ageReceipts(keeps.workspaceId, 3600)).toEqual({
			receiptLifetimeMs: 0,
			aged: 1,
			forgotten: 0,
			kept: 1,
		});
		const second = await prepared(w, k);
		expect(second).not.toBe(first);
		expect((await w.counters()).reportsCreated).toBe(2);
		expect(await prepared(keeps, k)).toBe(kept);
		expect((await keeps.counters()).reportsCreated).toBe(1);
	});

	test('forget drops every receipt of the workspace: the same key with a changed body is then a new write, not a conflict', async () => {
		const w = await newWs(sb);
		const k = key();
		const first = await prepared(w, k);
		expect(await sb.control.forgetReceipts(w.workspaceId)).toEqual({
			receiptLifetimeMs: 0,
			aged: 1,
			forgotten: 1,
			kept: 0,
		});
		expect((await sb.control.receipts(w.workspaceId)).items).toEqual([]);
		const second = await prepared(w, k, uploadBody(w, pdf, { fileName: 'changed.pdf' }));
		expect(second).not.toBe(first);
		expect((await w.counters()).reportsCreated).toBe(2);
	});

	test('the receipt controls name the field and rule of a bad body, and 404 an unknown workspace', async () => {
		const w = await newWs(sb);
		const age = (body: unknown, wid = w.workspaceId) =>
			http(sb.baseUrl, 'POST', `/_sandbox/workspaces/${wid}/receipts/age`, body);
		const details = async (body: unknown) =>
			((await age(body)).body.error as { details: unknown }).details;
		expect((await age({})).status).toBe(400);
		expect(await details({})).toEqual([{ field: 'seconds', rule: 'required' }]);
		expect(await details({ seconds: -1 })).toEqual([{ field: 'seconds', rule: 'minimum' }]);
		expect(await details({ seconds: 1.5 })).toEqual([{ field: 'seconds', rule: 'type_integer' }]);
		expect(await details({ seconds: 1, days: 1 })).toContainEqual({
			field: 'days',
			rule: 'unknown_field',
		});
		expect((await age({ seconds: 1 }, 'ws_unknown')).status).toBe(404);
		expect(
			(await http(sb.baseUrl, 'POST', '/_sandbox/workspaces/ws_unknown/receipts/forget')).status,
		).toBe(404);
	});
});

describe('receipt lifetime: the strict profile keeps receipts 24 hours', () => {
	let strict: TestSandbox;
	useTestSandbox((started) => (strict = started), { sandbox: { profile: 'strict' } });

	test('kept up to 24 hours (replayed), forgotten after: the same request is then a new write, and its key names the new one', async () => {
		const w = await newWs(strict);
		const k = key();
		const first = await prepared(w, k);
		const [listed] = (await strict.control.receipts(w.workspaceId)).items;
		expect(Date.parse(listed.expiresAt!) - Date.parse(listed.createdAt)).toBe(DAY_SECONDS * 1000);
		expect(await strict.control.ageReceipts(w.workspaceId, DAY_SECONDS - 1)).toEqual({
			receiptLifetimeMs: DAY_SECONDS * 1000,
			aged: 1,
			forgotten: 0,
			kept: 1,
		});
		expect(await prepared(w, k)).toBe(first);
		expect(await strict.control.ageReceipts(w.workspaceId, 1)).toEqual({
			receiptLifetimeMs: DAY_SECONDS * 1000,
			aged: 1,
			forgotten: 1,
			kept: 0,
		});
		const second = await prepared(w, k);
		expect(second).not.toBe(first);
		expect(await prepared(w, k)).toBe(second);
		const counters = await w.counters();
		expect(counters.reportsCreated).toBe(2);
		expect(counters.idempotentReplays).toBe(2);
	});

	test('a reset keeps receipts (Sandbox rules 4) and they go on ageing toward the lifetime', async () => {
		const w = await newWs(strict);
		const k = key();
		const body = uploadBody(w, pdf);
		const first = await w.call('POST', '/api/v1/uploads', { idempotencyKey: k, body });
		await strict.control.ageReceipts(w.workspaceId, DAY_SECONDS - 60);
		const { apiKey } = await strict.control.reset(w.workspaceId);
		const fresh = { baseUrl: strict.baseUrl, seed: { apiKey } };
		const replay = await api(fresh, 'POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expect(replay.status).toBe(201);
		expect(replay.body).toEqual(first.body);
		expect((await w.counters()).reportsCreated).toBe(1);
		await strict.control.ageReceipts(w.workspaceId, 60);
		const after = await api(fresh, 'POST', '/api/v1/uploads', { idempotencyKey: k, body });
		expect(after.status).toBe(201);
		expect(after.body.data.reportId).not.toBe(first.body.data.reportId);
		expect((await w.counters()).reportsCreated).toBe(2);
	});

	test('the lifetime runs on the sandbox clock: a day moved forward forgets the receipt as aging does', async () => {
		const w = await newWs(strict);
		const k = key();
		const first = await prepared(w, k);
		await strict.control.advanceClock(DAY_SECONDS * 1000);
		expect((await strict.control.receipts(w.workspaceId)).items).toEqual([]);
		expect(await prepared(w, k)).not.toBe(first);
		expect((await w.counters()).reportsCreated).toBe(2);
	});
});
