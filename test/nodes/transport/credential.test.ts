/**
 * The API credential's test, run the way n8n's "Test credential" button runs it (harness `testCredential`:
 * CredentialsTester's logic, which finds the function through a node's `testedBy`, run with n8n-core's
 * CredentialTestContext), against the sandbox over loopback HTTP, with keys minted with chosen scopes.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import {
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	RecruitingAnalysisApi,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { SCOPE_PROBES, SCOPE_USES } from '../../../nodes/RecruitingAnalysis/methods/credentialTest';
import { testCredential as runCredentialTest } from '../../helpers/n8n-engine';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox';

let sb: TestSandbox;
const credentialType = new RecruitingAnalysisApi();
const ALL_SCOPES = Object.keys(SCOPE_USES);

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

/** n8n finds the test through the first node that names the credential with a testedBy. */
async function testCredential(type: RecruitingAnalysisApi, data: ICredentialDataDecryptedObject) {
	return await runCredentialTest(type, data, { nodeTypes: [new RecruitingAnalysis()] });
}

beforeAll(async () => {
	sb = await startTestSandbox({ recordResponses: true });
});
afterAll(async () => {
	await sb.close();
});

async function requestsToJobList(workspaceId: string): Promise<number> {
	const counters = await sb.control.counters(workspaceId);
	return counters.requests['GET /api/v1/job-descriptions'] ?? 0;
}

describe('Recruiting Analysis API credential test', () => {
	test('a good sandbox key on the Sandbox environment passes', async () => {
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl: sb.baseUrl,
			apiKey: sb.seed.apiKey,
		});
		expect(result.status).toBe('OK');
		expect(result.message).toBe(
			`Connection successful: the API key is valid. Scopes confirmed: ${Object.keys(SCOPE_PROBES).join(', ')}.`,
		);
		expect(await requestsToJobList(sb.seed.workspaceId)).toBeGreaterThan(0);
	});

	test('the Custom Base URL environment reaches the same API', async () => {
		const result = await testCredential(credentialType, {
			environment: 'custom',
			baseUrl: `${sb.baseUrl}/`,
			apiKey: sb.seed.apiKey,
		});
		expect(result.status).toBe('OK');
	});

	test('a bad key is reported as invalid, expired or revoked (401)', async () => {
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl: sb.baseUrl,
			apiKey: 'svc_test_this-key-does-not-exist',
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/invalid, expired or revoked \(401\)/);
	});

	test('a revoked key is reported as 401 too', async () => {
		const { apiKey } = await sb.control.createKey(sb.seed.workspaceId, {});
		await sb.control.revokeKey(apiKey);
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl: sb.baseUrl,
			apiKey,
		});
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toMatch(/\(401\)/);
	});

	test.each(ALL_SCOPES)(
		'a valid key with only %s passes, naming every other scope and what it is needed for',
		async (scope) => {
			const { apiKey } = await sb.control.createKey(sb.seed.workspaceId, { scopes: [scope] });
			const result = await testCredential(credentialType, {
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				apiKey,
			});
			expect(result.status).toBe('OK');
			expect(result.message).toContain(`Scopes confirmed: ${scope}.`);
			const notGranted = result.message.slice(result.message.indexOf('Not granted'));
			for (const other of ALL_SCOPES.filter((s) => s !== scope)) {
				expect(notGranted).toContain(`${other} (${SCOPE_USES[other]})`);
			}
			expect(notGranted).not.toContain(`${scope} (`);
		},
	);

	test('every node that uses the credential names the same test (n8n may find it through any of them)', async () => {
		const { apiKey } = await sb.control.createKey(sb.seed.workspaceId, { scopes: ['events:read'] });
		const data = { environment: 'sandbox', baseUrl: sb.baseUrl, apiKey };
		for (const nodeType of [
			new RecruitingAnalysis(),
			new RecruitingAnalysisTrigger(),
			new RecruitingAnalysisFeedTrigger(),
		]) {
			const result = await runCredentialTest(credentialType, data, { nodeTypes: [nodeType] });
			expect(result.status).toBe('OK');
			expect(result.message).toContain('Scopes confirmed: events:read.');
		}
	});

	test('a scope whose probe gets no usable answer is reported as not confirmed, and the test still passes', async () => {
		const { apiKey } = await sb.control.createKey(sb.seed.workspaceId, {
			scopes: ['reports:read', 'events:read'],
		});
		await sb.control.setFaults({
			rules: [{ method: 'GET', path: '/api/v1/events', status: 503, count: 1 }],
		});
		try {
			const result = await testCredential(credentialType, {
				environment: 'sandbox',
				baseUrl: sb.baseUrl,
				apiKey,
			});
			expect(result.status).toBe('OK');
			expect(result.message).toContain('Scopes confirmed: reports:read.');
			expect(result.message).toContain(
				`Could not confirm (HTTP 503): events:read (${SCOPE_USES['events:read']})`,
			);
		} finally {
			await sb.control.clearFaults();
		}
	});

	test('an unreachable API fails the test with the network error', async () => {
		const closed = await closedPort();
		const baseUrl = `http://127.0.0.1:${closed}`;
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl,
			apiKey: sb.seed.apiKey,
		});
		expect(result).toEqual({
			status: 'Error',
			message: `Could not reach the API at ${baseUrl} (ECONNREFUSED).`,
		});
	});

	test('a base URL where the API answers 404 to every read (a wrong path) fails, naming the answer and the fix', async () => {
		const baseUrl = `${sb.baseUrl}/not-the-api`;
		const result = await testCredential(credentialType, {
			environment: 'custom',
			baseUrl,
			apiKey: sb.seed.apiKey,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			`${baseUrl} answered 404, but not like the Recruiting Analysis API. Check the environment and the base URL (the address without /api/v1).`,
		);
	});

	test('a disabled workspace is reported as such (403)', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.patchWorkspace(ws.workspaceId, { disabled: true });
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl: sb.baseUrl,
			apiKey: ws.apiKey,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/disabled|forbidden/i);
	});

	// The refusal text comes only from the local data: answer (nothing else yields it); production is a
	// placeholder host no test may reach, so the sandbox case below also counts requests.
	test('a svc_test_ key on Production is refused before any request', async () => {
		const result = await testCredential(credentialType, {
			environment: 'production',
			apiKey: sb.seed.apiKey,
		});
		expect(result).toEqual({ status: 'Error', message: PRODUCTION_WITH_SANDBOX_KEY_MESSAGE });
	});

	test('a production key on the Sandbox environment is refused before any request', async () => {
		const before = sb.responses.length;
		const result = await testCredential(credentialType, {
			environment: 'sandbox',
			baseUrl: sb.baseUrl,
			apiKey: 'live_0123456789abcdef',
		});
		expect(result).toEqual({ status: 'Error', message: SANDBOX_WITH_PRODUCTION_KEY_MESSAGE });
		expect(sb.responses).toHaveLength(before);
	});
});
