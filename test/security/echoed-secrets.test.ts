/**
 * Answers that echo the request's headers (a proxy or gateway showing what it received): the API key in an error
 * answer must survive nowhere n8n keeps or shows it: not in the thrown error (message, description, errorResponse,
 * context, messages, cause, stack, toJSON), not in the task data or the run's error (n8n stores `{...error}`), not
 * in an error item (Continue On Fail) and not in any line given to n8n's logger. Through n8n's engine against a
 * recording server on 127.0.0.1.
 */
import type { ServerResponse } from 'node:http';

import { RecruitingAnalysisApi } from '../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { DEFAULT_RETRY_POLICY } from '../../nodes/RecruitingAnalysis/transport/retry';
import { transportSettings } from '../../nodes/RecruitingAnalysis/transport';
import { executeNode } from '../helpers/n8n-engine';
import {
	captureLog,
	everything,
	json,
	keptText,
	liveKey,
	loggerLevel,
	runProbe,
	startHostile,
	useDebugLog,
	type HostileServer,
	type Recorded,
} from './helpers';

let api: HostileServer;
let other: HostileServer;
useDebugLog();

beforeAll(async () => {
	api = await startHostile();
	other = await startHostile();
	transportSettings.retry = {
		...DEFAULT_RETRY_POLICY,
		maxAttempts: 2,
		baseDelayMs: 5,
		maxDelayMs: 20,
	};
});
afterAll(async () => {
	transportSettings.retry = { ...DEFAULT_RETRY_POLICY };
	await Promise.all([api.close(), other.close()]);
});

const credentialsFor = (apiKey: string) => ({ environment: 'custom', baseUrl: api.origin, apiKey });

/** A JSON error answer carrying the request's headers in every field n8n reads an error from. */
function echoJson(status: number) {
	return (_req: unknown, res: ServerResponse, recorded: Recorded) => {
		const auth = String(recorded.headers.authorization ?? '');
		json(res, status, {
			error: {
				code: 'GATEWAY_ECHO',
				reason: auth,
				message: `upstream refused the request with ${auth}`,
				requestId: auth,
				details: [{ field: auth, rule: `header was ${auth}` }],
				requiredScopes: [auth],
				headers: recorded.headers,
			},
			message: auth,
			description: auth,
			headers: recorded.headers,
		});
	};
}

describe('answers that echo the request headers', () => {
	test.each([
		['400 with validation details', 400],
		['403 with required scopes', 403],
		['422 with a reason', 422],
		['502 from a gateway (retried, then reported)', 502],
	])(
		'a JSON %s echoing the key: the key is in nothing n8n keeps of the thrown error',
		async (_label, status) => {
			const key = liveKey(`echo${status}`);
			api.handle = echoJson(status);
			const sentBefore = api.requests.length;
			const { value: result, lines } = await captureLog(
				async () =>
					await runProbe(credentialsFor(key), [
						{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
					]),
			);
			// The precondition: every request of this run carried the key (retries included), so each answer echoed it.
			const sent = api.requests.slice(sentBefore);
			expect(sent.length).toBeGreaterThan(0);
			for (const r of sent) expect(r.headers.authorization).toBe(`Bearer ${key}`);
			expect(result.thrownError).toBeDefined();
			const error = result.thrownError as Record<string, unknown>;
			for (const field of [
				'message',
				'description',
				'errorResponse',
				'context',
				'messages',
				'cause',
				'stack',
			]) {
				expect(everything(error[field])).not.toContain(key);
			}
			expect(JSON.stringify(error)).not.toContain(key); // toJSON(): what n8n serialises
			expect(everything({ ...error })).not.toContain(key); // the engine's `{...error}` in the task data
			expect(keptText(result)).not.toContain(key);
			expect(loggerLevel()).toBe('debug');
			expect(lines.length).toBeGreaterThan(0);
			expect(lines.filter((line) => line.includes(key))).toEqual([]);
			// The answer is still described: status and code survive the masking.
			expect(String(error.message)).toContain(String(status));
		},
	);

	test('a plain-text 500 echoing the headers: the key is masked in the kept error', async () => {
		const key = liveKey('text500');
		const answers: string[] = [];
		api.handle = (_req, res, recorded) => {
			const text = Object.entries(recorded.headers)
				.map(([name, value]) => `${name}: ${String(value)}`)
				.join('\n');
			answers.push(text);
			res.writeHead(500, { 'content-type': 'text/plain' });
			res.end(text);
		};
		const result = await runProbe(credentialsFor(key), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		// The precondition: the key was sent, and the answer did echo it.
		expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
		expect(answers.length).toBeGreaterThan(0);
		expect(answers.every((text) => text.includes(key))).toBe(true);
		expect(result.thrownError).toBeDefined();
		expect(keptText(result)).not.toContain(key);
	});

	test('a redirect whose Location carries the key: the refusal names the host, never the key', async () => {
		const key = liveKey('location');
		const locations: string[] = [];
		api.handle = (_req, res, recorded) => {
			const location = `${other.origin}/collect?stolen=${encodeURIComponent(String(recorded.headers.authorization))}`;
			locations.push(location);
			res.writeHead(302, { location });
			res.end();
		};
		const result = await runProbe(credentialsFor(key), [
			{ call: 'api', options: { method: 'GET', path: '/api/v1/reports' } },
		]);
		// The precondition: the key was sent, and the redirect's Location did carry it.
		expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
		expect(locations.length).toBeGreaterThan(0);
		expect(locations.every((l) => l.includes(encodeURIComponent(key)))).toBe(true);
		expect(String((result.thrownError as Error).message)).toContain(other.host);
		expect(keptText(result)).not.toContain(key);
		expect(other.requests).toHaveLength(0);
	});

	test('the action node with Continue On Fail: the error item and the task data hold no key, and no log line does', async () => {
		const key = liveKey('node');
		api.handle = echoJson(400);
		const { value: result, lines } = await captureLog(
			async () =>
				await executeNode({
					nodeType: new RecruitingAnalysis(),
					credentialTypes: [new RecruitingAnalysisApi()],
					credentials: { recruitingAnalysisApi: credentialsFor(key) },
					parameters: { resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
					items: [{ json: {} }],
					continueOnFail: true,
				}),
		);
		expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
		const item = result.output[0]?.[0]?.json;
		expect(item).toBeDefined();
		expect(everything(item)).toMatch(/400/);
		expect(everything(result.output)).not.toContain(key);
		expect(keptText(result)).not.toContain(key);
		expect(lines.filter((line) => line.includes(key))).toEqual([]);
	});
});
