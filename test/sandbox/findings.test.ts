/**
 * Each finding of the external tools (Redocly, Spectral, Schemathesis, hand probes) has a test
 * named after it. The API's conventions on every answer the API host gives, including the framework's own
 * errors; 405 decided before the body is parsed; lengths in characters (code points); the document says what
 * the server does (closed bodies, the email rule).
 */
import * as net from 'node:net';
import { makePdf } from '../fixtures/resumes';
import { validateRequestBody, validateResponse, formatProblems } from '../helpers/contract';
import type { TestSandbox } from '../helpers/sandbox';
import { created, expectInvalid, key, PDF_MIME, uploadBody, useSandboxWs, type Ws } from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

interface RawAnswer {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/** Sends bytes as they are (no client normalises the method, the URL or the headers) and reads the answer. */
async function raw(request: string): Promise<RawAnswer> {
	const text = await new Promise<string>((resolve) => {
		const socket = net.connect(sb.port, '127.0.0.1', () => socket.write(request));
		let data = '';
		socket.on('data', (chunk) => (data += chunk.toString('utf8')));
		socket.on('close', () => resolve(data));
		socket.on('error', () => resolve(data));
	});
	const [head, ...rest] = text.split('\r\n\r\n');
	const [statusLine, ...headerLines] = head.split('\r\n');
	const headers: Record<string, string> = {};
	for (const line of headerLines) {
		const i = line.indexOf(':');
		headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
	}
	return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

const request = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
	raw(
		`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
			Object.entries({
				authorization: `Bearer ${ws.apiKey}`,
				...headers,
				...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
			})
				.map(([k, v]) => `${k}: ${v}\r\n`)
				.join('') +
			`\r\n${body}`,
	);

/** The API's conventions: error body {error: {code, message, requestId}}, X-Request-Id equal to it, no-store. */
function expectConventions(a: RawAnswer, status: number, code: string) {
	expect(a.status).toBe(status);
	const body = JSON.parse(a.body) as {
		error: { code: string; message: string; requestId: string };
	};
	expect(body.error.code).toBe(code);
	expect(typeof body.error.message).toBe('string');
	expect(body.error.requestId).toMatch(
		/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
	);
	expect(a.headers['x-request-id']).toBe(body.error.requestId);
	expect(a.headers['cache-control']).toBe('no-store');
	expect(a.headers['content-type']).toMatch(/^application\/json/);
	return body.error;
}

describe('answers that skipped the API conventions', () => {
	test('a malformed percent-encoding in a path (/api/v1/reports/%ZZ) gets the API error body, X-Request-Id and Cache-Control', async () => {
		const error = expectConventions(
			await request('GET', '/api/v1/reports/%ZZ'),
			400,
			'BAD_REQUEST',
		);
		expect(error).toMatchObject({
			reason: 'VALIDATION_FAILED',
			details: [{ field: 'path', rule: 'url_encoding' }],
		});
	});
	test('oversized headers get 431 with the API error body, X-Request-Id and Cache-Control', async () => {
		const error = expectConventions(
			await request('GET', '/api/v1/reports', { 'x-filler': 'a'.repeat(20_000) }),
			431,
			'REQUEST_HEADER_FIELDS_TOO_LARGE',
		);
		expect(error).toMatchObject({ reason: 'HEADERS_TOO_LARGE' });
	});
	test('an unsupported media type gets the API error body naming Content-Type, and nothing is created', async () => {
		const before = created(await ws.counters());
		const a = await request(
			'POST',
			'/api/v1/uploads',
			{ 'content-type': 'text/plain', 'idempotency-key': key() },
			'fileName=resume.pdf',
		);
		expect(expectConventions(a, 400, 'BAD_REQUEST')).toMatchObject({
			details: [{ field: 'Content-Type', rule: 'application_json' }],
		});
		expect(created(await ws.counters())).toEqual(before);
	});
	test('a body too large (over 1 MiB) gets the API error body, X-Request-Id and Cache-Control', async () => {
		const a = await request(
			'POST',
			'/api/v1/analysis-quotes',
			{ 'content-type': 'application/json' },
			JSON.stringify({ reportId: 'x'.repeat(1_100_000) }),
		);
		expect(expectConventions(a, 400, 'BAD_REQUEST')).toMatchObject({
			details: [{ field: 'body', rule: 'max_bytes' }],
		});
	});
	test('an unknown route under /api/v1 gets 404 with the conventions', async () => {
		expectConventions(await request('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
	});
	test('every one of these answers follows openapi.yaml where the document knows the route', async () => {
		const a = await request('GET', '/api/v1/reports/%ZZ');
		const problems = validateResponse({
			method: 'GET',
			route: '/api/v1/reports/{id}',
			status: a.status,
			headers: a.headers,
			body: a.body,
		});
		expect(formatProblems(problems)).toBe('no problems');
	});
});

describe('405 with Allow is decided before the body is parsed', () => {
	test('QUERY /api/v1/reports/x with a broken body gets 405 with Allow, not 400', async () => {
		const a = await request(
			'QUERY',
			'/api/v1/reports/x',
			{ 'content-type': 'application/json' },
			'{{{',
		);
		expectConventions(a, 405, 'METHOD_NOT_ALLOWED');
		expect(a.headers.allow).toBe('GET');
	});
	test('PUT /api/v1/reports/{id} with a broken body gets 405 with Allow, not 400', async () => {
		const a = await request(
			'PUT',
			'/api/v1/reports/rpt_x',
			{ 'content-type': 'application/json' },
			'{"broken":',
		);
		expectConventions(a, 405, 'METHOD_NOT_ALLOWED');
		expect(a.headers.allow).toBe('GET');
		expect(
			formatProblems(
				validateResponse({
					method: 'PUT',
					route: '/api/v1/reports/{id}',
					status: a.status,
					headers: a.headers,
					body: a.body,
				}),
			),
		).toBe('no problems');
	});
	test('405 comes before authentication too (no key, broken body)', async () => {
		const a = await raw(
			'DELETE /api/v1/analyses HTTP/1.1\r\nHost: x\r\nConnection: close\r\ncontent-type: application/json\r\ncontent-length: 1\r\n\r\n{',
		);
		expectConventions(a, 405, 'METHOD_NOT_ALLOWED');
		expect(a.headers.allow).toBe('POST');
	});
});

describe('lengths are counted in characters (code points), not UTF-16 units', () => {
	const emoji = '\u{1F600}'; // one character, two UTF-16 units
	test('a path id of 60 emoji is within its limit of 100 (404, not 400); 101 emoji is over it', async () => {
		const ok = await ws.call('GET', `/api/v1/reports/${encodeURIComponent(emoji.repeat(60))}`);
		expect(ok.status).toBe(404);
		expectInvalid(
			await ws.call('GET', `/api/v1/reports/${encodeURIComponent(emoji.repeat(101))}`),
			'id',
			'max_length',
		);
	});
	test('a file name of 124 characters made of emoji is accepted (limit 200)', async () => {
		const pdf = makePdf({ candidate: 'Emoji Name' });
		const fileName = `${emoji.repeat(120)}.pdf`;
		expect([...fileName]).toHaveLength(124);
		const res = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: key(),
			body: uploadBody(ws, pdf, { fileName }),
		});
		expect(res.status).toBe(201);
		expectInvalid(
			await ws.call('POST', '/api/v1/uploads', {
				idempotencyKey: key(),
				body: uploadBody(ws, pdf, { fileName: `${emoji.repeat(197)}.pdf` }),
			}),
			'fileName',
			'max_length',
		);
	});
	test('an external reference id of 100 emoji is accepted (limit 128); 129 emoji is refused', async () => {
		const pdf = makePdf({ candidate: 'Emoji Reference' });
		const res = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: key(),
			body: uploadBody(ws, pdf, { externalReference: { source: 'ats', id: emoji.repeat(100) } }),
		});
		expect(res.status).toBe(201);
		expectInvalid(
			await ws.call('POST', '/api/v1/uploads', {
				idempotencyKey: key(),
				body: uploadBody(ws, pdf, { externalReference: { source: 'ats', id: emoji.repeat(129) } }),
			}),
			'externalReference.id',
			'max_length',
		);
	});
	test('the document counts the same way: the 124-emoji file name and the 100-emoji reference id validate', () => {
		const body = {
			fileName: `${emoji.repeat(120)}.pdf`,
			fileSize: 10,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'text', text: 'x' },
			externalReference: { source: 'ats', id: emoji.repeat(100) },
		};
		expect(validateRequestBody('POST', '/api/v1/uploads', body)).toEqual([]);
	});
});

describe('the document and the server agree', () => {
	test('request bodies are closed in openapi.yaml (additionalProperties: false), as the sandbox refuses unknown fields', async () => {
		const pdf = makePdf({ candidate: 'Closed' });
		const bodies: [string, string, Record<string, unknown>][] = [
			['POST', '/api/v1/uploads', { ...uploadBody(ws, pdf), surprise: 1 }],
			[
				'POST',
				'/api/v1/uploads',
				{ ...uploadBody(ws, pdf), externalReference: { source: 'ats', id: 'a', surprise: 1 } },
			],
			[
				'POST',
				'/api/v1/uploads',
				{
					...uploadBody(ws, pdf),
					jobDescription: { kind: 'existing', id: ws.jobDescriptionId, surprise: 1 },
				},
			],
			['POST', '/api/v1/analysis-quotes', { reportId: 'rpt_x', surprise: 1 }],
			[
				'POST',
				'/api/v1/analyses',
				{ reportId: 'rpt_x', quoteFingerprint: 'a'.repeat(64), surprise: 1 },
			],
			[
				'POST',
				'/api/v1/interview-quotes',
				{ reportId: 'rpt_x', candidateEmail: 'a@example.com', surprise: 1 },
			],
			[
				'POST',
				'/api/v1/interviews',
				{
					reportId: 'rpt_x',
					candidateEmail: 'a@example.com',
					quoteFingerprint: 'a'.repeat(64),
					surprise: 1,
				},
			],
			[
				'POST',
				'/api/v1/analysis-batch-quotes',
				{ items: [{ itemKey: 'a', input: { reportId: 'rpt_x', surprise: 1 } }] },
			],
			[
				'POST',
				'/api/v1/analysis-batches',
				{
					items: [
						{
							itemKey: 'a',
							input: { reportId: 'rpt_x', quoteFingerprint: 'a'.repeat(64) },
							surprise: 1,
						},
					],
				},
			],
			[
				'POST',
				'/api/v1/interview-batch-quotes',
				{
					items: [
						{
							itemKey: 'a',
							input: { reportId: 'rpt_x', candidateEmail: 'a@example.com', sendEmail: true },
						},
					],
					surprise: 1,
				},
			],
		];
		for (const [method, path, body] of bodies) {
			expect([
				path,
				validateRequestBody(method, path, body).some((p) =>
					/must NOT have additional properties/.test(p),
				),
			]).toEqual([path, true]);
			const res = await ws.call(method, path, { idempotencyKey: key(), body });
			expect([
				path,
				res.status,
				res.body.error.details.some((d: { rule: string }) => d.rule === 'unknown_field'),
			]).toEqual([path, 400, true]);
		}
	});
	test('the email rule: the document refuses a@com and a@[127.0.0.1], as the sandbox does; both accept name@example.com', async () => {
		for (const candidateEmail of [
			'a@com',
			'a@[127.0.0.1]',
			'.a@example.com',
			'a..b@example.com',
			`${'a'.repeat(65)}@example.com`,
		]) {
			expect([
				candidateEmail,
				validateRequestBody('POST', '/api/v1/interview-quotes', {
					reportId: 'rpt_x',
					candidateEmail,
				}).length > 0,
			]).toEqual([candidateEmail, true]);
			expectInvalid(
				await ws.call('POST', '/api/v1/interview-quotes', {
					body: { reportId: 'rpt_x', candidateEmail },
				}),
				'candidateEmail',
			);
		}
		for (const candidateEmail of ['name@example.com', "o'brien+tag@mail.example.co.uk"]) {
			expect(
				validateRequestBody('POST', '/api/v1/interview-quotes', {
					reportId: 'rpt_x',
					candidateEmail,
				}),
			).toEqual([]);
			expect(
				(
					await ws.call('POST', '/api/v1/interview-quotes', {
						body: { reportId: 'rpt_x', candidateEmail },
					})
				).status,
			).toBe(404);
		}
	});
});
