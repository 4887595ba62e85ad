/**
 * The transport inside n8n's engine (harness `executeNode`: WorkflowExecute from n8n-core, real request helpers,
 * real BinaryDataService) against the sandbox over loopback HTTP, through a test-only node (probe-node.ts).
 * Faults come from the sandbox's fault injection; outcomes are read from the sandbox's counters and its record of
 * every response it sent.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	RecruitingAnalysisApi,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { REASON_HINTS } from '../../../nodes/RecruitingAnalysis/transport/errors';
import { REQUEST_TIMEOUT_MS, transportSettings } from '../../../nodes/RecruitingAnalysis/transport';
import { DOCX_MIME, makeDocx, makePdf, PDF_MIME } from '../../fixtures/resumes';
import { executeNode, type ExecuteNodeOptions, type InputItem } from '../../helpers/n8n-engine';
import {
	api,
	startTestSandbox,
	storageErrorOf,
	type TestSandbox,
	type WorkspaceInfo,
} from '../../helpers/sandbox';
import { TransportProbe, type ProbeCall } from './probe-node';

let sb: TestSandbox;

beforeAll(async () => {
	sb = await startTestSandbox({ recordResponses: true });
});
afterAll(async () => {
	await sb.close();
});
afterEach(async () => {
	await sb.control.clearFaults();
});

function credentialsFor(
	ws: { apiKey: string },
	environment = 'sandbox',
): ICredentialDataDecryptedObject {
	return { environment, baseUrl: sb.baseUrl, apiKey: ws.apiKey };
}

async function run(
	ws: { apiKey: string },
	calls: Array<ProbeCall | InputItem>,
	extra: Partial<ExecuteNodeOptions> & { credentials?: ExecuteNodeOptions['credentials'] } = {},
) {
	const items: InputItem[] = calls.map((c) =>
		'call' in c ? { json: c as unknown as IDataObject } : c,
	);
	return await executeNode({
		nodeType: new TransportProbe(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: { recruitingAnalysisApi: credentialsFor(ws) },
		parameters: {},
		items,
		...extra,
	});
}

function outputJson(result: { output: INodeExecutionData[][] }): IDataObject[] {
	return (result.output[0] ?? []).map((item) => item.json);
}

/** Responses the sandbox sent for a route since `from` (an index into sb.responses). */
function responsesFor(method: string, route: string, from = 0) {
	return sb.responses.slice(from).filter((r) => r.method === method && r.route === route);
}

function uploadInput(
	ws: WorkspaceInfo,
	fileName: string,
	fileSize: number,
	mimeType: string,
): IDataObject {
	return {
		fileName,
		fileSize,
		mimeType,
		jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
	};
}

