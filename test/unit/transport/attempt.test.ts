/**
 * One attempt of an API request (transport/attempt.ts) inside n8n's engine (harness `executeNode`, n8n-core's own
 * httpRequestWithAuthentication) over loopback HTTP. The servers stand for a proxy in front of the API: redirects,
 * answers too large or too slow, and dropped connections are what the sandbox does not send.
 */
import {
	createServer,
	type IncomingHttpHeaders,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../../credentials/RecruitingAnalysisApi.credentials';
import { refusals, sendAttempt } from '../../../nodes/RecruitingAnalysis/transport/attempt';
import { networkErrorCode } from '../../../nodes/RecruitingAnalysis/transport/retry';
import { executeNode } from '../../helpers/n8n-engine';
import { apiProbeDescription } from '../../helpers/api-probe';

interface Call {
	method: IHttpRequestMethods;
	path: string;
	headers?: IDataObject;
	qs?: IDataObject;
	body?: IDataObject;
	timeoutMs?: number;
	/** Another server to send to (the credential still names the API's). */
	url?: string;
}

/** What sendAttempt threw, as the caller (transport/index.ts, retry.ts) gets it; n8n stores its own copy. */
let thrown: unknown[] = [];

/** A test-only node: each input item is one sendAttempt with the credential n8n decrypted for the node. */
class AttemptProbe implements INodeType {
	description = apiProbeDescription(
		'Attempt Probe',
		'attemptProbe',
		'Test-only: one attempt of an API request',
	);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('recruitingAnalysisApi');
		const baseUrl = String(credentials.baseUrl);
		const out: INodeExecutionData[] = [];
		for (const [itemIndex, item] of this.getInputData().entries()) {
			const call = item.json as unknown as Call;
			const response = await sendAttempt(this, {
				config: { credentials, origin: new URL(baseUrl).origin },
				method: call.method,
				url: call.url ?? `${baseUrl}${call.path}`,
				headers: call.headers ?? {},
				qs: call.qs,
				body: call.body,
				timeoutMs: call.timeoutMs ?? 5_000,
				itemIndex,
			}).catch((error: unknown) => {
				thrown.push(error);
				throw error;
			});
			out.push({
				json: {
					statusCode: response.statusCode,
					body: response.body as IDataObject,
					requestId: String(response.headers['x-request-id'] ?? ''),
				},
			});
		}
		return [out];
	}
}

interface Received {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

type Handler = (req: Received, res: ServerResponse) => void;

interface TestServer {
	server: Server;
	baseUrl: string;
	received: Received[];
	handle: Handler;
}

async function startServer(): Promise<TestServer> {
	const state: TestServer = {
		server: undefined as unknown as Server,
		baseUrl: '',
		received: [],
		handle: (_req, res) => res.writeHead(404).end(),
	};
	state.server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const received = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			state.received.push(received);
			// The items before the one a test looks at.
			if (received.url === '/ok') res.writeHead(200).end('{}');
			else state.handle(received, res);
		});
	});
	await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
	state.baseUrl = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
	return state;
}

let api: TestServer;
let elsewhere: TestServer;

beforeAll(async () => {
	api = await startServer();
	elsewhere = await startServer();
});
afterAll(async () => {
	for (const s of [api, elsewhere]) {
		s.server.closeAllConnections();
		await new Promise((resolve) => s.server.close(resolve));
	}
});
beforeEach(() => {
	thrown = [];
	api.received = [];
	elsewhere.received = [];
	elsewhere.handle = (_req, res) => res.writeHead(200).end('{}');
});

const API_KEY = 'svc_test_attempt_key';

