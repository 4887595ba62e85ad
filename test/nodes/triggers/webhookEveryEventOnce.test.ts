/**
 * Every event once, webhook side: answers that keep events coming back (401 only for the request's own signature,
 * 503 for a problem on the receiving side, which the sandbox's sender retries), and an acknowledged event that is
 * remembered where n8n stores it before the answer leaves. Served by the engine harness's webhook host (n8n-core
 * WebhookContext, static data saved when n8n saves it) with the sandbox's real sender.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { WebhookContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { request } from 'undici';

import { RecruitingAnalysisSigningSecretApi } from '../../../credentials/RecruitingAnalysisSigningSecretApi.credentials';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { processIdCount } from '../../../nodes/RecruitingAnalysis/webhook/dedupe';
import { keptSecretScopes } from '../../../nodes/RecruitingAnalysis/webhook/secrets';
import { signWebhook } from '../../helpers/sign-webhook';
import type { SandboxHandle } from '../../../sandbox/src';
import { buildSingleNodeWorkflow } from '../../helpers/engine/single-node';
import { startWebhookHost, testCredential, type WebhookHost } from '../../helpers/n8n-engine';
import {
	apiCredential,
	control,
	credentialTypes,
	eventually,
	newWorkspace,
	withSandbox,
	type Workspace,
} from './helpers';

let sb: SandboxHandle;
const hosts: WebhookHost[] = [];
beforeAll(async () => {
	sb = await withSandbox();
});
afterEach(async () => {
	for (const host of hosts.splice(0)) await host.close();
});
afterAll(async () => {
	await sb.close();
});

type TriggerClass = typeof RecruitingAnalysisTrigger;

async function startHost(
	ws: Workspace,
	signing: IDataObject | undefined,
	stored: IDataObject = {},
	Trigger: TriggerClass = RecruitingAnalysisTrigger,
	createExecution?: () => Promise<void> | void,
): Promise<WebhookHost> {
	const host = await startWebhookHost({
		createExecution,
		nodeType: new Trigger(),
		credentialTypes,
		credentials: {
			...(signing
				? { recruitingAnalysisSigningSecretApi: signing as ICredentialDataDecryptedObject }
				: {}),
			recruitingAnalysisApi: apiCredential(ws),
		} as Record<string, ICredentialDataDecryptedObject>,
		parameters: { events: ['*'] },
		staticData: stored,
		activate: false,
	});
	hosts.push(host);
	return host;
}

async function registerEndpoint(ws: Workspace, url: string): Promise<string> {
	return (
		await control(ws, 'POST', `/_sandbox/workspaces/${ws.workspaceId}/webhook-endpoints`, { url })
	).id as string;
}

interface Delivery {
	deliveryId: string;
	eventId: string;
	state: string;
	attempts: Array<{ status: number | null }>;
}

async function deliveries(ws: Workspace, endpointId: string): Promise<Delivery[]> {
	return (await control(ws, 'GET', `/_sandbox/webhook-endpoints/${endpointId}/deliveries`))
		.items as unknown as Delivery[];
}

async function sendTest(
	ws: Workspace,
	endpointId: string,
): Promise<{ deliveryId: string; eventId: string }> {
	return (await control(
		ws,
		'POST',
		`/_sandbox/webhook-endpoints/${endpointId}/test`,
	)) as unknown as { deliveryId: string; eventId: string };
}

function signedHeaders(secret: string, raw: Buffer): Record<string, string> {
	const id = `msg_${randomUUID()}`;
	const at = Math.floor(Date.now() / 1000);
	return {
		'content-type': 'application/json',
		'webhook-id': id,
		'webhook-timestamp': String(at),
		'webhook-signature': signWebhook({ secret, webhookId: id, timestamp: at, rawBody: raw }),
	};
}

const envelope = () =>
	Buffer.from(
		JSON.stringify({
			id: randomUUID(),
			type: 'webhook.test',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { test: true },
		}),
	);

describe('answers that keep events coming back', () => {
	it('a delivery signed with the current secret is accepted while the previous secret is garbled', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, {
			secret: ws.webhookSecret,
			previousSecret: 'whsec_garbled***',
		});
		const raw = envelope();
		const res = await request(host.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(200);
		expect(host.executions).toHaveLength(1);
	});

	it("a secret made unusable while deliveries arrive: 503, and the service's retries deliver the event once the secret is fixed", async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, { secret: 'whsec_***', previousSecret: '' });
		const endpointId = await registerEndpoint(ws, host.url);
		const { eventId } = await sendTest(ws, endpointId);
		await eventually(async () =>
			(await deliveries(ws, endpointId))[0]?.attempts.length >= 2 ? true : undefined,
		);

		const { node, credentialsHelper } = host.loaded;
		await credentialsHelper.updateCredentials(
			node.credentials!.recruitingAnalysisSigningSecretApi,
			'recruitingAnalysisSigningSecretApi',
			{
				secret: ws.webhookSecret,
				previousSecret: '',
			},
		);
		const [delivery] = await eventually(async () => {
			const list = await deliveries(ws, endpointId);
			return list[0]?.state === 'succeeded' ? list : undefined;
		}, 20_000);
		const statuses = delivery.attempts.map((a) => a.status);
		expect(statuses.slice(0, 2)).toEqual([503, 503]);
		expect(statuses.at(-1)).toBe(200);
		expect(host.executions.map((e) => e.workflowData[0][0].json.id)).toEqual([eventId]);
	});

	it('a signing credential that cannot be read answers 503, not 401', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, undefined);
		const raw = envelope();
		const res = await request(host.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(503);
		expect(host.executions).toHaveLength(0);
	});

	it("a wrong signature is still 401 (the request's own fault, final for the service)", async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, { secret: ws.webhookSecret, previousSecret: '' });
		const raw = envelope();
		const forged = signedHeaders(`whsec_${randomBytes(24).toString('base64')}`, raw);
		const res = await request(host.url, { method: 'POST', headers: forged, body: raw });
		expect(res.statusCode).toBe(401);
		expect(host.executions).toHaveLength(0);
	});

	it('a signed body that starts with a UTF-8 byte order mark is accepted', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, { secret: ws.webhookSecret, previousSecret: '' });
		const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), envelope()]);
		const res = await request(host.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(200);
		expect(host.executions).toHaveLength(1);
	});

	it('the credential test refuses a secret shorter than 16 bytes', async () => {
		const short = `whsec_${randomBytes(1).toString('base64')}`;
		const result = await testCredential(
			new RecruitingAnalysisSigningSecretApi(),
			{ secret: short, previousSecret: '' },
			{
				nodeTypes: [new RecruitingAnalysisTrigger()],
			},
		);
		expect(result).toMatchObject({ status: 'Error', message: expect.stringContaining('16 bytes') });
	});
});

describe('an event runs at least once whatever n8n does after the trigger answers', () => {
	it("n8n fails to create the execution once: the sender's retry starts the event (not a duplicate)", async () => {
		const ws = await newWorkspace(sb);
		let failures = 1;
		const stored: IDataObject = {};
		const host = await startHost(
			ws,
			{ secret: ws.webhookSecret, previousSecret: '' },
			stored,
			RecruitingAnalysisTrigger,
			() => {
				if (failures-- > 0) throw new Error('database is busy');
			},
		);
		const endpointId = await registerEndpoint(ws, host.url);
		const { eventId } = await sendTest(ws, endpointId);
		const [delivery] = await eventually(async () => {
			const list = await deliveries(ws, endpointId);
			return list[0]?.state === 'succeeded' ? list : undefined;
		}, 20_000);
		expect(delivery.attempts.map((a) => a.status)).toEqual([500, 200]);
		expect(JSON.parse(host.responses[1].responseBody.toString('utf8'))).toEqual({
			received: true,
			started: true,
		});
		expect(host.executions.map((e) => e.workflowData[0][0].json.id)).toEqual([eventId]);
		// What n8n's database holds: the id once, written with the acknowledgement.
		expect(Object.values(stored).map((node) => (node as IDataObject).seenEventIds)).toEqual([
			[eventId],
		]);
	});

	it('a copy arriving while the first is being started is answered 503 (retried); once started, copies are duplicates', async () => {
		const ws = await newWorkspace(sb);
		let release: () => void = () => {};
		const creating = new Promise<void>((resolve) => {
			release = resolve;
		});
		let entered: () => void = () => {};
		const started = new Promise<void>((resolve) => {
			entered = resolve;
		});
		const host = await startHost(
			ws,
			{ secret: ws.webhookSecret, previousSecret: '' },
			{},
			RecruitingAnalysisTrigger,
			async () => {
				entered();
				await creating;
			},
		);
		const raw = envelope();
		const post = async () =>
			await request(host.url, {
				method: 'POST',
				headers: signedHeaders(ws.webhookSecret, raw),
				body: raw,
			});
		const first = post();
		await started;
		const copy = await post();
		expect(copy.statusCode).toBe(503);
		expect(await copy.body.json()).toMatchObject({
			error: { code: 'SERVICE_UNAVAILABLE', reason: 'DELIVERY_IN_PROGRESS' },
		});
		release();
		expect((await first).statusCode).toBe(200);
		const retry = await post();
		expect(retry.statusCode).toBe(200);
		expect(await retry.body.json()).toMatchObject({ reason: 'duplicate event id' });
		expect(host.executions).toHaveLength(1);
	});
});

describe('process memory follows the workflow', () => {
	it("deactivating the workflow drops this process's remembered ids and kept secrets (the stored list stays)", async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const host = await startWebhookHost({
			nodeType: new RecruitingAnalysisTrigger(),
			credentialTypes,
			credentials: {
				recruitingAnalysisSigningSecretApi: { secret: ws.webhookSecret, previousSecret: '' },
			} as Record<string, ICredentialDataDecryptedObject>,
			parameters: { events: ['*'] },
			staticData: stored,
			activate: true,
		});
		hosts.push(host);
		const idsBefore = processIdCount();
		const secretsBefore = keptSecretScopes();
		for (let i = 0; i < 3; i++) {
			const raw = envelope();
			const res = await request(host.url, {
				method: 'POST',
				headers: signedHeaders(ws.webhookSecret, raw),
				body: raw,
			});
			expect(res.statusCode).toBe(200);
		}
		expect(processIdCount()).toBe(idsBefore + 3);
		expect(keptSecretScopes()).toBe(secretsBefore + 1);
		await host.close(); // n8n runs the webhook's delete on deactivation and before deleting the workflow
		expect(processIdCount()).toBe(idsBefore);
		expect(keptSecretScopes()).toBe(secretsBefore);
		const nodeData = Object.entries(stored).find(([k]) => k.startsWith('node:'))![1] as IDataObject;
		expect(nodeData.seenEventIds as string[]).toHaveLength(3);
	});
});

describe('acknowledged means remembered', () => {
	it('an event acknowledged right after another is stored before its answer: replayed after a restart, it does not run again', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const first = await startHost(ws, { secret: ws.webhookSecret, previousSecret: '' }, stored);
		const endpointId = await registerEndpoint(ws, first.url);
		await sendTest(ws, endpointId);
		const second = await sendTest(ws, endpointId);
		await eventually(async () =>
			(await deliveries(ws, endpointId)).every((d) => d.state === 'succeeded') ? true : undefined,
		);
		expect(first.executions).toHaveLength(2);
		// What n8n's database holds once both answers went out; nothing is written after them.
		const row = JSON.parse(JSON.stringify(stored)) as IDataObject;
		await first.close();

		// Another n8n process (or the same after a restart): a fresh copy of the node's module, the stored row.
		let Restarted: TriggerClass = RecruitingAnalysisTrigger;
		await jest.isolateModulesAsync(async () => {
			const fresh =
				await import('../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node');
			Restarted = fresh.RecruitingAnalysisTrigger as TriggerClass;
		});
		const restarted = await startHost(
			ws,
			{ secret: ws.webhookSecret, previousSecret: '' },
			row,
			Restarted,
		);
		await control(ws, 'PATCH', `/_sandbox/webhook-endpoints/${endpointId}`, { url: restarted.url });
		await control(ws, 'POST', `/_sandbox/deliveries/${second.deliveryId}/replay`);
		await eventually(async () =>
			restarted.responses.length === 1 && restarted.responses[0].status !== 0 ? true : undefined,
		);
		expect(restarted.responses[0].status).toBe(200);
		expect(JSON.parse(restarted.responses[0].responseBody.toString('utf8'))).toMatchObject({
			reason: 'duplicate event id',
		});
		expect(restarted.executions).toHaveLength(0);
	});

	it('test sessions start clean: the same test event sent to two listening sessions starts both', async () => {
		const ws = await newWorkspace(sb);
		const raw = envelope();
		const started: boolean[] = [];
		for (let session = 0; session < 2; session++) {
			// n8n builds each test session's workflow with empty static data (TestWebhooks) and runs it in manual mode.
			const nodeType = new RecruitingAnalysisTrigger();
			const loaded = await buildSingleNodeWorkflow({
				nodeType,
				credentialTypes,
				credentials: {
					recruitingAnalysisSigningSecretApi: { secret: ws.webhookSecret, previousSecret: '' },
				},
				parameters: { events: ['*'] },
			});
			const answered: unknown[] = [];
			const res = {
				status: () => res,
				set: () => res,
				json: (body: unknown) => answered.push(body),
			};
			const req = {
				headers: signedHeaders(ws.webhookSecret, raw),
				rawBody: raw,
				body: JSON.parse(raw.toString('utf8')),
				readRawBody: async () => {},
			};
			const additionalData: IWorkflowExecuteAdditionalData = {
				...loaded.additionalData,
				httpRequest: req as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
				httpResponse: res as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
			};
			const webhookData: IWebhookData = {
				httpMethod: 'POST',
				node: loaded.node.name,
				path: 'webhook',
				webhookDescription: nodeType.description.webhooks![0],
				workflowId: loaded.workflow.id,
				workflowExecuteAdditionalData: additionalData,
				webhookId: loaded.node.webhookId,
			};
			const context = new WebhookContext(
				loaded.workflow,
				loaded.node,
				additionalData,
				'manual',
				webhookData,
				[],
				null,
			);
			const result = await nodeType.webhook.call(context);
			started.push(result.workflowData !== undefined && answered.length === 0);
		}
		expect(started).toEqual([true, true]);
	});
});
