/**
 * The webhook trigger served by the engine harness's webhook host (n8n-core WebhookContext) on
 * 127.0.0.1, with the sandbox's real webhook sender (standardwebhooks signatures, undici, retry
 * schedule) posting to it; forged deliveries go over real HTTP to the same host.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import type { SandboxHandle } from '../../../sandbox/src';
import { RecruitingAnalysisSigningSecretApi } from '../../../credentials/RecruitingAnalysisSigningSecretApi.credentials';
import {
	runWebhookMethods,
	startWebhookHost,
	testCredential,
	type WebhookHost,
} from '../../helpers/n8n-engine';
import {
	analyse,
	api,
	apiCredential,
	control,
	credentialTypes,
	eventually,
	newWorkspace,
	signedHeaders,
	withSandbox,
	type Workspace,
} from './helpers';

let sb: SandboxHandle;
const hosts: WebhookHost[] = [];
const servers: Server[] = [];
beforeAll(async () => {
	sb = await withSandbox();
});
afterEach(async () => {
	for (const host of hosts.splice(0)) await host.close();
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});
afterAll(async () => {
	await sb.close();
});

interface HostSetup {
	secret?: string;
	previousSecret?: string;
	parameters?: INodeParameters;
	staticData?: IDataObject;
	activate?: boolean;
}

function hostOptions(ws: Workspace, setup: HostSetup = {}) {
	return {
		nodeType: new RecruitingAnalysisTrigger(),
		credentialTypes,
		credentials: {
			recruitingAnalysisSigningSecretApi: {
				secret: setup.secret ?? ws.webhookSecret,
				previousSecret: setup.previousSecret ?? '',
			},
			recruitingAnalysisApi: apiCredential(ws),
		},
		parameters: { events: ['*'], ...(setup.parameters ?? {}) },
		staticData: setup.staticData ?? {},
		...(setup.activate === undefined ? {} : { activate: setup.activate }),
	};
}

async function startHost(ws: Workspace, setup: HostSetup = {}): Promise<WebhookHost> {
	const host = await startWebhookHost(hostOptions(ws, setup));
	hosts.push(host);
	return host;
}

async function registerEndpoint(
	ws: Workspace,
	url: string,
	eventTypes?: string[],
): Promise<string> {
	const body = await control(
		ws,
		'POST',
		`/_sandbox/workspaces/${ws.workspaceId}/webhook-endpoints`,
		{
			url,
			...(eventTypes ? { eventTypes } : {}),
		},
	);
	return body.id as string;
}

interface Delivery {
	deliveryId: string;
	eventId: string;
	eventType: string;
	state: string;
	attempts: Array<{ status: number | null; error: string | null }>;
}

async function deliveries(ws: Workspace, endpointId: string): Promise<Delivery[]> {
	const body = await control(ws, 'GET', `/_sandbox/webhook-endpoints/${endpointId}/deliveries`);
	return body.items as unknown as Delivery[];
}

/** Waits until every delivery of the endpoint is finished and at least `count` exist. */
async function settled(ws: Workspace, endpointId: string, count: number): Promise<Delivery[]> {
	return await eventually(async () => {
		const list = await deliveries(ws, endpointId);
		return list.length >= count &&
			list.every((d) => d.state === 'succeeded' || d.state === 'failed')
			? list
			: undefined;
	});
}

async function sendTest(
	ws: Workspace,
	endpointId: string,
): Promise<{ deliveryId: string; eventId: string }> {
	return (await control(
		ws,
		'POST',
		`/_sandbox/webhook-endpoints/${endpointId}/test`,
	)) as unknown as {
		deliveryId: string;
		eventId: string;
	};
}

const outputOf = (host: WebhookHost) => host.executions.map((e) => e.workflowData[0][0].json);

