/**
 * The API credential's description, and its expressions evaluated by n8n-workflow's own expression engine
 * (the same evaluation n8n applies to `authenticate` and to the test request).
 */
import { Workflow } from 'n8n-workflow';
import type { INodeType, INodeTypes, IHttpRequestOptions } from 'n8n-workflow';

import {
	PRODUCTION_BASE_URL,
	RecruitingAnalysisApi,
	REFUSAL_PAYLOAD_PRODUCTION,
	REFUSAL_PAYLOAD_SANDBOX,
	SANDBOX_BASE_URL,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

const credential = new RecruitingAnalysisApi();

const emptyType = { description: { properties: [] } } as unknown as INodeType;
const nodeTypes: INodeTypes = {
	getByName: () => emptyType,
	getByNameAndVersion: () => emptyType,
	getKnownTypes: () => ({}),
};
const workflow = new Workflow({
	nodes: [{ id: 'n', name: 'n', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }],
	connections: {},
	active: false,
	nodeTypes,
});

function evaluate(expression: unknown, credentials: Record<string, unknown>): unknown {
	return workflow.expression.getParameterValue(
		expression as string,
		null,
		0,
		0,
		'n',
		[],
		'internal',
		{ $credentials: credentials } as never,
	);
}

function testTarget(credentials: Record<string, unknown>): { baseURL: unknown; url: unknown } {
	const request = credential.test.request as IHttpRequestOptions;
	return { baseURL: evaluate(request.baseURL, credentials), url: evaluate(request.url, credentials) };
}

describe('RecruitingAnalysisApi credential', () => {
	test('name, display name, documentation and icons', () => {
		expect(credential.name).toBe('recruitingAnalysisApi');
		expect(credential.displayName).toBe('Recruiting Analysis API');
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
		expect(credential.icon).toEqual({ light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' });
	});

	test('environment: Production, Sandbox, Custom Base URL; the URL field shows for sandbox and custom; the key is a password', () => {
		const environment = credential.properties.find((p) => p.name === 'environment');
		expect(environment?.options?.map((o) => ('value' in o ? o.value : undefined))).toEqual(['production', 'sandbox', 'custom']);
		const urlFields = credential.properties.filter((p) => p.name === 'baseUrl');
		expect(urlFields.map((p) => p.displayOptions?.show?.environment)).toEqual([['sandbox'], ['custom']]);
		expect(urlFields[0].default).toBe(SANDBOX_BASE_URL);
		const apiKey = credential.properties.find((p) => p.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		expect(apiKey?.required).toBe(true);
	});

	test('authenticate sends a bearer header with the trimmed key, keeping the request\'s other headers', async () => {
		const request = await credential.authenticate({ apiKey: '  svc_test_abc \n' }, { url: '/api/v1/reports', headers: { Accept: 'application/json' } });
		expect(request.headers).toEqual({ Accept: 'application/json', Authorization: 'Bearer svc_test_abc' });
		expect(request.url).toBe('/api/v1/reports');
	});

	test('test request targets GET /api/v1/job-descriptions?limit=1 on the environment base URL', () => {
		expect(credential.test.request.method).toBe('GET');
		expect(credential.test.request.qs).toEqual({ limit: 1 });
		expect(testTarget({ environment: 'production', apiKey: 'live_1' })).toEqual({
			baseURL: PRODUCTION_BASE_URL,
			url: '/api/v1/job-descriptions',
		});
		expect(testTarget({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:5001/', apiKey: 'svc_test_1' })).toEqual({
			baseURL: 'http://127.0.0.1:5001',
			url: '/api/v1/job-descriptions',
		});
		expect(testTarget({ environment: 'sandbox', baseUrl: '', apiKey: 'svc_test_1' }).baseURL).toBe(SANDBOX_BASE_URL);
		expect(testTarget({ environment: 'custom', baseUrl: ' https://eu.example.com ', apiKey: 'anything' }).baseURL).toBe(
			'https://eu.example.com',
		);
	});

	test('key/environment mismatches point the test at a local data: answer, never at a host', () => {
		expect(testTarget({ environment: 'production', apiKey: 'svc_test_1' })).toEqual({
			baseURL: '',
			url: `data:text/plain,${REFUSAL_PAYLOAD_PRODUCTION}`,
		});
		expect(testTarget({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:4010', apiKey: 'live_1' })).toEqual({
			baseURL: '',
			url: `data:text/plain,${REFUSAL_PAYLOAD_SANDBOX}`,
		});
	});

	test('the refusal payloads have distinct lengths, each matched by its own rule', () => {
		expect(REFUSAL_PAYLOAD_PRODUCTION.length).not.toBe(REFUSAL_PAYLOAD_SANDBOX.length);
		const lengthRules = (credential.test.rules ?? []).filter((r) => 'key' in r.properties && r.properties.key === 'length');
		expect(lengthRules.map((r) => r.properties.value)).toEqual([REFUSAL_PAYLOAD_PRODUCTION.length, REFUSAL_PAYLOAD_SANDBOX.length]);
	});
});
