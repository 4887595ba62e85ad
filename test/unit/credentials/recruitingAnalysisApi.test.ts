/**
 * The API credential's description and its `authenticate` function. Its test is the nodes'
 * `recruitingAnalysisApiTest` (test/nodes/transport/credential.test.ts).
 */
import {
	RecruitingAnalysisApi,
	SANDBOX_BASE_URL,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

const credential = new RecruitingAnalysisApi();

describe('RecruitingAnalysisApi credential', () => {
	test('name, display name, documentation and icons', () => {
		expect(credential.name).toBe('recruitingAnalysisApi');
		expect(credential.displayName).toBe('Recruiting Analysis API');
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
		expect(credential.icon).toEqual({
			light: 'file:recruitingAnalysis.svg',
			dark: 'file:recruitingAnalysis.dark.svg',
		});
	});

	test('environment: Production, Sandbox, Custom Base URL; the URL field shows for sandbox and custom; the key is a password', () => {
		const environment = credential.properties.find((p) => p.name === 'environment');
		expect(environment?.options?.map((o) => ('value' in o ? o.value : undefined))).toEqual([
			'production',
			'sandbox',
			'custom',
		]);
		const urlFields = credential.properties.filter((p) => p.name === 'baseUrl');
		expect(urlFields.map((p) => p.displayOptions?.show?.environment)).toEqual([
			['sandbox'],
			['custom'],
		]);
		expect(urlFields[0].default).toBe(SANDBOX_BASE_URL);
		const apiKey = credential.properties.find((p) => p.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		expect(apiKey?.required).toBe(true);
	});

	test("authenticate sends a bearer header with the trimmed key, keeping the request's other headers", async () => {
		const request = await credential.authenticate(
			{ apiKey: '  svc_test_abc \n' },
			{ url: '/api/v1/reports', headers: { Accept: 'application/json' } },
		);
		expect(request.headers).toEqual({
			Accept: 'application/json',
			Authorization: 'Bearer svc_test_abc',
		});
		expect(request.url).toBe('/api/v1/reports');
	});
});