async function attempt(call: Call, itemsBefore = 0) {
	const items = [
		...Array.from({ length: itemsBefore }, () => ({ json: { method: 'GET', path: '/ok' } })),
		{ json: call as unknown as IDataObject },
	];
	const result = await executeNode({
		nodeType: new AttemptProbe(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: {
			recruitingAnalysisApi: { environment: 'sandbox', baseUrl: api.baseUrl, apiKey: API_KEY },
		},
		parameters: {},
		items,
	});
	return { result, output: (result.output[0] ?? []).map((i) => i.json) };
}

/** The error n8n stored for the run, with the item it names and whether the transport refused (no retry). */
async function failedAttempt(call: Call, itemsBefore = 0) {
	const { result } = await attempt(call, itemsBefore);
	const error = result.error;
	if (!error) throw new Error(`the attempt did not fail: ${JSON.stringify(result.output)}`);
	expect(thrown).toHaveLength(1);
	return {
		message: error.message,
		description: error.description,
		itemIndex: (error.context as { itemIndex?: number }).itemIndex,
		refused: refusals.has(thrown[0] as object),
		networkCode: networkErrorCode(thrown[0]),
	};
}

const json = (res: ServerResponse, status: number, body: unknown, headers: IDataObject = {}) =>
	res
		.writeHead(status, { 'content-type': 'application/json', ...(headers as IncomingHttpHeaders) })
		.end(JSON.stringify(body));

describe('an answer of the API', () => {
	it('is read whole and parsed, with its status and headers, after a request carrying the key, headers, query and body', async () => {
		api.handle = (_req, res) =>
			json(res, 201, { id: 'rpt_1', status: 'queued' }, { 'x-request-id': 'req_7' });
		const { output } = await attempt({
			method: 'POST',
			path: '/api/v1/analyses',
			headers: { 'Idempotency-Key': 'key-1', Accept: 'application/json' },
			qs: { wait: 'false' },
			body: { jobId: 'job_1' },
		});
		expect(output).toEqual([
			{ statusCode: 201, body: { id: 'rpt_1', status: 'queued' }, requestId: 'req_7' },
		]);
		expect(api.received).toHaveLength(1);
		const [sent] = api.received;
		expect(sent.method).toBe('POST');
		expect(sent.url).toBe('/api/v1/analyses?wait=false');
		expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
		expect(sent.headers['idempotency-key']).toBe('key-1');
		expect(JSON.parse(sent.body)).toEqual({ jobId: 'job_1' });
	});

	it('an error status is handed back as an answer (the caller reads its code), not thrown by n8n', async () => {
		api.handle = (_req, res) =>
			json(res, 422, { error: { code: 'VALIDATION_FAILED', message: 'jobId is required' } });
		const { result, output } = await attempt({ method: 'GET', path: '/api/v1/reports/rpt_1' });
		expect(result.error).toBeUndefined();
		// Asked for as JSON even when the caller names no Accept header.
		expect(api.received[0].headers.accept).toBe('application/json');
		// A request without a body sends none.
		expect(api.received[0].body).toBe('');
		expect(api.received[0].headers['content-type']).toBeUndefined();
		expect(output).toEqual([
			{
				statusCode: 422,
				body: { error: { code: 'VALIDATION_FAILED', message: 'jobId is required' } },
				requestId: '',
			},
		]);
	});

	it('an empty answer has no body, and an answer that is not JSON is kept as its text', async () => {
		api.handle = (req, res) =>
			req.url === '/empty' ? res.writeHead(204).end() : res.writeHead(502).end('Bad gateway');
		const empty = await attempt({ method: 'DELETE', path: '/empty' });
		expect(empty.output).toEqual([{ statusCode: 204, requestId: '' }]);
		const text = await attempt({ method: 'GET', path: '/text' });
		expect(text.output).toEqual([{ statusCode: 502, body: 'Bad gateway', requestId: '' }]);
	});

	it('an answer larger than 16 MiB is refused unread, naming the request, and not retried', async () => {
		api.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
		};
		const failed = await failedAttempt({ method: 'GET', path: '/api/v1/events' }, 1);
		expect(failed.message).toBe(
			'The answer to GET /api/v1/events was larger than 16 MiB and was not read',
		);
		expect(failed.description).toMatch(/^No answer of the Recruiting Analysis API comes near/);
		expect(failed.itemIndex).toBe(1);
		expect(failed.refused).toBe(true);
	});

	it('an answer of exactly 16 MiB is read', async () => {
		const body = Buffer.alloc(16 * 1024 * 1024, 0x20);
		body.write('"x"', 0);
		api.handle = (_req, res) => res.writeHead(200).end(body);
		const { output } = await attempt({ method: 'GET', path: '/api/v1/events' });
		expect(output).toEqual([
			{ statusCode: 200, body: 'x' as unknown as IDataObject, requestId: '' },
		]);
	});
});

describe('an attempt that gets no whole answer is a network failure retry.ts retries', () => {
	it('an API that sends nothing fails at the deadline, as a timeout', async () => {
		api.handle = () => undefined;
		const started = Date.now();
		const failed = await failedAttempt({ method: 'GET', path: '/hangs', timeoutMs: 400 }, 1);
		expect(Date.now() - started).toBeLessThan(3_000);
		expect(failed.refused).toBe(false);
		expect(failed.networkCode).toMatch(/^(?:ETIMEDOUT|ECONNABORTED)$/);
	});

	it('an answer whose body stops arriving fails at the deadline, as ETIMEDOUT, for the item that sent it', async () => {
		api.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"data": [');
		};
		const started = Date.now();
		const failed = await failedAttempt({ method: 'GET', path: '/stalls', timeoutMs: 400 }, 1);
		expect(Date.now() - started).toBeLessThan(3_000);
		expect(failed.refused).toBe(false);
		expect(failed.networkCode).toBe('ETIMEDOUT');
		expect(failed.itemIndex).toBe(1);
	});

	it('a connection dropped in the middle of the body is a network failure, not a refusal', async () => {
		api.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
			res.write('{"data": [', () => res.destroy());
		};
		const failed = await failedAttempt({ method: 'GET', path: '/drops' }, 2);
		expect(failed.refused).toBe(false);
		expect(failed.networkCode).toBeDefined();
		expect(failed.itemIndex).toBe(2);
	});
});

