import type { ICredentialType } from 'n8n-workflow';

import {
	runListSearch,
	runLoadOptions,
	runTrigger,
	testCredential,
} from '../../helpers/n8n-engine';
import {
	EchoApi,
	EchoNode,
	OnceTrigger,
	TokenApi,
	useEchoServer,
	type EchoServer,
} from './fixtures';

let server: EchoServer;
useEchoServer((started) => (server = started));

describe('testCredential', () => {
	it('runs the credential test request with the generic authenticate applied', async () => {
		const result = await testCredential(new EchoApi(), {
			apiKey: 'svc_test_ok',
			baseUrl: server.baseUrl,
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(server.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
			['GET', '/whoami', 'Bearer svc_test_ok'],
		]);
	});

	it("reports a non-2xx answer as n8n does (after n8n-core's one re-authenticated retry on 401)", async () => {
		server.failNext('/whoami', 401, 2);
		const result = await testCredential(new EchoApi(), {
			apiKey: 'svc_test_bad',
			baseUrl: server.baseUrl,
		});
		expect(result).toEqual({ status: 'Error', message: 'Unauthorized' });
		expect(server.requests.map((r) => r.url)).toEqual(['/whoami', '/whoami']);
	});

	it('a single 401 is retried once by httpRequestWithAuthentication, so the test passes', async () => {
		server.failNext('/whoami', 401, 1);
		const result = await testCredential(new EchoApi(), {
			apiKey: 'svc_test_once',
			baseUrl: server.baseUrl,
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(server.requests).toHaveLength(2);
	});

	it('applies responseCode rules', async () => {
		const credential = new EchoApi();
		credential.test = {
			...credential.test,
			rules: [{ type: 'responseCode', properties: { value: 403, message: 'Key lacks scope' } }],
		};
		server.failNext('/whoami', 403);
		expect(
			await testCredential(credential, { apiKey: 'svc_test_scope', baseUrl: server.baseUrl }),
		).toEqual({
			status: 'Error',
			message: 'Key lacks scope',
		});
	});

	it('reports a refused connection by its code', async () => {
		const result = await testCredential(new EchoApi(), {
			apiKey: 'svc_test_x',
			baseUrl: 'http://127.0.0.1:9',
		});
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});

	it('always runs preAuthentication when testing (n8n treats the temp node as a credential test)', async () => {
		const credential: ICredentialType = Object.assign(new TokenApi(), {
			test: { request: { baseURL: '={{$credentials.baseUrl}}', url: '/secure' } },
		});
		const result = await testCredential(credential, {
			baseUrl: server.baseUrl,
			sessionToken: 'still-looks-valid',
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(server.requests.map((r) => [r.url, r.headers.authorization ?? null])).toEqual([
			['/token', null],
			['/secure', 'Bearer fresh-token'],
		]);
	});

	it('says so when there is no test', async () => {
		const credential = new EchoApi() as ICredentialType;
		delete credential.test;
		expect(await testCredential(credential, {})).toEqual({
			status: 'Error',
			message: 'No testing function found for this credential.',
		});
	});
});

describe('runLoadOptions', () => {
	it('runs methods.loadOptions in a LoadOptionsContext with the node parameters and credentials', async () => {
		const options = await runLoadOptions({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: { echoApi: { apiKey: 'svc_test_lo', baseUrl: server.baseUrl } },
			parameters: { path: '/fields' },
			method: 'getEchoFields',
		});
		expect(options).toEqual(
			expect.arrayContaining([
				{ name: 'path', value: '/fields' },
				{ name: 'authorization', value: 'Bearer svc_test_lo' },
			]),
		);
	});
});

describe('runListSearch', () => {
	it('runs methods.listSearch with filter and pagination token', async () => {
		const base = {
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: { echoApi: { apiKey: 'svc_test_ls', baseUrl: server.baseUrl } },
			parameters: {},
			method: 'searchEchoFields',
		};
		const first = await runListSearch({ ...base, filter: 'o' });
		expect(first.results.map((r) => r.name)).toEqual(['method', 'authorization']);
		expect(first.paginationToken).toBe('2');
		const next = await runListSearch({
			...base,
			filter: 'o',
			paginationToken: first.paginationToken,
		});
		expect(next.results.length).toBeGreaterThan(0);
		expect(server.requests.map((r) => r.headers.authorization)).toEqual([
			'Bearer svc_test_ls',
			'Bearer svc_test_ls',
		]);
	});
});

describe('runTrigger', () => {
	it('activates a trigger() node through TriggersAndPollers, collects emits and closes it', async () => {
		const staticData = {};
		const active = await runTrigger({
			nodeType: new OnceTrigger(),
			parameters: { value: 'x' },
			staticData,
		});
		expect(active.emitted).toEqual([[[{ json: { value: 'x' } }]]]);
		expect(staticData).toEqual({ 'node:Once Trigger': { activations: 1 } });
		const before = OnceTrigger.closed;
		await active.close();
		expect(OnceTrigger.closed).toBe(before + 1);
	});

	it('manual mode exposes the manual trigger response', async () => {
		const active = await runTrigger({
			nodeType: new OnceTrigger(),
			parameters: { value: 'm' },
			mode: 'manual',
		});
		await active.response!.manualTriggerFunction!();
		await expect(active.response!.manualTriggerResponse).resolves.toEqual([
			[{ json: { value: 'm' } }],
		]);
		await active.close();
	});
});
