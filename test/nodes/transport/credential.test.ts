/**
 * The API credential's test, run the way n8n's "Test credential" button runs it (harness `testCredential`:
 * CredentialsTester's logic on n8n-core's RoutingNode), against the sandbox over loopback HTTP.
 */
import {
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	RecruitingAnalysisApi,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { testCredential } from '../../helpers/n8n-engine';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox';

let sb: TestSandbox;
const credentialType = new RecruitingAnalysisApi();

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
		const result = await testCredential(credentialType, { environment: 'sandbox', baseUrl: sb.baseUrl, apiKey: sb.seed.apiKey });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(await requestsToJobList(sb.seed.workspaceId)).toBeGreaterThan(0);
	});

	test('the Custom Base URL environment reaches the same API', async () => {
		const result = await testCredential(credentialType, { environment: 'custom', baseUrl: `${sb.baseUrl}/`, apiKey: sb.seed.apiKey });
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
		const result = await testCredential(credentialType, { environment: 'sandbox', baseUrl: sb.baseUrl, apiKey });
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toMatch(/\(401\)/);
	});

	test('a key without job-descriptions:read is told apart from a bad key, naming the missing scope (403)', async () => {
		const { apiKey } = await sb.control.createKey(sb.seed.workspaceId, { scopes: ['reports:read'] });
		const result = await testCredential(credentialType, { environment: 'sandbox', baseUrl: sb.baseUrl, apiKey });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/valid but lacks the scope job-descriptions:read \(403\)/);
	});

	test('a disabled workspace is reported as such (403)', async () => {
		const ws = await sb.control.createWorkspace({});
		await sb.control.patchWorkspace(ws.workspaceId, { disabled: true });
		const result = await testCredential(credentialType, { environment: 'sandbox', baseUrl: sb.baseUrl, apiKey: ws.apiKey });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/disabled|forbidden/i);
	});

	// The refusal text comes only from the local data: answer (nothing else yields it); production is a
	// placeholder host no test may reach, so the sandbox case below also counts requests.
	test('a svc_test_ key on Production is refused before any request', async () => {
		const result = await testCredential(credentialType, { environment: 'production', apiKey: sb.seed.apiKey });
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
		expect(sb.responses.length).toBe(before);
	});
});
