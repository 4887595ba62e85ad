/**
 * Redirects of API requests, through n8n's engine (real request helpers) against recording servers on 127.0.0.1:
 * the API key goes only to the credential's origin. A redirect to another origin, or from https to http, is refused
 * with the host named; a same-origin redirect that keeps the method and body is followed (docs/security.md).
 */
import type { IDataObject } from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { DEFAULT_RETRY_POLICY } from '../../nodes/RecruitingAnalysis/transport/retry';
import { transportSettings } from '../../nodes/RecruitingAnalysis/transport';
import { executeNode } from '../helpers/n8n-engine';
import {
	json,
	keptText,
	liveKey,
	runProbe,
	startHostile,
	trustTestCertificate,
	type HostileServer,
} from './helpers';

let api: HostileServer;
let other: HostileServer;
let tlsApi: HostileServer;
let untrust: () => void;

beforeAll(async () => {
	// The https server's certificate is self-signed (helpers.ts); this process's https clients trust it.
	untrust = trustTestCertificate();
	api = await startHostile();
	other = await startHostile();
	tlsApi = await startHostile({ tls: true });
	transportSettings.retry = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 5, maxDelayMs: 20 };
});
afterAll(async () => {
	transportSettings.retry = { ...DEFAULT_RETRY_POLICY };
	untrust();
	await Promise.all([api.close(), other.close(), tlsApi.close()]);
});
beforeEach(() => {
	for (const server of [api, other, tlsApi]) server.requests.length = 0;
	other.handle = (_req, res) => json(res, 200, { data: { stolen: true } });
});

const credentialsFor = (server: HostileServer, apiKey: string) => ({
	environment: 'custom',
	baseUrl: server.origin,
	apiKey,
});

function errorText(result: { thrownError?: unknown }): { message: string; description: string } {
	const e = result.thrownError as { message?: string; description?: string } | undefined;
	return { message: String(e?.message ?? ''), description: String(e?.description ?? '') };
}

