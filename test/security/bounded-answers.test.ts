/**
 * Oversized and endless answers, through n8n's engine against servers on 127.0.0.1: the node reads an API answer
 * as a stream, stops at 16 MiB (guard.ts, MAX_API_RESPONSE_BYTES) and at the request deadline
 * (transportSettings.requestTimeoutMs), so a huge or never-ending body neither hangs the execution nor fills memory.
 * n8n's `timeout` is an idle timeout of its HTTP client that does not end a streamed body, so the node keeps its
 * own deadline for the whole answer (guard.ts, readBounded).
 */
import type { ServerResponse } from 'node:http';

import { DEFAULT_RETRY_POLICY } from '../../nodes/RecruitingAnalysis/transport/retry';
import { REQUEST_TIMEOUT_MS, transportSettings } from '../../nodes/RecruitingAnalysis/transport';
import { MAX_API_RESPONSE_BYTES } from '../../nodes/RecruitingAnalysis/transport/guard';
import { liveKey, runProbe, startHostile, type HostileServer } from './helpers';

let api: HostileServer;
/** Bytes the server managed to write in the current test before the client stopped reading. */
let written = 0;

beforeAll(async () => {
	api = await startHostile();
	transportSettings.retry = {
		...DEFAULT_RETRY_POLICY,
		maxAttempts: 2,
		baseDelayMs: 5,
		maxDelayMs: 20,
	};
});
afterAll(async () => {
	transportSettings.retry = { ...DEFAULT_RETRY_POLICY };
	transportSettings.requestTimeoutMs = REQUEST_TIMEOUT_MS;
	await api.close();
});
beforeEach(() => {
	api.requests.length = 0;
	written = 0;
	transportSettings.requestTimeoutMs = REQUEST_TIMEOUT_MS;
});

const credentials = () => ({
	environment: 'custom',
	baseUrl: api.origin,
	apiKey: liveKey('bounded'),
});
const read = { call: 'api' as const, options: { method: 'GET' as const, path: '/api/v1/reports' } };

/** Writes `chunk` as fast as the client reads, until `maxBytes` (then ends) or until the client goes away. */
function flood(res: ServerResponse, chunk: Buffer, maxBytes: number): void {
	res.writeHead(200, { 'content-type': 'application/json' });
	res.write('{"data":"');
	const pump = () => {
		while (written < maxBytes) {
			written += chunk.length;
			if (!res.write(chunk)) {
				res.once('drain', pump);
				return;
			}
		}
		res.end('"}');
	};
	res.on('close', () => res.removeAllListeners('drain'));
	pump();
}

describe('oversized and endless answers', () => {
	test('an answer larger than 16 MiB is refused, not read to its end and not retried', async () => {
		const total = 4 * MAX_API_RESPONSE_BYTES;
		api.handle = (_req, res) => flood(res, Buffer.alloc(64 * 1024, 'a'), total);
		const started = Date.now();
		const result = await runProbe(credentials(), [read]);
		expect(result.error).toBeDefined();
		expect(String((result.thrownError as Error).message)).toMatch(/larger than 16 MiB/);
		// The client stopped soon after the limit (socket buffers aside), far from the 64 MiB on offer.
		expect(written).toBeLessThan(MAX_API_RESPONSE_BYTES + 8 * 1024 * 1024);
		expect(api.requests).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(15_000);
	}, 30_000);

	test('an endless answer trickling a byte at a time ends at the request deadline', async () => {
		transportSettings.requestTimeoutMs = 700;
		api.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"data":[');
			const tick = async () => {
				while (!res.destroyed && !res.writableEnded) {
					res.write(' ');
					await new Promise((resolve) => setTimeout(resolve, 50));
				}
			};
			void tick();
		};
		const started = Date.now();
		const result = await runProbe(credentials(), [read]);
		const elapsed = Date.now() - started;
		expect(result.error).toBeDefined();
		expect(String((result.thrownError as Error & { description?: string }).description)).toMatch(
			/ETIMEDOUT after 2 attempts/,
		);
		// Two attempts of 0.7 s each (and a short backoff): bounded, although the server never stops sending.
		expect(elapsed).toBeLessThan(6_000);
		expect(api.requests).toHaveLength(2);
	}, 20_000);

	test('an answer that sends its headers and then nothing ends at the request deadline', async () => {
		transportSettings.requestTimeoutMs = 700;
		api.handle = (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"data":');
		};
		const started = Date.now();
		const result = await runProbe(credentials(), [read]);
		expect(result.error).toBeDefined();
		expect(String((result.thrownError as Error & { description?: string }).description)).toMatch(
			/Network error E[A-Z]+ after 2 attempts/,
		);
		expect(Date.now() - started).toBeLessThan(6_000);
		expect(api.requests).toHaveLength(2);
	}, 20_000);
});
