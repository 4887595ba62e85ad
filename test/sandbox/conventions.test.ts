/**
 * Conventions, authentication and paging: bearer keys bound to one workspace with scopes and expiry,
 * X-Request-Id + Cache-Control on every response, 405 + Allow, path id and paging limits, signed cursors.
 */
import { makePdf } from '../fixtures/resumes';
import { api, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { expectError, expectInvalid, newWs, prepare, useSandboxWs, type Ws } from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WWW = 'Bearer realm="recruiting-analysis", error="invalid_token"';

describe('authentication', () => {
	test('a request without a key is 401 with WWW-Authenticate', async () => {
		const res = await api(sb, 'GET', '/api/v1/reports', { key: null });
		expectError(res, 401);
		expect(res.headers.get('www-authenticate')).toBe(WWW);
	});
	test('an unknown key is 401', async () => {
		const res = await api(sb, 'GET', '/api/v1/reports', { key: 'svc_test_unknown' });
		expectError(res, 401);
		expect(res.headers.get('www-authenticate')).toBe(WWW);
	});
	test('keys that do not start with svc_test_ are refused', async () => {
		const res = await api(sb, 'GET', '/api/v1/reports', {
			key: ws.apiKey.replace('svc_test_', 'svc_live_'),
		});
		expectError(res, 401);
		expect(res.headers.get('www-authenticate')).toBe(WWW);
	});
	test('a revoked key is 401', async () => {
		const { apiKey } = await sb.control.createKey(ws.workspaceId);
		expect((await api(sb, 'GET', '/api/v1/reports', { key: apiKey })).status).toBe(200);
		await sb.control.revokeKey(apiKey);
		const res = await api(sb, 'GET', '/api/v1/reports', { key: apiKey });
		expectError(res, 401);
		expect(res.headers.get('www-authenticate')).toBe(WWW);
	});
	test('an expired key is 401 (expiry 1 to 365 days)', async () => {
		const w = await newWs(sb, { keyExpiresInDays: 1 });
		expect((await w.call('GET', '/api/v1/reports')).status).toBe(200);
		const { apiKey: longKey } = await sb.control.createKey(w.workspaceId, { expiresInDays: 365 });
		await sb.control.advanceClock(24 * 3600_000 + 1000);
		expectError(await w.call('GET', '/api/v1/reports'), 401);
		expect((await api(sb, 'GET', '/api/v1/reports', { key: longKey })).status).toBe(200);
		await expect(sb.control.createKey(w.workspaceId, { expiresInDays: 366 })).rejects.toThrow(
			/400/,
		);
	});
	test('a workspace has at most ten active keys', async () => {
		const w = await newWs(sb);
		for (let i = 0; i < 9; i += 1) await sb.control.createKey(w.workspaceId);
		await expect(sb.control.createKey(w.workspaceId)).rejects.toThrow(/409/);
	});
	test('a missing scope is 403 MISSING_SCOPE with requiredScopes; analyses:write alone does not grant report reads', async () => {
		const w = await newWs(sb, { scopes: ['analyses:write'] });
		const before = await w.counters();
		const res = await w.call('GET', '/api/v1/reports');
		expectError(res, 403, 'MISSING_SCOPE');
		expect(res.body.error.requiredScopes).toEqual(['reports:read']);
		expect(
			(
				await w.call('POST', '/api/v1/uploads', {
					idempotencyKey: 'scoped-ok',
					body: {
						fileName: 'a.pdf',
						fileSize: 10,
						mimeType: 'application/pdf',
						jobDescription: { kind: 'text', text: 'x' },
					},
				})
			).status,
		).toBe(201);
		const denied = await w.call('POST', '/api/v1/interview-quotes', {
			body: { reportId: 'rpt_x', candidateEmail: 'a@example.com' },
		});
		expectError(denied, 403, 'MISSING_SCOPE');
		expect(denied.body.error.requiredScopes).toEqual(['interviews:write']);
		expect((await w.counters()).reportsCreated).toBe(before.reportsCreated + 1);
	});
	test('a disabled workspace is 403 WORKSPACE_DISABLED', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { disabled: true });
		expectError(await w.call('GET', '/api/v1/job-descriptions'), 403, 'WORKSPACE_DISABLED');
		await sb.control.patchWorkspace(w.workspaceId, { disabled: false });
		expect((await w.call('GET', '/api/v1/job-descriptions')).status).toBe(200);
	});
	test('a key never reaches another workspace: its resources are 404', async () => {
		const other = await newWs(sb);
		const p = await prepare(other, makePdf());
		expectError(await ws.call('GET', `/api/v1/reports/${p.reportId}`), 404);
		expectError(await ws.call('GET', `/api/v1/job-descriptions/${other.jobDescriptionId}`), 404);
		expectError(await ws.call('POST', `/api/v1/uploads/${p.reportId}/url`), 404);
	});
});