describe('deliveries from the sandbox sender', () => {
	it('a webhook.test delivery starts the workflow once, with the envelope and delivery metadata', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws);
		const endpointId = await registerEndpoint(ws, host.url);
		const { eventId } = await sendTest(ws, endpointId);
		const [delivery] = await settled(ws, endpointId, 1);

		expect(delivery).toMatchObject({ state: 'succeeded', eventId });
		expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
		expect(host.executions).toHaveLength(1);
		const out = outputOf(host)[0];
		expect(out).toMatchObject({
			id: eventId,
			type: 'webhook.test',
			schemaVersion: 1,
			data: { test: true },
		});
		const meta = out.delivery as IDataObject;
		expect(meta.webhookId).toBe(eventId);
		expect(Math.abs(Date.parse(meta.timestamp as string) - Date.now())).toBeLessThan(60_000);
		expect(meta.signedWith).toBe('current secret');
		expect(host.executions[0].run.status).toBe('success');
	});

	it('real report events, with the resource fetched and the attempt checked', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, { parameters: { events: ['*'], fetchResource: true } });
		const endpointId = await registerEndpoint(ws, host.url, [
			'report.completed',
			'report.result_ready',
		]);
		const { reportId, attemptId } = await analyse(ws);
		await settled(ws, endpointId, 2);

		const byType = Object.fromEntries(outputOf(host).map((o) => [o.type, o]));
		expect(byType['report.completed']).toMatchObject({
			data: { reportId, attemptId, status: 'completed' },
			resourceKind: 'reportStatus',
			resource: { id: reportId, status: 'completed', attemptId },
			attemptCheck: { eventAttemptId: attemptId, currentAttemptId: attemptId, isCurrent: true },
			delayedEvent: false,
		});
		expect(byType['report.result_ready']).toMatchObject({
			data: { reportId, attemptId },
			resourceKind: 'reportResult',
			resource: { reportId, attemptId, schemaVersion: 1 },
		});
		expect((byType['report.result_ready'].resource as IDataObject).result).not.toBeNull();
	});

	it('interview events: the interview result is fetched on interview.result_ready', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, {
			parameters: {
				events: ['interview.completed', 'interview.result_ready'],
				fetchResource: true,
			},
		});
		const endpointId = await registerEndpoint(ws, host.url);
		const { reportId } = await analyse(ws);
		await eventually(async () => {
			const r = await api(ws, 'GET', `/api/v1/reports/${reportId}/status`);
			return (r.body.data as IDataObject).status === 'completed' ? true : undefined;
		});
		const invite = { reportId, candidateEmail: 'candidate@example.com', sendEmail: true };
		const quote = await api(ws, 'POST', '/api/v1/interview-quotes', invite);
		expect(quote.status).toBe(200);
		const created = await api(
			ws,
			'POST',
			'/api/v1/interviews',
			{ ...invite, quoteFingerprint: (quote.body.data as IDataObject).fingerprint },
			{ 'idempotency-key': `test-${randomUUID()}` },
		);
		expect(created.status).toBe(202);
		const interviewId = (created.body.data as IDataObject).interviewId as string;
		await eventually(async () => {
			const r = await api(ws, 'GET', `/api/v1/interviews/${interviewId}/status`);
			return (r.body.data as IDataObject).preparation === 'ready' ? true : undefined;
		});
		for (const type of ['interview.started', 'interview.completed', 'interview.result_ready']) {
			await control(ws, 'POST', `/_sandbox/interviews/${interviewId}/events`, { type });
		}
		await eventually(async () => (host.executions.length >= 2 ? true : undefined));
		await settled(ws, endpointId, 1);

		const byType = Object.fromEntries(outputOf(host).map((o) => [o.type, o]));
		expect(Object.keys(byType).sort()).toEqual(['interview.completed', 'interview.result_ready']);
		expect(byType['interview.completed']).toMatchObject({
			data: { interviewId, reportId, lifecycle: 'completed' },
			resourceKind: 'interviewStatus',
			resource: { id: interviewId, lifecycle: 'completed' },
		});
		expect(byType['interview.result_ready']).toMatchObject({
			data: { interviewId, reportId },
			resourceKind: 'interviewResult',
			resource: { id: interviewId, evaluation: 'ready', schemaVersion: 1 },
		});
		expect((byType['interview.result_ready'].resource as IDataObject).result).not.toBeNull();
	});

	it('retries after a lost acknowledgement and manual replays start the workflow only once', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws);
		// A front proxy that passes every delivery to n8n but loses the first answer (503 to the sender),
		// as a load balancer timing out would: the sender retries with a fresh timestamp and signature.
		let seen = 0;
		const proxy = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				void (async () => {
					const forwarded = await request(host.url, {
						method: 'POST',
						headers: req.headers as Record<string, string>,
						body: Buffer.concat(chunks),
					});
					await forwarded.body.dump();
					seen++;
					res.statusCode = seen === 1 ? 503 : forwarded.statusCode;
					res.end();
				})();
			});
		});
		servers.push(proxy);
		await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
		const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
		const endpointId = await registerEndpoint(ws, proxyUrl);

		await sendTest(ws, endpointId);
		const [delivery] = await settled(ws, endpointId, 1);
		expect(delivery.attempts.map((a) => a.status)).toEqual([503, 200]);
		// Both attempts reached n8n, verified, with the same event id; only the first started the workflow.
		expect(host.responses.map((r) => r.status)).toEqual([200, 200]);
		expect(host.responses.map((r) => r.headers['webhook-id'])).toEqual([
			delivery.eventId,
			delivery.eventId,
		]);
		// The trigger answers a duplicate itself: n8n would first write the static data to its database before
		// sending an answer of its own, which under load held acknowledgements for seconds (bench B5).
		expect(host.responses[1].webhookResult).toEqual({ noWebhookResponse: true });
		expect(JSON.parse(host.responses[1].responseBody.toString('utf8'))).toEqual({
			received: true,
			started: false,
			reason: 'duplicate event id',
		});
		expect(host.executions).toHaveLength(1);

		const replay = (await control(
			ws,
			'POST',
			`/_sandbox/deliveries/${delivery.deliveryId}/replay`,
		)) as IDataObject;
		expect(replay.eventId).toBe(delivery.eventId);
		await settled(ws, endpointId, 2);
		expect(host.responses).toHaveLength(3);
		expect(host.responses[2].status).toBe(200);
		expect(host.responses[2].webhookResult).toEqual({ noWebhookResponse: true });
		expect(JSON.parse(host.responses[2].responseBody.toString('utf8'))).toMatchObject({
			started: false,
			reason: 'duplicate event id',
		});
		expect(host.executions).toHaveLength(1);
	});

	it('secret rotation: two signatures; the old secret, the new one, or both configured all verify', async () => {
		const ws = await newWorkspace(sb);
		const oldSecret = ws.webhookSecret;
		const endpointId = await registerEndpoint(ws, 'http://127.0.0.1:9/'); // URL set per host below
		const rotated = (await control(
			ws,
			'POST',
			`/_sandbox/webhook-endpoints/${endpointId}/rotate-secret`,
		)) as IDataObject;
		expect(rotated.previousSecret).toBe(oldSecret);
		const newSecret = rotated.secret as string;

		const setups: Array<[string, HostSetup, string]> = [
			['not yet updated (old secret only)', { secret: oldSecret }, 'current secret'],
			['updated (new secret only)', { secret: newSecret }, 'current secret'],
			[
				'during the rotation (new + previous)',
				{ secret: newSecret, previousSecret: oldSecret },
				'current secret',
			],
			[
				'previous slot holds the match',
				{ secret: `whsec_${randomBytes(24).toString('base64')}`, previousSecret: oldSecret },
				'previous secret',
			],
		];
		for (const [, setup, signedWith] of setups) {
			const host = await startHost(ws, setup);
			await control(ws, 'PATCH', `/_sandbox/webhook-endpoints/${endpointId}`, { url: host.url });
			const before = (await deliveries(ws, endpointId)).length;
			await sendTest(ws, endpointId);
			await settled(ws, endpointId, before + 1);
			expect(host.responses).toHaveLength(1);
			expect(String(host.responses[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
			expect(host.responses[0].status).toBe(200);
			expect(host.executions).toHaveLength(1);
			expect((outputOf(host)[0].delivery as IDataObject).signedWith).toBe(signedWith);
		}

		// A secret that is neither: 401, no execution, and the sender does not retry a 401.
		const stranger = await startHost(ws, { secret: `whsec_${randomBytes(24).toString('base64')}` });
		await control(ws, 'PATCH', `/_sandbox/webhook-endpoints/${endpointId}`, { url: stranger.url });
		const before = (await deliveries(ws, endpointId)).length;
		await sendTest(ws, endpointId);
		const list = await settled(ws, endpointId, before + 1);
		expect(list.at(-1)).toMatchObject({ state: 'failed' });
		expect(stranger.responses.map((r) => r.status)).toEqual([401]);
		expect(stranger.executions).toHaveLength(0);
	});

	it('event types that are not selected are acknowledged without starting the workflow', async () => {
		const ws = await newWorkspace(sb);
		const host = await startHost(ws, { parameters: { events: ['report.completed'] } });
		const endpointId = await registerEndpoint(ws, host.url);
		await sendTest(ws, endpointId);
		const [delivery] = await settled(ws, endpointId, 1);
		expect(delivery.state).toBe('succeeded');
		expect(host.responses.map((r) => r.status)).toEqual([200]);
		expect(host.executions).toHaveLength(0);
	});

	it('the remembered ids are saved in static data and survive a restart', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const first = await startHost(ws, { staticData: stored });
		const endpointId = await registerEndpoint(ws, first.url);
		await sendTest(ws, endpointId);
		const [delivery] = await settled(ws, endpointId, 1);
		expect(first.executions).toHaveLength(1);
		await first.close();
		const nodeData = Object.entries(stored).find(([k]) => k.startsWith('node:'))![1] as IDataObject;
		expect(nodeData.seenEventIds).toEqual([delivery.eventId]);

		const restarted = await startHost(ws, { staticData: stored });
		await control(ws, 'PATCH', `/_sandbox/webhook-endpoints/${endpointId}`, { url: restarted.url });
		await control(ws, 'POST', `/_sandbox/deliveries/${delivery.deliveryId}/replay`);
		await settled(ws, endpointId, 2);
		expect(restarted.responses.map((r) => r.status)).toEqual([200]);
		expect(restarted.executions).toHaveLength(0);
	});
});