describe('redirects', () => {
	it('a same-origin 307 of a write is followed with its method, body and key, and the first query is not sent again', async () => {
		api.handle = (req, res) =>
			req.url?.startsWith('/old')
				? res.writeHead(307, { location: '/api/v1/analyses?page=2' }).end()
				: json(res, 201, { id: 'rpt_2' });
		const { output } = await attempt({
			method: 'POST',
			path: '/old',
			qs: { wait: 'false' },
			body: { jobId: 'job_2' },
		});
		expect(output).toEqual([{ statusCode: 201, body: { id: 'rpt_2' }, requestId: '' }]);
		expect(api.received.map((r) => [r.method, r.url, r.body, r.headers.authorization])).toEqual([
			['POST', '/old?wait=false', '{"jobId":"job_2"}', `Bearer ${API_KEY}`],
			['POST', '/api/v1/analyses?page=2', '{"jobId":"job_2"}', `Bearer ${API_KEY}`],
		]);
	});

	it('a redirect to a fragment of the same address keeps the query the request was sent with', async () => {
		api.handle = (req, res) =>
			api.received.length === 1
				? res.writeHead(307, { location: '#top' }).end()
				: json(res, 200, { url: req.url });
		const { output } = await attempt({
			method: 'GET',
			path: '/api/v1/reports',
			qs: { limit: 5, status: 'completed', cursor: undefined, jobId: null },
		});
		expect(output).toEqual([
			{ statusCode: 200, body: { url: '/api/v1/reports?limit=5&status=completed' }, requestId: '' },
		]);
	});

	it('five redirects within the origin are followed; a sixth is refused and not retried', async () => {
		api.handle = (req, res) => {
			const hop = Number(/hop=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
			if (req.url?.startsWith('/loop'))
				res.writeHead(302, { location: `/loop?hop=${hop + 1}` }).end();
			else json(res, 200, {});
		};
		const failed = await failedAttempt({ method: 'GET', path: '/loop' });
		expect(failed.message).toBe(
			'The Recruiting Analysis API redirected GET /loop more than 5 times',
		);
		expect(failed.refused).toBe(true);
		expect(api.received).toHaveLength(6);

		api.received = [];
		api.handle = (req, res) => {
			const hop = Number(/hop=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
			if (hop < 5) res.writeHead(302, { location: `/loop?hop=${hop + 1}` }).end();
			else json(res, 200, { hops: hop });
		};
		const { output } = await attempt({ method: 'GET', path: '/loop' });
		expect(output).toEqual([{ statusCode: 200, body: { hops: 5 }, requestId: '' }]);
		expect(api.received).toHaveLength(6);
	});

	it('a redirect to another origin is refused for the item that sent it: nothing, and no key, reaches it', async () => {
		api.handle = (_req, res) =>
			res.writeHead(307, { location: `${elsewhere.baseUrl}/api/v1/analyses` }).end();
		const failed = await failedAttempt(
			{ method: 'POST', path: '/api/v1/analyses', body: { jobId: 'job_3' } },
			1,
		);
		expect(failed.message).toBe(
			`Refused a redirect of POST /api/v1/analyses to another host: ${new URL(elsewhere.baseUrl).host}`,
		);
		expect(failed.refused).toBe(true);
		expect(failed.itemIndex).toBe(1);
		expect(elsewhere.received).toEqual([]);
	});

	it('a 303 of a write is refused rather than turned into a GET', async () => {
		api.handle = (req, res) =>
			req.url === '/write' ? res.writeHead(303, { location: '/read' }).end() : json(res, 200, {});
		const failed = await failedAttempt({ method: 'POST', path: '/write', body: { a: 1 } });
		expect(failed.message).toBe(
			'Refused a 303 redirect of POST /write: it would turn the write into a GET',
		);
		expect(failed.refused).toBe(true);
		expect(api.received.map((r) => r.url)).toEqual(['/write']);
	});

	it('a redirect without a target is refused, naming the request', async () => {
		api.handle = (_req, res) => res.writeHead(301).end();
		const failed = await failedAttempt({ method: 'GET', path: '/nowhere', qs: { limit: 5 } });
		expect(failed.message).toBe(
			'The Recruiting Analysis API answered GET /nowhere with a redirect (301) without a target',
		);
		expect(failed.refused).toBe(true);
	});
});