describe('conventions', () => {
	test('every response carries a UUID X-Request-Id and Cache-Control: no-store', async () => {
		for (const res of [
			await ws.call('GET', '/api/v1/job-descriptions'),
			await ws.call('GET', '/api/v1/reports/nope'),
			await api(sb, 'GET', '/api/v1/events', { key: null }),
		]) {
			expect(res.headers.get('x-request-id')).toMatch(UUID);
			expect(res.headers.get('cache-control')).toBe('no-store');
		}
	});
	test('success responses wrap the payload as {data}', async () => {
		const res = await ws.call('GET', `/api/v1/job-descriptions/${ws.jobDescriptionId}`);
		expect(Object.keys(res.body)).toEqual(['data']);
	});
	test('an unsupported method is 405 with Allow', async () => {
		const res = await ws.call('DELETE', '/api/v1/reports');
		expectError(res, 405);
		expect(res.headers.get('allow')).toBe('GET');
		const res2 = await ws.call('GET', '/api/v1/uploads');
		expectError(res2, 405);
		expect(res2.headers.get('allow')).toBe('POST');
	});
	test('path id length is 1 to 100', async () => {
		expectInvalid(await ws.call('GET', `/api/v1/reports/${'r'.repeat(101)}`), 'id', 'max_length');
		expectError(await ws.call('GET', `/api/v1/reports/${'r'.repeat(100)}`), 404);
	});
	test('a body that is not JSON is 400', async () => {
		expectInvalid(
			await ws.call('POST', '/api/v1/analysis-quotes', { rawBody: '{"reportId":' }),
			'body',
			'json',
		);
	});
});

describe('paging', () => {
	test('limit is 1 to 100', async () => {
		expectInvalid(await ws.call('GET', '/api/v1/reports?limit=0'), 'limit', 'minimum');
		expectInvalid(await ws.call('GET', '/api/v1/reports?limit=101'), 'limit', 'maximum');
		expectInvalid(
			await ws.call('GET', '/api/v1/job-descriptions?limit=ten'),
			'limit',
			'type_integer',
		);
		expect((await ws.call('GET', '/api/v1/reports?limit=100')).status).toBe(200);
	});
	test('limit defaults to 25', async () => {
		const w = await newWs(sb);
		for (let i = 0; i < 26; i += 1) await prepare(w, makePdf());
		const page = await w.call('GET', '/api/v1/reports');
		expect(page.body.data.items).toHaveLength(25);
		expect(page.body.data.nextCursor).toEqual(expect.any(String));
	});
	test('cursor length is 1 to 2048', async () => {
		expectInvalid(
			await ws.call('GET', `/api/v1/reports?cursor=${'c'.repeat(2049)}`),
			'cursor',
			'max_length',
		);
	});

	async function firstCursor(w: Ws, path: string): Promise<string> {
		for (let i = 0; i < 3; i += 1) await prepare(w, makePdf());
		const page = await w.call('GET', path);
		expect(page.body.data.nextCursor).toEqual(expect.any(String));
		return page.body.data.nextCursor;
	}

	test('a tampered cursor is INVALID_CURSOR', async () => {
		const w = await newWs(sb);
		const c = await firstCursor(w, '/api/v1/reports?limit=1');
		const parts = c.split('.');
		const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
		payload.p[0] += 1;
		const forged = `${parts[0]}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${parts[2]}`;
		expectError(
			await w.call('GET', `/api/v1/reports?limit=1&cursor=${encodeURIComponent(forged)}`),
			400,
			'INVALID_CURSOR',
		);
	});
	test('a cursor used with changed filters is INVALID_CURSOR', async () => {
		const w = await newWs(sb);
		const c = await firstCursor(w, '/api/v1/reports?limit=1');
		expectError(
			await w.call(
				'GET',
				`/api/v1/reports?limit=1&include=reference&cursor=${encodeURIComponent(c)}`,
			),
			400,
			'INVALID_CURSOR',
		);
		expect(
			(await w.call('GET', `/api/v1/reports?limit=2&cursor=${encodeURIComponent(c)}`)).status,
		).toBe(200);
	});
	test('a cursor of another workspace is INVALID_CURSOR', async () => {
		const w = await newWs(sb);
		const c = await firstCursor(w, '/api/v1/reports?limit=1');
		expectError(
			await ws.call('GET', `/api/v1/reports?limit=1&cursor=${encodeURIComponent(c)}`),
			400,
			'INVALID_CURSOR',
		);
	});
	test('cursors of an older unsigned scheme are rejected', async () => {
		const unsigned = Buffer.from(JSON.stringify({ offset: 25 })).toString('base64url');
		expectError(await ws.call('GET', `/api/v1/reports?cursor=${unsigned}`), 400, 'INVALID_CURSOR');
	});
});