describe('retries', () => {
	test('a 503 then success: the GET is retried once and returns the data', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [{ method: 'GET', path: '/api/v1/job-descriptions/{id}', status: 503, count: 1 }],
		});
		const from = sb.responses.length;
		const result = await run(ws, [
			{
				call: 'apiRequest',
				options: { method: 'GET', path: `/api/v1/job-descriptions/${ws.jobDescriptionId}` },
			},
		]);
		expect(result.error).toBeUndefined();
		expect((outputJson(result)[0].data as IDataObject).id).toBe(ws.jobDescriptionId);
		expect(responsesFor('GET', '/api/v1/job-descriptions/{id}', from).map((r) => r.status)).toEqual(
			[503, 200],
		);
	});

	test('a committed write whose connection is dropped is retried with the same key: exactly one resource', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [{ method: 'POST', path: '/api/v1/uploads', mode: 'commit-then-drop', count: 1 }],
		});
		const result = await run(ws, [
			{
				call: 'apiRequest',
				keyFor: 'upload.prepare',
				options: {
					method: 'POST',
					path: '/api/v1/uploads',
					body: uploadInput(ws, 'ada.pdf', 1234, PDF_MIME),
				},
			},
		]);
		expect(result.error).toBeUndefined();
		const [out] = outputJson(result);
		expect((out.data as IDataObject).reportId).toMatch(/^rpt_/);
		const counters = await sb.control.counters(ws.workspaceId);
		expect(counters.requests['POST /api/v1/uploads']).toBe(2);
		expect(counters.reportsCreated).toBe(1);
		expect(counters.preparationsCreated).toBe(1);
		expect(counters.idempotentReplays).toBe(1);
	});

	test('a write that times out is retried with its key and ends with exactly one resource', async () => {
		const ws = await sb.control.createWorkspace({});
		// The sandbox holds the first request 800 ms before processing it; the client gives up after 300 ms.
		await sb.control.setFaults({
			rules: [
				{ method: 'POST', path: '/api/v1/uploads', mode: 'latency', latencyMs: 800, count: 1 },
			],
		});
		transportSettings.requestTimeoutMs = 300;
		const started = Date.now();
		try {
			const result = await run(ws, [
				{
					call: 'apiRequest',
					keyFor: 'upload.prepare',
					options: {
						method: 'POST',
						path: '/api/v1/uploads',
						body: uploadInput(ws, 'slow.pdf', 999, PDF_MIME),
					},
				},
			]);
			expect(result.error).toBeUndefined();
			expect((outputJson(result)[0].data as IDataObject).reportId).toMatch(/^rpt_/);
			expect(Date.now() - started).toBeGreaterThanOrEqual(300);
		} finally {
			transportSettings.requestTimeoutMs = REQUEST_TIMEOUT_MS;
		}
		// Let the held first request end on the server (processed late or dropped) before reading the counters.
		await new Promise((resolve) => setTimeout(resolve, 900));
		const counters = await sb.control.counters(ws.workspaceId);
		expect(counters.reportsCreated).toBe(1);
		expect(counters.preparationsCreated).toBe(1);
	});

	test('an unreachable API: a GET is retried, then reported with the attempts made', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const port = (closed.address() as AddressInfo).port;
		await new Promise((resolve) => closed.close(resolve));
		const ws = await sb.control.createWorkspace({});
		const result = await run(
			ws,
			[{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } }],
			{
				credentials: {
					recruitingAnalysisApi: {
						environment: 'custom',
						baseUrl: `http://127.0.0.1:${port}`,
						apiKey: ws.apiKey,
					},
				},
			},
		);
		// The error n8n stores with the execution (what the user sees and what is saved), not a copy of it.
		const stored = result.run.data.resultData.error;
		expect(stored).toBeDefined();
		expect(stored?.name).toBe('NodeApiError');
		expect(stored?.message).toBe(
			'Could not get an answer from the Recruiting Analysis API for GET /api/v1/reports',
		);
		expect(stored?.description).toMatch(/Network error ECONNREFUSED after 4 attempts/);
		expect(
			JSON.stringify({
				error: stored,
				message: stored?.message,
				description: stored?.description,
				run: result.run.data.resultData,
			}),
		).not.toContain(ws.apiKey);
	});

	test('429 with Retry-After: the retry waits at least the seconds asked for', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [
				{ method: 'GET', path: '/api/v1/reports', status: 429, retryAfterSeconds: 1, count: 1 },
			],
		});
		const from = sb.responses.length;
		const started = Date.now();
		const result = await run(ws, [
			{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		expect(outputJson(result)[0].data).toMatchObject({ items: [] });
		expect(responsesFor('GET', '/api/v1/reports', from).map((r) => r.status)).toEqual([429, 200]);
		expect(elapsed).toBeGreaterThanOrEqual(1000);
	});

	test('a Retry-After longer than the policy allows is reported at once, as a 429 NodeApiError', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [
				{ method: 'GET', path: '/api/v1/reports', status: 429, retryAfterSeconds: 3600, count: 5 },
			],
		});
		const from = sb.responses.length;
		const result = await run(
			ws,
			[{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } }],
			{
				continueOnFail: true,
			},
		);
		const [out] = outputJson(result);
		expect(out.httpCode).toBe('429');
		expect(out.errorClass).toBe('NodeApiError');
		expect(out.error).toMatch(/429 TOO_MANY_REQUESTS/);
		expect((out.apiError as IDataObject).retryAfterMs).toBe(3_600_000);
		expect(responsesFor('GET', '/api/v1/reports', from)).toHaveLength(1);
	});

	test('persistent 5xx: the retries are capped and the error says so', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [{ method: 'GET', path: '/api/v1/reports', status: 500, count: 10 }],
		});
		const from = sb.responses.length;
		const result = await run(
			ws,
			[{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } }],
			{
				continueOnFail: true,
			},
		);
		const [out] = outputJson(result);
		expect(out.httpCode).toBe('500');
		expect(out.description).toMatch(/already retried 3 times/);
		expect(responsesFor('GET', '/api/v1/reports', from)).toHaveLength(4);
	});

	test('a write without an Idempotency-Key is never retried', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.setFaults({
			rules: [{ method: 'POST', path: '/api/v1/analyses', status: 503, count: 5 }],
		});
		const from = sb.responses.length;
		const result = await run(
			ws,
			[
				{
					call: 'apiRequest',
					options: {
						method: 'POST',
						path: '/api/v1/analyses',
						body: { reportId: 'rpt_x', quoteFingerprint: 'a'.repeat(64) },
					},
				},
			],
			{ continueOnFail: true },
		);
		expect(outputJson(result)[0].httpCode).toBe('503');
		expect(responsesFor('POST', '/api/v1/analyses', from)).toHaveLength(1);
	});
});

