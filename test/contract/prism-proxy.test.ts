/**
 * The Prism mode of the node tests (jest.prism.config.js) can fail: Stoplight Prism's validating proxy, as
 * test/helpers/prism.ts runs it, refuses a request off the contract (422) and turns an answer off the contract
 * into 500 VIOLATIONS, and reports both; the sandbox's own answers pass through unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPrismProxy, takeUnreportedFindings, type PrismProxy } from '../helpers/prism';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';

let sb: TestSandbox;
let proxy: PrismProxy;
beforeAll(async () => {
	sb = await startTestSandbox();
	proxy = await startPrismProxy(sb.baseUrl);
});
afterAll(async () => {
	await proxy?.close();
	await sb?.close();
});

const call = (base: string, method: string, path: string, body?: unknown) =>
	fetch(`${base}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${sb.seed.apiKey}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});

test('the sandbox answers pass through Prism unchanged and with no violation', async () => {
	const res = await call(proxy.url, 'GET', `/api/v1/job-descriptions/${sb.seed.jobDescriptionId}`);
	expect(res.status).toBe(200);
	expect(((await res.json()) as { data: { id: string } }).data.id).toBe(sb.seed.jobDescriptionId);
	expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
	const notFound = await call(proxy.url, 'GET', '/api/v1/reports/rpt_unknown');
	expect(notFound.status).toBe(404);
	expect(proxy.violations).toEqual([]);
});

test('a request off the contract is refused by Prism (422) and reported', async () => {
	const before = proxy.violations.length;
	const res = await call(proxy.url, 'POST', '/api/v1/analysis-quotes', {
		reportId: 'rpt_x',
		surprise: 1,
	});
	expect(res.status).toBe(422);
	expect(res.headers.get('content-type')).toBe('application/problem+json');
	expect(proxy.violations.slice(before).join('\n')).toMatch(
		/POST \/api\/v1\/analysis-quotes: .*UNPROCESSABLE_ENTITY/,
	);
	// Provoked on purpose: taken here, so closing the proxy does not report them again.
	expect(takeUnreportedFindings().join('\n')).toMatch(/UNPROCESSABLE_ENTITY/);
});

test('an answer off the contract becomes 500 VIOLATIONS and is reported', async () => {
	// An upstream that answers a report with a body the document does not allow (no data envelope, no X-Request-Id).
	const fake: Server = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ id: 'rpt_x', score: 'ten' }));
	});
	await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
	const bad = await startPrismProxy(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`);
	try {
		const res = await call(bad.url, 'GET', '/api/v1/reports/rpt_x');
		expect(res.status).toBe(500);
		expect(JSON.stringify(await res.json())).toMatch(/VIOLATIONS/);
		expect(bad.violations.join('\n')).toMatch(/GET \/api\/v1\/reports\/rpt_x: .*VIOLATIONS/);
		expect(takeUnreportedFindings().join('\n')).toMatch(/VIOLATIONS/);
	} finally {
		await bad.close();
		await new Promise((resolve) => fake.close(resolve));
	}
});

test('a violation no test reported is not lost: closing its proxy throws it', async () => {
	const fake: Server = createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ id: 'rpt_x', score: 'ten' }));
	});
	await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
	const bad = await startPrismProxy(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`);
	try {
		expect((await call(bad.url, 'GET', '/api/v1/reports/rpt_x')).status).toBe(500);
		await expect(bad.close()).rejects.toThrow(/no test reported:[^]*GET \/api\/v1\/reports\/rpt_x/);
		expect(takeUnreportedFindings()).toEqual([]);
	} finally {
		await new Promise((resolve) => fake.close(resolve));
	}
});