describe('redirects of API requests', () => {
	test('a 307 of a read to another origin is refused naming that host, and that host never sees the key', async () => {
		const key = liveKey('read307');
		api.handle = (_req, res) => {
			res.writeHead(307, { location: `${other.origin}/api/v1/job-descriptions/jd_1` });
			res.end();
		};
		const result = await runProbe(credentialsFor(api, key), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/job-descriptions/jd_1' } },
		]);
		expect(result.error).toBeDefined();
		const { message, description } = errorText(result);
		expect(message).toContain(other.host);
		expect(message).toMatch(/another host/);
		expect(description).toContain('Custom Base URL');
		expect(other.requests).toHaveLength(0);
		// A refusal is not retried: the API saw one request.
		expect(api.requests).toHaveLength(1);
		expect(keptText(result)).not.toContain(key);
	});

	test('a 307 of a charged write to another origin is refused: neither the key, the body nor the Idempotency-Key reach that host', async () => {
		const key = liveKey('write307');
		api.handle = (_req, res) => {
			res.writeHead(307, { location: `${other.origin}/api/v1/analyses` });
			res.end();
		};
		const result = await runProbe(credentialsFor(api, key), [
			{
				call: 'api',
				options: {
					method: 'POST',
					path: '/api/v1/analyses',
					body: { reportId: 'rpt_1', quoteFingerprint: 'f'.repeat(64) },
					idempotencyKey: 'idem-write-307',
				},
			},
		]);
		expect(errorText(result).message).toContain(other.host);
		expect(other.requests).toHaveLength(0);
		expect(api.requests).toHaveLength(1);
		expect(api.requests[0].headers.authorization).toBe(`Bearer ${key}`);
	});

	test('a 302 of a read within the same origin is followed, with the key, to the data', async () => {
		const key = liveKey('same302');
		api.handle = (req, res) => {
			if (req.url?.startsWith('/api/v1/job-descriptions/old')) {
				res.writeHead(302, { location: '/api/v1/job-descriptions/new?x=1' });
				res.end();
				return;
			}
			json(res, 200, { data: { id: 'jd_new', title: 'Moved' } });
		};
		const result = await runProbe(credentialsFor(api, key), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/job-descriptions/old' } },
		]);
		expect(result.error).toBeUndefined();
		expect((result.output[0][0].json.data as IDataObject).id).toBe('jd_new');
		expect(api.requests.map((r) => r.url)).toEqual([
			'/api/v1/job-descriptions/old',
			'/api/v1/job-descriptions/new?x=1',
		]);
		expect(api.requests.every((r) => r.headers.authorization === `Bearer ${key}`)).toBe(true);
	});

	test('a 308 of a write within the same origin keeps the method, the body and the Idempotency-Key', async () => {
		const key = liveKey('same308');
		api.handle = (req, res) => {
			if (req.url === '/api/v1/uploads') {
				res.writeHead(308, { location: '/api/v1/uploads/' });
				res.end();
				return;
			}
			json(res, 201, { data: { reportId: 'rpt_moved' } });
		};
		const body = { fileName: 'a.pdf', fileSize: 10, mimeType: 'application/pdf' };
		const result = await runProbe(credentialsFor(api, key), [
			{
				call: 'api',
				options: { method: 'POST', path: '/api/v1/uploads', body, idempotencyKey: 'idem-308' },
			},
		]);
		expect(result.error).toBeUndefined();
		expect(api.requests).toHaveLength(2);
		const [, second] = api.requests;
		expect(second.method).toBe('POST');
		expect(second.url).toBe('/api/v1/uploads/');
		expect(JSON.parse(second.body)).toEqual(body);
		expect(second.headers['idempotency-key']).toBe('idem-308');
	});

	test('a 303 of a write is refused instead of being turned into a GET', async () => {
		api.handle = (req, res) => {
			if (req.method === 'POST') {
				res.writeHead(303, { location: '/api/v1/somewhere-else' });
				res.end();
				return;
			}
			json(res, 200, { data: { got: 'a GET' } });
		};
		const result = await runProbe(credentialsFor(api, liveKey('see303')), [
			{
				call: 'api',
				options: {
					method: 'POST',
					path: '/api/v1/interviews',
					body: { reportId: 'rpt_1' },
					idempotencyKey: 'idem-303',
				},
			},
		]);
		expect(result.error).toBeDefined();
		expect(errorText(result).message).toMatch(/303.*would turn the write into a GET/);
		expect(api.requests.map((r) => r.method)).toEqual(['POST']);
	});

	test('an https API redirecting to http on the same host is refused, and nothing arrives over http', async () => {
		const key = liveKey('downgrade');
		tlsApi.handle = (_req, res) => {
			res.writeHead(301, { location: `${other.origin}/api/v1/reports` });
			res.end();
		};
		const result = await runProbe(credentialsFor(tlsApi, key), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		expect(result.error).toBeDefined();
		expect(errorText(result).message).toMatch(/from https to http/);
		expect(errorText(result).message).toContain(other.host);
		expect(tlsApi.requests).toHaveLength(1);
		expect(other.requests).toHaveLength(0);
	});

	test('a redirect loop within the same origin stops after 5 redirects', async () => {
		api.handle = (req, res) => {
			const n = Number(/n=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
			res.writeHead(307, { location: `/api/v1/reports?n=${n + 1}` });
			res.end();
		};
		const result = await runProbe(credentialsFor(api, liveKey('loop')), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		expect(errorText(result).message).toMatch(
			/redirected GET \/api\/v1\/reports more than 5 times/,
		);
		expect(api.requests).toHaveLength(6);
	});

	test('the action node (Job Description > Get) names the foreign host in its error item, and the key reaches only the API', async () => {
		const key = liveKey('node');
		api.handle = (_req, res) => {
			res.writeHead(302, { location: `${other.origin}/collect` });
			res.end();
		};
		const result = await executeNode({
			nodeType: new RecruitingAnalysis(),
			credentialTypes: [new RecruitingAnalysisApi()],
			credentials: { recruitingAnalysisApi: credentialsFor(api, key) },
			parameters: { resource: 'jobDescription', operation: 'get', jobDescriptionId: 'jd_1' },
			items: [{ json: {} }],
			continueOnFail: true,
		});
		const item = result.output[0]?.[0]?.json ?? {};
		expect(JSON.stringify(item)).toContain(other.host);
		expect(other.requests).toHaveLength(0);
		expect(api.requests.length).toBeGreaterThanOrEqual(1);
		expect(keptText(result)).not.toContain(key);
	});
});