describe('errors', () => {
	test('an API error becomes a NodeApiError with status, code, reason, request id and the recovery hint', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.patchWorkspace(ws.workspaceId, { pendingUploadLimit: 1 });
		const prepare = (name: string): ProbeCall => ({
			call: 'apiRequest',
			keyFor: 'upload.prepare',
			options: {
				method: 'POST',
				path: '/api/v1/uploads',
				body: uploadInput(ws, name, 100, PDF_MIME),
			},
		});
		const from = sb.responses.length;
		const result = await run(ws, [prepare('a.pdf'), prepare('b.pdf')], { continueOnFail: true });
		const [first, second] = outputJson(result);
		expect((first.data as IDataObject).reportId).toMatch(/^rpt_/);
		expect(second.errorClass).toBe('NodeApiError');
		expect(second.httpCode).toBe('409');
		expect(second.itemIndex).toBe(1);
		expect(second.error).toMatch(/409 CONFLICT \(PENDING_UPLOAD_LIMIT\)/);
		expect(second.description).toContain(REASON_HINTS.PENDING_UPLOAD_LIMIT);
		const sent = responsesFor('POST', '/api/v1/uploads', from).find((r) => r.status === 409);
		const requestId = (sent?.body as { error: { requestId: string } }).error.requestId;
		expect(second.description).toContain(`Request ID: ${requestId}`);
		expect(second.apiError).toMatchObject({
			status: 409,
			code: 'CONFLICT',
			reason: 'PENDING_UPLOAD_LIMIT',
			requestId,
		});
	});

	test('without Continue On Fail the run stops on the NodeApiError', async () => {
		const ws = await sb.control.createWorkspace({});
		const result = await run(ws, [
			{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports/rpt_missing' } },
		]);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(/404 NOT_FOUND/);
		expect((result.error as unknown as { httpCode: string }).httpCode).toBe('404');
	});

	test('403 MISSING_SCOPE names the missing scope and where keys are created', async () => {
		const ws = await sb.control.createWorkspace({});
		const { apiKey } = await sb.control.createKey(ws.workspaceId, { scopes: ['analyses:write'] });
		const result = await run(
			{ apiKey },
			[{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } }],
			{
				continueOnFail: true,
			},
		);
		const [out] = outputJson(result);
		expect(out.httpCode).toBe('403');
		expect(out.error).toMatch(/403 FORBIDDEN \(MISSING_SCOPE\)/);
		expect(out.description).toMatch(/lacks the scope reports:read/);
		expect(out.description).toMatch(/Settings > Developer > API keys/);
	});

	test('401 for a revoked key; the key appears nowhere in the error', async () => {
		const ws = await sb.control.createWorkspace({});
		const { apiKey } = await sb.control.createKey(ws.workspaceId, {});
		await sb.control.revokeKey(apiKey);
		const result = await run({ apiKey }, [
			{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		expect(result.error?.message).toMatch(/401 UNAUTHORIZED/);
		expect(result.error?.description).toMatch(/invalid, expired or revoked/);
		const serialised = JSON.stringify({
			error: result.error,
			message: result.error?.message,
			description: result.error?.description,
			run: result.run.data.resultData,
		});
		expect(serialised).not.toContain(apiKey);
	});

	test('a svc_test_ key on Production is refused by the transport before any request', async () => {
		const ws = await sb.control.createWorkspace({});
		const result = await run(
			ws,
			[{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } }],
			{
				credentials: { recruitingAnalysisApi: credentialsFor(ws, 'production') },
			},
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(PRODUCTION_WITH_SANDBOX_KEY_MESSAGE);
	});

	test('a production key on Sandbox is refused by the transport before any request', async () => {
		const from = sb.responses.length;
		const result = await run({ apiKey: 'live_0123456789' }, [
			{ call: 'apiRequest', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		expect(result.error?.message).toBe(SANDBOX_WITH_PRODUCTION_KEY_MESSAGE);
		expect(sb.responses).toHaveLength(from);
	});
});

describe('storage upload', () => {
	test('no Authorization header ever reaches storage', async () => {
		const ws = await sb.control.createWorkspace({});
		const pdf = makePdf({ candidate: 'Grace' });
		const docx = makeDocx({ candidate: 'Linus' });
		const result = await run(ws, [
			{
				json: {
					call: 'prepareAndUpload',
					input: uploadInput(ws, 'grace.pdf', pdf.length, PDF_MIME),
				},
				binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'grace.pdf' } },
			},
			{
				json: {
					call: 'prepareAndUpload',
					input: uploadInput(ws, 'linus.docx', docx.length, DOCX_MIME),
				},
				binary: { data: { data: docx, mimeType: DOCX_MIME, fileName: 'linus.docx' } },
			},
		]);
		expect(result.error).toBeUndefined();
		expect(outputJson(result).map((o) => o.refreshed)).toEqual([false, false]);
		const counters = await sb.control.counters(ws.workspaceId);
		expect(counters.storagePuts).toBe(2);
		expect(counters.storageAuthorizationHeaders).toBe(0);
	});

	test('a 10 MB file is streamed from the filesystem binary store and accepted by storage', async () => {
		const ws = await sb.control.createWorkspace({});
		const size = 10_485_760;
		const pdf = makePdf({ candidate: 'Big File', sizeBytes: size });
		const result = await run(
			ws,
			[
				{
					json: { call: 'prepareAndUpload', input: uploadInput(ws, 'big.pdf', size, PDF_MIME) },
					binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'big.pdf' } },
				},
			],
			{ binaryMode: 'filesystem' },
		);
		expect(result.error).toBeUndefined();
		expect(result.binary.mode).toBe('filesystem');
		const [out] = outputJson(result);
		expect(out).toMatchObject({ refreshed: false, streamed: true, bytes: size });
		const stored = sb.responses.filter(
			(r) => r.method === 'PUT' && r.url.startsWith(`/_storage/uploads/${String(out.reportId)}`),
		);
		expect(stored.map((r) => r.status)).toEqual([200]);
		expect((await sb.control.counters(ws.workspaceId)).storagePuts).toBe(1);
	});

	test('the PUT carries Content-Type and Content-Length (no chunked encoding) and no Authorization', async () => {
		// A loopback HTTP server standing in for the storage host, to read the request headers as they arrive.
		const seen: Array<{ headers: IncomingHttpHeaders; bytes: number }> = [];
		const server = createServer((req, res) => {
			let bytes = 0;
			req.on('data', (chunk: Buffer) => (bytes += chunk.length));
			req.on('end', () => {
				seen.push({ headers: req.headers, bytes });
				res.writeHead(200).end();
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const port = (server.address() as AddressInfo).port;
			const ws = await sb.control.createWorkspace({});
			const size = 10_485_760;
			const pdf = makePdf({ candidate: 'Headers', sizeBytes: size });
			const upload = {
				url: `http://127.0.0.1:${port}/upload?signature=abc`,
				method: 'PUT',
				mimeType: PDF_MIME,
				sizeBytes: size,
				expiresInSeconds: 600,
			};
			const result = await run(
				ws,
				[
					{
						json: { call: 'upload', reportId: 'rpt_headers', upload },
						binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'h.pdf' } },
					},
				],
				{ binaryMode: 'filesystem' },
			);
			expect(result.error).toBeUndefined();
			expect(outputJson(result)[0]).toMatchObject({ streamed: true, bytes: size });
			expect(seen).toHaveLength(1);
			expect(seen[0].bytes).toBe(size);
			expect(seen[0].headers['content-length']).toBe(String(size));
			expect(seen[0].headers['content-type']).toBe(PDF_MIME);
			expect(seen[0].headers['transfer-encoding']).toBeUndefined();
			expect(seen[0].headers.authorization).toBeUndefined();
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});

	test("storage's JSON or plain-text refusal names its code and message; an empty one its status", async () => {
		// A loopback storage host answering each PUT with the next of these refusals.
		const answers = [
			{ type: 'application/json', body: '{"error":{"code":"QuotaExceeded","message":"No room"}}' },
			{ type: 'text/plain', body: `Bucket is locked${'.'.repeat(300)}` },
			{ type: 'text/plain', body: '' },
		];
		const server = createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				const answer = answers.shift();
				res.writeHead(400, { 'Content-Type': String(answer?.type) }).end(answer?.body);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const port = (server.address() as AddressInfo).port;
			const ws = await sb.control.createWorkspace({});
			const pdf = makePdf({ candidate: 'Refused' });
			const upload = {
				url: `http://127.0.0.1:${port}/upload?signature=abc`,
				method: 'PUT',
				mimeType: PDF_MIME,
				sizeBytes: pdf.length,
				expiresInSeconds: 600,
			};
			const messages: Array<string | undefined> = [];
			for (let i = 0; i < 3; i++) {
				const result = await run(ws, [
					{
						json: { call: 'upload', reportId: 'rpt_refused', upload },
						binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'r.pdf' } },
					},
				]);
				expect(result.error?.name).toBe('NodeApiError');
				messages.push(result.error?.message);
			}
			expect(messages).toEqual([
				'Storage upload of report rpt_refused: 400 QuotaExceeded: No room',
				`Storage upload of report rpt_refused: 400 HTTP_400: Bucket is locked${'.'.repeat(184)}`,
				'Storage upload of report rpt_refused: 400 HTTP_400: HTTP 400',
			]);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});

	test('in the default (memory) binary mode the buffer is sent', async () => {
		const ws = await sb.control.createWorkspace({});
		const docx = makeDocx({ candidate: 'Memory' });
		const result = await run(ws, [
			{
				json: {
					call: 'prepareAndUpload',
					input: uploadInput(ws, 'm.docx', docx.length, DOCX_MIME),
				},
				binary: { data: { data: docx, mimeType: DOCX_MIME, fileName: 'm.docx' } },
			},
		]);
		expect(outputJson(result)[0]).toMatchObject({ streamed: false, bytes: docx.length });
	});

	/** A prepared upload in a fresh workspace, and the storage answers recorded for its report. */
	async function preparedUpload(name: string) {
		const ws = await sb.control.createWorkspace({});
		const pdf = makePdf({ candidate: name });
		const prepared = await api(
			{ baseUrl: sb.baseUrl, seed: { apiKey: ws.apiKey } },
			'POST',
			'/api/v1/uploads',
			{
				body: uploadInput(ws, `${name}.pdf`, pdf.length, PDF_MIME),
				idempotencyKey: `${name}-${ws.workspaceId}`,
			},
		);
		expect(prepared.status).toBe(201);
		const { reportId, upload } = prepared.body.data;
		const item = (target: IDataObject) => ({
			json: { call: 'upload', reportId, upload: target },
			binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: `${name}.pdf` } },
		});
		const storageAnswers = () =>
			sb.responses
				.filter((r) => r.method === 'PUT' && r.url.startsWith(`/_storage/uploads/${reportId}`))
				.map(
					(r) => `${r.status}${r.status === 200 ? '' : ` ${storageErrorOf(String(r.body))?.Code}`}`,
				);
		return { ws, reportId, upload: upload as IDataObject, item, storageAnswers };
	}

	test('an expired signed URL (storage answers 403 AccessDenied in XML, as S3 does) is refreshed once and the file sent again', async () => {
		const { ws, upload, item, storageAnswers } = await preparedUpload('late');
		await sb.control.advanceClock(601_000);
		const result = await run(ws, [item(upload)]);
		expect(result.error).toBeUndefined();
		expect(outputJson(result)[0]).toMatchObject({ refreshed: true });
		const counters = await sb.control.counters(ws.workspaceId);
		expect(counters.requests['POST /api/v1/uploads/{id}/url']).toBe(1);
		expect(counters.storagePuts).toBe(1);
		expect(storageAnswers()).toEqual(['403 AccessDenied', '200']);
	});

	test('any 403 from the storage host is a reason to refresh once, whatever its body', async () => {
		const { ws, upload, item, storageAnswers } = await preparedUpload('any-403');
		await sb.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage/uploads/{reportId}', status: 403, count: 1 }],
		});
		try {
			const result = await run(ws, [item(upload)]);
			expect(result.error).toBeUndefined();
			expect(outputJson(result)[0]).toMatchObject({ refreshed: true });
		} finally {
			await sb.control.clearFaults();
		}
		expect(storageAnswers()).toEqual(['403 AccessDenied', '200']);
	});

	test("a second 403 after the refresh fails with storage's Code and Message, without the URL's signature", async () => {
		const { ws, upload, item, storageAnswers } = await preparedUpload('twice-403');
		await sb.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage/uploads/{reportId}', status: 403, count: 2 }],
		});
		let result;
		try {
			result = await run(ws, [item(upload)]);
		} finally {
			await sb.control.clearFaults();
		}
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toMatch(
			/^Storage upload of report \S+: 403 AccessDenied: Access Denied$/,
		);
		const text = `${result.error?.message} ${(result.error as { description?: string }).description}`;
		expect(text).toMatch(/already been refreshed once/);
		expect(text).not.toContain(new URL(String(upload.url)).searchParams.get('signature'));
		expect(
			(await sb.control.counters(ws.workspaceId)).requests['POST /api/v1/uploads/{id}/url'],
		).toBe(1);
		expect(storageAnswers()).toEqual(['403 AccessDenied', '403 AccessDenied']);
	});

	test('a 403 on a cancelled preparation: the refresh names PREPARATION_EXPIRED', async () => {
		const { ws, reportId, upload, item, storageAnswers } = await preparedUpload('cancelled');
		expect(
			(
				await api(
					{ baseUrl: sb.baseUrl, seed: { apiKey: ws.apiKey } },
					'DELETE',
					`/api/v1/uploads/${reportId}`,
				)
			).status,
		).toBe(204);
		const result = await run(ws, [item(upload)]);
		expect(result.error?.message).toMatch(/404 NOT_FOUND \(PREPARATION_EXPIRED\)/);
		expect(storageAnswers()).toEqual(['403 AccessDenied']);
	});
});

