import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { runWebhookMethods, startWebhookHost, type WebhookHost } from '../../helpers/n8n-engine';
import {
	EchoApi,
	EchoSigningApi,
	SignedWebhookTrigger,
	signBody,
	useEchoServer,
	type EchoServer,
} from './fixtures';

const SECRET = 'whsec_harness_secret';
let server: EchoServer;
useEchoServer((started) => (server = started));

const options = (staticData: IDataObject = {}) => ({
	nodeType: new SignedWebhookTrigger(),
	credentialTypes: [new EchoSigningApi(), new EchoApi()],
	credentials: {
		echoSigningApi: { secret: SECRET },
		echoApi: { apiKey: 'svc_test_hooks', baseUrl: server.baseUrl },
	},
	parameters: {},
	staticData,
});

async function post(
	host: WebhookHost,
	body: Buffer,
	signature: string,
	contentType = 'application/json',
) {
	const response = await fetch(`${host.url}?source=test`, {
		method: 'POST',
		headers: { 'content-type': contentType, 'x-signature': signature },
		body,
	});
	return { status: response.status, json: (await response.json()) as IDataObject };
}

describe('startWebhookHost', () => {
	let host: WebhookHost;
	let staticData: IDataObject;
	beforeEach(async () => {
		staticData = {};
		host = await startWebhookHost(options(staticData));
	});
	afterEach(async () => {
		await host.close();
	});

	it('serves the node at its production webhook URL and runs the activation hooks', () => {
		expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/[0-9a-f-]{36}\/events$/);
		expect(server.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
			['POST', '/register', 'Bearer svc_test_hooks'],
		]);
		expect(staticData['node:Signed Webhook Trigger']).toMatchObject({ registeredUrl: host.url });
	});

	it('passes the exact received bytes as rawBody (signature over bytes a re-serialisation would change)', async () => {
		const body = Buffer.from(
			'{"id":"evt_1",   "type":"report.completed","name":"Zoë\\u00e9"}\n',
			'utf8',
		);
		const result = await post(host, body, signBody(SECRET, body));
		expect(result).toEqual({ status: 200, json: { message: 'Workflow was started' } });
		expect(host.executions).toHaveLength(1);
		const item = host.executions[0].workflowData[0][0].json;
		expect(item).toMatchObject({ rawBytes: body.length, query: { source: 'test' } });
		expect(item.event).toEqual({ id: 'evt_1', type: 'report.completed', name: 'Zoëé' });
		expect(createHash('sha256').update(host.responses[0].rawBody).digest('hex')).toBe(
			createHash('sha256').update(body).digest('hex'),
		);
		expect(host.executions[0].run.status).toBe('success');
		expect(Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')))).equals(body)).toBe(false);
	});

	it('answers 401 through the response object without starting the workflow on a bad signature', async () => {
		const body = Buffer.from('{"id":"evt_2","type":"report.completed"}');
		const result = await post(host, body, signBody('whsec_wrong', body));
		expect(result).toEqual({ status: 401, json: { error: 'invalid signature' } });
		expect(host.executions).toHaveLength(0);
		expect(host.responses[0]).toMatchObject({ status: 401 });
	});

	it('answers with webhookResponse and starts nothing when the node returns no workflowData; saves static data', async () => {
		const body = Buffer.from('{"id":"evt_3","type":"interview.started"}');
		expect(await post(host, body, signBody(SECRET, body))).toEqual({
			status: 200,
			json: { ignored: 'interview.started' },
		});
		expect(await post(host, body, signBody(SECRET, body))).toEqual({
			status: 200,
			json: { duplicate: true },
		});
		expect(host.executions).toHaveLength(0);
		expect(staticData['node:Signed Webhook Trigger']).toMatchObject({ seen: ['evt_3'] });
	});

	it('rejects other methods like an unregistered webhook', async () => {
		const response = await fetch(host.url, { method: 'GET' });
		expect(response.status).toBe(404);
	});

	it('close() runs the delete hook and clears the registration from static data', async () => {
		await host.close();
		expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE' });
		expect(server.requests.at(-1)!.url).toMatch(/^\/register\/reg-/);
		expect(staticData['node:Signed Webhook Trigger']).not.toHaveProperty('registrationId');
	});
});

describe('runWebhookMethods', () => {
	it('runs checkExists / create in a HookContext and saves static data like n8n after activation', async () => {
		const staticData: IDataObject = {};
		expect(await runWebhookMethods(options(staticData), 'checkExists')).toBe(false);
		expect(await runWebhookMethods(options(staticData), 'create')).toBe(true);
		expect(staticData['node:Signed Webhook Trigger']).toHaveProperty('registrationId');
		expect(await runWebhookMethods(options(staticData), 'checkExists')).toBe(true);
		expect(server.requests.map((r) => r.url)).toEqual(['/register']);
	});
});

describe('stable webhookId', () => {
	it('with the same webhookId the URL stays the same, so checkExists finds the registration (as in n8n)', async () => {
		const staticData: IDataObject = {};
		const opts = { ...options(staticData), webhookId: '11111111-2222-4333-8444-555555555555' };
		expect(await runWebhookMethods(opts, 'create')).toBe(true);
		expect((staticData['node:Signed Webhook Trigger'] as IDataObject).registeredUrl).toBe(
			'http://127.0.0.1:5678/webhook/11111111-2222-4333-8444-555555555555/events',
		);
		const host = await startWebhookHost(opts);
		try {
			expect(host.url).toMatch(/\/webhook\/11111111-2222-4333-8444-555555555555\/events$/);
		} finally {
			await host.close();
		}
	});
});