describe('job descriptions', () => {
	test('list and get return every field of the job description', async () => {
		const list = await ws.call('GET', '/api/v1/job-descriptions');
		expect(list.status).toBe(200);
		expect(list.body.data.nextCursor).toBeNull();
		const job = list.body.data.items.find((j: { id: string }) => j.id === ws.jobDescriptionId);
		expect(Object.keys(job).sort()).toEqual([
			'company',
			'createdAt',
			'description',
			'employmentType',
			'id',
			'level',
			'location',
			'revision',
			'status',
			'team',
			'title',
			'updatedAt',
		]);
		expect(job.revision).toMatch(/^[a-f0-9]{64}$/);
		expect(job.status).toBe('ACTIVE');
		expect(
			(await ws.call('GET', `/api/v1/job-descriptions/${ws.jobDescriptionId}`)).body.data,
		).toEqual(job);
	});
	test('revise gives a new revision; deactivate makes the job INACTIVE', async () => {
		const job = await sb.control.createJob(ws.workspaceId, { title: 'Revisable' });
		const revised = await sb.control.reviseJob(job.id, { description: 'changed' });
		expect(revised.revision).not.toBe(job.revision);
		await sb.control.deactivateJob(job.id);
		expect((await ws.call('GET', `/api/v1/job-descriptions/${job.id}`)).body.data.status).toBe(
			'INACTIVE',
		);
	});
	test('job-descriptions:read is required', async () => {
		const w = await newWs(sb, { scopes: ['reports:read'] });
		expectError(await w.call('GET', '/api/v1/job-descriptions'), 403, 'MISSING_SCOPE');
	});
});

describe('browser callers (sandbox rule 5)', () => {
	test('only the configured documentation origin may call from a browser, without credentials', async () => {
		const docs = await startTestSandbox({ docsOrigin: 'https://docs.example.test' });
		try {
			const other = await api(docs, 'GET', '/api/v1/job-descriptions', {
				headers: { origin: 'https://evil.example' },
			});
			expectError(other, 403, 'ORIGIN_NOT_ALLOWED');
			const ok = await api(docs, 'GET', '/api/v1/job-descriptions', {
				headers: { origin: 'https://docs.example.test' },
			});
			expect(ok.status).toBe(200);
			expect(ok.headers.get('access-control-allow-origin')).toBe('https://docs.example.test');
			expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
			const preflight = await fetch(`${docs.baseUrl}/api/v1/uploads`, {
				method: 'OPTIONS',
				headers: { origin: 'https://docs.example.test', 'access-control-request-method': 'POST' },
			});
			expect(preflight.status).toBe(204);
			expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
		} finally {
			await docs.close();
		}
	});
});