describe('pagination', () => {
	test('Return All follows nextCursor with the filters unchanged until hasMore is false', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.seedEvents(ws.workspaceId, 230, 'report.completed');
		const from = sb.responses.length;
		const result = await run(ws, [
			{
				call: 'apiAll',
				options: {
					method: 'GET',
					path: '/api/v1/events',
					qs: { type: 'report.completed' },
					returnAll: true,
				},
			},
		]);
		expect(result.error).toBeUndefined();
		const items = outputJson(result)[0].items as IDataObject[];
		expect(items).toHaveLength(230);
		expect(new Set(items.map((e) => e.id)).size).toBe(230);
		const pages = responsesFor('GET', '/api/v1/events', from);
		expect(pages).toHaveLength(3);
		for (const page of pages) {
			const url = new URL(page.url, sb.baseUrl);
			expect(url.searchParams.get('type')).toBe('report.completed');
			expect(url.searchParams.get('limit')).toBe('100');
		}
		expect(new URL(pages[0].url, sb.baseUrl).searchParams.has('cursor')).toBe(false);
		expect(new URL(pages[1].url, sb.baseUrl).searchParams.get('cursor')).toBeTruthy();
	});

	test('Limit asks for min(100, remaining) per page and stops at the limit', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.seedEvents(ws.workspaceId, 230, 'report.completed');
		const from = sb.responses.length;
		const result = await run(ws, [
			{
				call: 'apiAll',
				options: { method: 'GET', path: '/api/v1/events', returnAll: false, limit: 130 },
			},
		]);
		expect(outputJson(result)[0].items as IDataObject[]).toHaveLength(130);
		const limits = responsesFor('GET', '/api/v1/events', from).map((p) =>
			new URL(p.url, sb.baseUrl).searchParams.get('limit'),
		);
		expect(limits).toEqual(['100', '30']);
	});

	test('a list whose nextCursor is null ends after one page', async () => {
		const ws = await sb.control.createWorkspace({});
		const from = sb.responses.length;
		const result = await run(ws, [
			{
				call: 'apiAll',
				options: { method: 'GET', path: '/api/v1/job-descriptions', returnAll: true },
			},
		]);
		expect((outputJson(result)[0].items as IDataObject[]).map((j) => j.id)).toEqual([
			ws.jobDescriptionId,
		]);
		expect(responsesFor('GET', '/api/v1/job-descriptions', from)).toHaveLength(1);
	});
});

