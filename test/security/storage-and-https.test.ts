/**
 * Storage and plain http, through n8n's engine against servers on this machine: the resume PUT never carries the
 * API key (not even to a storage host that asks for one), never follows a storage redirect, and is refused on a
 * plain-http URL that is not loopback unless the credential accepts plain http; a plain-http base URL on a host
 * that is not loopback is refused before sending unless Custom Base URL's "Allow Plain HTTP" is on. Loopback is a
 * literal loopback address or `localhost` itself: a `*.localhost` name resolves wherever the machine's resolver says.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../nodes/RecruitingAnalysis/transport/retry';
import { transportSettings } from '../../nodes/RecruitingAnalysis/transport';
import { PDF_MIME, makePdf } from '../fixtures/resumes';
import {
	everything,
	json,
	keptText,
	liveKey,
	nonLoopbackAddress,
	runProbe,
	startHostile,
	type HostileServer,
	type SecurityCall,
} from './helpers';

let api: HostileServer;
let storage: HostileServer;
let elsewhere: HostileServer;
/** A server reached through this machine's non-loopback address. */
let lan: HostileServer;
let lanOrigin: string;

beforeAll(async () => {
	api = await startHostile();
	storage = await startHostile();
	elsewhere = await startHostile();
	lan = await startHostile({ bind: '0.0.0.0' });
	lanOrigin = `http://${nonLoopbackAddress()}:${lan.port}`;
	transportSettings.retry = {
		...DEFAULT_RETRY_POLICY,
		maxAttempts: 2,
		baseDelayMs: 5,
		maxDelayMs: 20,
	};
});
afterAll(async () => {
	transportSettings.retry = { ...DEFAULT_RETRY_POLICY };
	await Promise.all([api.close(), storage.close(), elsewhere.close(), lan.close()]);
});
beforeEach(() => {
	for (const server of [api, storage, elsewhere, lan]) server.requests.length = 0;
	lan.handle = (_req, res) => json(res, 200, { data: { reached: true } });
	elsewhere.handle = (_req, res) => json(res, 200, {});
});

const pdf = makePdf();
const SIGNATURE = 'sig0123456789abcdef0123456789abcdef';

function uploadItem(url: string): {
	json: IDataObject;
	binary: { data: { data: Buffer; mimeType: string; fileName: string } };
} {
	const call: SecurityCall = {
		call: 'upload',
		reportId: 'rpt_storage',
		upload: {
			url,
			method: 'PUT',
			mimeType: PDF_MIME,
			sizeBytes: pdf.length,
		},
	};
	return {
		json: call as unknown as IDataObject,
		binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'resume.pdf' } },
	};
}

describe('storage never gets the key', () => {
	test('a storage host that answers 401 asking for a bearer key never receives the key', async () => {
		const key = liveKey('storage401');
		storage.handle = (_req, res, recorded) =>
			json(
				res,
				401,
				{
					error: {
						code: 'Unauthorized',
						message: `send Authorization: Bearer <key>; you sent ${everything(recorded.headers)}`,
					},
				},
				{
					'www-authenticate': 'Bearer realm="storage"',
				},
			);
		const result = await runProbe({ environment: 'custom', baseUrl: api.origin, apiKey: key }, [
			uploadItem(`${storage.origin}/bucket/rpt_storage?X-Amz-Signature=${SIGNATURE}`),
		]);
		expect(result.error).toBeDefined();
		expect(storage.requests.length).toBeGreaterThanOrEqual(1);
		for (const request of storage.requests) {
			expect(request.headers.authorization).toBeUndefined();
			expect(everything(request)).not.toContain(key);
		}
		expect(api.requests).toHaveLength(0);
		expect(keptText(result)).not.toContain(key);
		// The signed URL's signature is a bearer capability too: it is not repeated in the error.
		expect(everything(result.thrownError)).not.toContain(SIGNATURE);
		expect(everything(result.error)).not.toContain(SIGNATURE);
		// A storage 401 says nothing about the API key: n8n is not told to ask for a new credential.
		expect((result.thrownError as { failure?: unknown }).failure).toBeUndefined();
	});

	test('a storage redirect to another host is reported and not followed: the resume goes only where the API said', async () => {
		storage.handle = (_req, res) => {
			res.writeHead(307, { location: `${elsewhere.origin}/collect` });
			res.end();
		};
		const result = await runProbe(
			{ environment: 'custom', baseUrl: api.origin, apiKey: liveKey('storage307') },
			[uploadItem(`${storage.origin}/bucket/rpt_storage?X-Amz-Signature=${SIGNATURE}`)],
		);
		expect(String((result.thrownError as Error).message)).toMatch(
			new RegExp(
				`redirected the resume upload of report rpt_storage \\(307\\) to ${elsewhere.host.replace('.', '\\.')}`,
			),
		);
		expect(storage.requests).toHaveLength(1);
		expect(elsewhere.requests).toHaveLength(0);
	});
});