describe('forged and broken deliveries over HTTP: 401 and no execution', () => {
	let ws: Workspace;
	let host: WebhookHost;
	beforeAll(async () => {
		ws = await newWorkspace(sb);
	});
	beforeEach(async () => {
		host = await startHost(ws);
	});

	const body = () =>
		JSON.stringify({
			id: randomUUID(),
			type: 'report.completed',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { reportId: 'rpt_forged', attemptId: 'att_forged', status: 'completed', code: null },
		});

	async function post(raw: string, headers: Record<string, string> | string[]) {
		const res = await request(host.url, { method: 'POST', headers, body: raw });
		const text = await res.body.text();
		return { status: res.statusCode, body: text ? (JSON.parse(text) as IDataObject) : {} };
	}

	function without(name: string) {
		return () => {
			const raw = body();
			const h = signedHeaders(ws.webhookSecret, raw);
			delete h[name];
			return { raw, headers: h as Record<string, string> | string[] };
		};
	}
	function withHeader(name: string, value: string) {
		return () => {
			const raw = body();
			return { raw, headers: { ...signedHeaders(ws.webhookSecret, raw), [name]: value } };
		};
	}
	function signedAt(offsetSeconds: number) {
		return () => {
			const raw = body();
			return {
				raw,
				headers: signedHeaders(
					ws.webhookSecret,
					raw,
					Math.floor(Date.now() / 1000) + offsetSeconds,
				),
			};
		};
	}
	/** Starts just after a second boundary, so that signing and checking fall in the same second. */
	async function atSecondStart(): Promise<void> {
		const ms = Date.now() % 1000;
		if (ms > 50) await new Promise((resolve) => setTimeout(resolve, 1005 - ms));
	}

	const table: Array<
		[string, () => { raw: string; headers: Record<string, string> | string[] }, string]
	> = [
		['webhook-id missing', without('webhook-id'), 'MISSING_ID'],
		['webhook-timestamp missing', without('webhook-timestamp'), 'MISSING_TIMESTAMP'],
		['webhook-signature missing', without('webhook-signature'), 'MISSING_SIGNATURE'],
		['bad base64', withHeader('webhook-signature', 'v1,%%%not-base64%%%'), 'MALFORMED_SIGNATURE'],
		[
			'wrong secret',
			() => {
				const raw = body();
				return { raw, headers: signedHeaders(`whsec_${randomBytes(24).toString('base64')}`, raw) };
			},
			'SIGNATURE_MISMATCH',
		],
		[
			'tampered body',
			() => {
				const raw = body();
				return {
					raw: raw.replace('"completed"', '"failed"'),
					headers: signedHeaders(ws.webhookSecret, raw),
				};
			},
			'SIGNATURE_MISMATCH',
		],
		[
			're-serialised JSON body',
			() => {
				const raw = body();
				return {
					raw: JSON.stringify(JSON.parse(raw), null, 2),
					headers: signedHeaders(ws.webhookSecret, raw),
				};
			},
			'SIGNATURE_MISMATCH',
		],
		['timestamp five minutes and one second old', signedAt(-301), 'TIMESTAMP_TOO_OLD'],
		['timestamp five minutes and one second ahead', signedAt(301), 'TIMESTAMP_TOO_NEW'],
		['non-numeric timestamp', withHeader('webhook-timestamp', 'yesterday'), 'INVALID_TIMESTAMP'],
		[
			'only unknown versions (v2,)',
			() => {
				const raw = body();
				const h = signedHeaders(ws.webhookSecret, raw);
				return {
					raw,
					headers: { ...h, 'webhook-signature': h['webhook-signature'].replace('v1,', 'v2,') },
				};
			},
			'NO_V1_SIGNATURE',
		],
		['empty signature list', withHeader('webhook-signature', ''), 'NO_V1_SIGNATURE'],
		[
			'array-valued header (webhook-signature sent twice)',
			() => {
				const raw = body();
				const h = signedHeaders(ws.webhookSecret, raw);
				const flat = Object.entries(h).flat();
				flat.push('webhook-signature', h['webhook-signature']);
				return { raw, headers: flat };
			},
			'REPEATED_HEADER',
		],
		[
			'array-valued header (webhook-id sent twice)',
			() => {
				const raw = body();
				const h = signedHeaders(ws.webhookSecret, raw);
				return { raw, headers: [...Object.entries(h).flat(), 'webhook-id', 'msg_other'] };
			},
			'REPEATED_HEADER',
		],
	];

	it.each(table)('%s', async (_name, make, reason) => {
		await atSecondStart();
		const { raw, headers } = make();
		const res = await post(raw, headers);
		expect(res.status).toBe(401);
		expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED', reason } });
		expect(host.executions).toHaveLength(0);
	});

	it('the same construction without the defect is accepted (the table is not vacuous)', async () => {
		const raw = body();
		const res = await post(raw, signedHeaders(ws.webhookSecret, raw));
		expect(res.status).toBe(200);
		expect(host.executions).toHaveLength(1);
	});

	it('the same event delivered twice at once starts one execution', async () => {
		const raw = body();
		const id = JSON.parse(raw).id as string;
		const headers = signedHeaders(ws.webhookSecret, raw, Math.floor(Date.now() / 1000), id);
		const answers = await Promise.all([post(raw, headers), post(raw, headers), post(raw, headers)]);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(host.executions).toHaveLength(1);
		expect(answers.filter((a) => a.body.reason === 'duplicate event id')).toHaveLength(2);
	});

	it('a validly signed delivery for an older attempt is flagged as delayed', async () => {
		const live = await startHost(ws, { parameters: { events: ['*'], fetchResource: true } });
		const { reportId, attemptId } = await analyse(ws);
		await eventually(async () => {
			const r = await api(ws, 'GET', `/api/v1/reports/${reportId}/status`);
			return (r.body.data as IDataObject).status === 'completed' ? true : undefined;
		});
		const raw = JSON.stringify({
			id: randomUUID(),
			type: 'report.failed',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { reportId, attemptId: 'att_older_attempt', status: 'failed', code: 'TIMEOUT' },
		});
		const res = await request(live.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(200);
		await res.body.dump();
		expect(outputOf(live)[0]).toMatchObject({
			attemptCheck: {
				eventAttemptId: 'att_older_attempt',
				currentAttemptId: attemptId,
				isCurrent: false,
			},
			delayedEvent: true,
		});
	});

	it('a resource that cannot be read is attached as resourceError; the event is still delivered', async () => {
		const live = await startHost(ws, { parameters: { events: ['*'], fetchResource: true } });
		const raw = body(); // names rpt_forged, which does not exist
		const res = await request(live.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(200);
		await res.body.dump();
		expect(outputOf(live)[0]).toMatchObject({ resourceKind: 'reportStatus', resource: null });
		expect(String((outputOf(live)[0].resourceError as IDataObject).httpCode)).toBe('404');
	});

	it('without a configured secret every delivery is answered 503 (the service retries it) and never runs', async () => {
		const open = await startHost(ws, { secret: '', activate: false });
		const raw = body();
		const res = await request(open.url, {
			method: 'POST',
			headers: signedHeaders(ws.webhookSecret, raw),
			body: raw,
		});
		expect(res.statusCode).toBe(503);
		expect(await res.body.json()).toMatchObject({ error: { reason: 'NO_SECRET' } });
		expect(open.executions).toHaveLength(0);
	});
});

describe('activation (webhookMethods) and the credential test', () => {
	it('refuses to activate without a usable signing secret', async () => {
		const ws = await newWorkspace(sb);
		// n8n activates a webhook by checkExists, then create: both refuse.
		await expect(runWebhookMethods(hostOptions(ws, { secret: '' }), 'checkExists')).rejects.toThrow(
			/No signing secret/,
		);
		await expect(runWebhookMethods(hostOptions(ws, { secret: '' }), 'create')).rejects.toThrow(
			/refuses to activate/,
		);
		await expect(
			runWebhookMethods(hostOptions(ws, { secret: 'not-a-secret' }), 'checkExists'),
		).rejects.toThrow(/whsec_/);
		await expect(
			runWebhookMethods(hostOptions(ws, { previousSecret: 'whsec_***' }), 'create'),
		).rejects.toThrow(/previous signing secret/);
	});

	it('records the URL to register (no remote registration) and forgets it on delete, keeping the dedupe list', async () => {
		const ws = await newWorkspace(sb);
		const stored: IDataObject = {};
		const opts = hostOptions(ws, { staticData: stored });
		expect(await runWebhookMethods(opts, 'checkExists')).toBe(false);
		expect(await runWebhookMethods(opts, 'create')).toBe(true);
		const nodeKey = Object.keys(stored).find((k) => k.startsWith('node:'))!;
		const registration = (stored[nodeKey] as IDataObject).registration as IDataObject;
		expect(registration).toMatchObject({ remoteRegistration: false });
		expect(String(registration.url)).toMatch(/\/webhook$/);
		// The harness places the node with a new webhookId each time, i.e. a new URL: checkExists must
		// then say "not registered" so that create runs again and records the URL that now has to be
		// registered (the same-URL case needs a stable webhookId, which the harness does not offer yet).
		expect(await runWebhookMethods(opts, 'checkExists')).toBe(false);

		(stored[nodeKey] as IDataObject).seenEventIds = ['kept'];
		expect(await runWebhookMethods(opts, 'delete')).toBe(true);
		expect(stored[nodeKey]).toEqual({ seenEventIds: ['kept'] });
	});

	it("the credential test (found through the trigger's testedBy, as n8n does) checks the whsec_ format", async () => {
		const run = async (data: ICredentialDataDecryptedObject) =>
			await testCredential(new RecruitingAnalysisSigningSecretApi(), data, {
				nodeTypes: [new RecruitingAnalysisTrigger()],
			});
		expect(await run({ secret: `whsec_${randomBytes(24).toString('base64')}` })).toMatchObject({
			status: 'OK',
		});
		expect(await run({ secret: '' })).toMatchObject({ status: 'Error' });
		expect(await run({ secret: 'svc_test_abc' })).toMatchObject({ status: 'Error' });
		expect(
			await run({
				secret: `whsec_${randomBytes(24).toString('base64')}`,
				previousSecret: 'whsec_x',
			}),
		).toMatchObject({ status: 'Error' });
		// Without the trigger, n8n would find no test at all: the credential has no request to make.
		expect(
			await testCredential(new RecruitingAnalysisSigningSecretApi(), { secret: 'whsec_AAAA' }),
		).toMatchObject({
			status: 'Error',
			message: 'No testing function found for this credential.',
		});
	});
});