describe('idempotency keys and polling', () => {
	// Keys name the write, not the execution (execution id, node, run and item index, as they once were):
	// the same write gets the same key in another execution, at another item position.
	test('one key per business write: the same in every execution and item position, new for another write, label or step', async () => {
		const ws = await sb.control.createWorkspace({});
		const start = (fingerprint: string, extra: Partial<ProbeCall> = {}): ProbeCall =>
			({
				call: 'idempotencyKey',
				write: 'analysis.start',
				identity: ['rpt_1', fingerprint],
				...extra,
			}) as ProbeCall;
		const calls: ProbeCall[] = [
			start('a'.repeat(64)),
			start('b'.repeat(64)),
			start('a'.repeat(64), { attemptLabel: 'after-failure' } as Partial<ProbeCall>),
			start('a'.repeat(64), { userKey: 'my-key:42' } as Partial<ProbeCall>),
			start('a'.repeat(64), { userKey: 'my-key:42', step: 'requote' } as Partial<ProbeCall>),
		];
		const firstRun = outputJson(await run(ws, calls, { executionId: 'exec-1' }));
		const first = firstRun.map((o) => o.key);
		expect(firstRun.map((o) => o.again)).toEqual(first);
		// Another execution, and the calls in reverse order (other item positions): the same keys.
		const next = outputJson(await run(ws, [...calls].reverse(), { executionId: 'exec-2' }))
			.map((o) => o.key)
			.reverse();
		expect(next).toEqual(first);
		expect(new Set(first.slice(0, 3)).size).toBe(3);
		expect(first[3]).toBe('my-key:42');
		expect(first[4]).toBe('my-key:42:requote');
		for (const key of first) expect(String(key)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);

		const bad = await run(ws, [
			{ call: 'idempotencyKey', write: 'x', identity: [], userKey: 'has spaces' },
		]);
		expect(bad.error?.message).toMatch(
			/Idempotency Key may only contain letters, digits and \. _ : -/,
		);
	});

	test('poll waits for a terminal status, and reports a time-out as timedOut (not as a failure)', async () => {
		const ws = await sb.control.createWorkspace({});
		const client = { baseUrl: sb.baseUrl, seed: { apiKey: ws.apiKey } };
		const pdf = makePdf({ candidate: 'Poll', outcome: 'completed' });
		const prepared = await api(client, 'POST', '/api/v1/uploads', {
			body: uploadInput(ws, 'poll.pdf', pdf.length, PDF_MIME),
			idempotencyKey: `poll-${ws.workspaceId}`,
		});
		const { reportId, upload } = prepared.body.data;

		const waiting = await run(ws, [{ call: 'pollStatus', reportId, timeoutSeconds: 0.2 }]);
		const timedOut = outputJson(waiting)[0];
		expect(timedOut.timedOut).toBe(true);
		expect((timedOut.value as IDataObject).status).toBe('queued');
		expect(Number(timedOut.reads)).toBeGreaterThanOrEqual(2);

		const put = await fetch(upload.url, {
			method: 'PUT',
			headers: { 'content-type': PDF_MIME },
			body: pdf,
		});
		expect(put.status).toBe(200);
		const quote = await api(client, 'POST', '/api/v1/analysis-quotes', { body: { reportId } });
		const started = await api(client, 'POST', '/api/v1/analyses', {
			body: { reportId, quoteFingerprint: quote.body.data.fingerprint },
			idempotencyKey: `poll-start-${ws.workspaceId}`,
		});
		expect(started.status).toBe(202);

		const done = outputJson(
			await run(ws, [{ call: 'pollStatus', reportId, timeoutSeconds: 20 }]),
		)[0];
		expect(done.timedOut).toBe(false);
		expect((done.value as IDataObject).status).toBe('completed');
	});
});