describe('https for production, plain http only where it is accepted', () => {
	test('with Production, a storage URL on plain http (not loopback) is refused before the resume is sent', async () => {
		const result = await runProbe({ environment: 'production', apiKey: liveKey('prodstorage') }, [
			uploadItem(`${lanOrigin}/bucket/rpt_storage?sig=${SIGNATURE}`),
		]);
		expect(result.error).toBeDefined();
		expect(String((result.thrownError as Error).message)).toMatch(/uses http, not https/);
		expect(lan.requests).toHaveLength(0);
	});

	test('with a Custom https base URL, a plain-http storage URL (not loopback) is refused before sending', async () => {
		const result = await runProbe(
			{
				environment: 'custom',
				baseUrl: 'https://api.example.test',
				apiKey: liveKey('customstorage'),
			},
			[uploadItem(`${lanOrigin}/bucket/rpt_storage?sig=${SIGNATURE}`)],
		);
		expect(String((result.thrownError as Error).message)).toMatch(/uses http, not https/);
		expect(lan.requests).toHaveLength(0);
	});

	test('a plain-http Custom base URL on a host that is not loopback is refused before sending, naming the opt-in', async () => {
		const result = await runProbe(
			{ environment: 'custom', baseUrl: lanOrigin, apiKey: liveKey('lanapi') },
			[{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } }],
		);
		const message = String((result.thrownError as Error).message);
		expect(message).toMatch(/uses plain http: the API key would travel unencrypted/);
		expect(message).toContain('Allow Plain HTTP');
		expect(lan.requests).toHaveLength(0);
	});

	test('with "Allow Plain HTTP" on, that base URL and its plain-http storage are used', async () => {
		const credentials = {
			environment: 'custom',
			baseUrl: lanOrigin,
			apiKey: liveKey('optin'),
			allowInsecureHttp: true,
		};
		const read = await runProbe(credentials, [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		expect(read.error).toBeUndefined();
		expect(read.output[0][0].json.data).toEqual({ reached: true });
		lan.handle = (_req, res) => {
			res.writeHead(200);
			res.end();
		};
		const put = await runProbe(credentials, [
			uploadItem(`${lanOrigin}/bucket/rpt_storage?sig=${SIGNATURE}`),
		]);
		expect(put.error).toBeUndefined();
		expect(lan.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
		expect(lan.requests[1].headers.authorization).toBeUndefined();
	});

	test('a plain-http Custom base URL on a *.localhost name is refused before sending, naming 127.0.0.1 and the opt-in', async () => {
		api.handle = (_req, res) => json(res, 200, { data: { ok: true } });
		const result = await runProbe(
			{
				environment: 'custom',
				baseUrl: `http://api.localhost:${api.port}`,
				apiKey: liveKey('sublocalhost'),
			},
			[{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } }],
		);
		const message = String((result.thrownError as Error).message);
		expect(message).toContain(
			`The credential's Base URL http://api.localhost:${api.port} uses plain http on the name "api.localhost"`,
		);
		expect(message).toContain(`Use http://127.0.0.1:${api.port}`);
		expect(message).toContain('"Allow Plain HTTP"');
		expect(api.requests).toHaveLength(0);
	});

	test('a loopback base URL on plain http (localhost) works without the opt-in, as saved credentials expect', async () => {
		api.handle = (_req, res) => json(res, 200, { data: { ok: true } });
		const result = await runProbe(
			{
				environment: 'custom',
				baseUrl: `http://localhost:${api.port}`,
				apiKey: liveKey('localhost'),
			},
			[{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } }],
		);
		expect(result.error).toBeUndefined();
		expect(api.requests).toHaveLength(1);
	});
});
