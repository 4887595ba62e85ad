/**
 * The API credential's description and its `authenticate` function. Its test is the nodes'
 * `recruitingAnalysisApiTest` (test/nodes/transport/credential.test.ts).
 */
import {
	PRODUCTION_BASE_URL,
	RecruitingAnalysisApi,
	SANDBOX_BASE_URL,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { resolveBaseUrl } from '../../../nodes/RecruitingAnalysis/transport/environment';

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

	test('a new credential opens on Sandbox, whose address works once the sandbox runs, not on the placeholder Production address', () => {
		const environment = credential.properties.find((p) => p.name === 'environment');
		expect(environment?.default).toBe('sandbox');
		// What a new credential resolves to with every field at its default (n8n fills defaults in before a run).
		const defaults = Object.fromEntries(
			credential.properties
				.filter((p) => p.type !== 'notice')
				.filter((p) => !p.displayOptions || p.displayOptions.show?.environment?.includes('sandbox'))
				.map((p) => [p.name, p.default]),
		);
		expect(resolveBaseUrl(defaults)).toEqual({ baseUrl: SANDBOX_BASE_URL });
		expect(resolveBaseUrl({ ...defaults, environment: 'production' })).toEqual({
			baseUrl: PRODUCTION_BASE_URL,
		});
	});

	test('says where a key comes from, and how to start the sandbox when Sandbox is chosen', () => {
		const apiKey = credential.properties.find((p) => p.name === 'apiKey');
		expect(apiKey?.hint).toMatch(/workspace Admin .*Settings → Developer → API keys/);
		const notices = credential.properties.filter((p) => p.type === 'notice');
		expect(notices.map((p) => p.displayOptions?.show?.environment)).toEqual([['sandbox']]);
		expect(notices[0].displayName).toMatch(/npm run -s sandbox/);
		expect(notices[0].displayName).toMatch(/base URL and a svc_test_ key/);
		const sandbox = credential.properties
			.find((p) => p.name === 'environment')
			?.options?.find((o) => 'value' in o && o.value === 'sandbox');
		expect(sandbox && 'description' in sandbox ? sandbox.description : '').toMatch(
			/npm run -s sandbox/,
		);
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
