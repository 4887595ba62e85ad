/**
 * Small node and credential classes, and a local HTTP server, for the harness's self-tests.
 * Nothing here is shipped; they exercise the engine the way our real nodes will.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createHmac, timingSafeEqual } from 'node:crypto';

import type {
	IAuthenticateGeneric,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	IPollFunctions,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

/** A request the echo server received. */
export interface RecordedRequest {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: Buffer;
}

export interface EchoServer {
	baseUrl: string;
	requests: RecordedRequest[];
	/** Respond to the next `count` requests on `path` with `status` (then back to echo). */
	failNext(path: string, status: number, count?: number): void;
	close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that answers every request with JSON describing it
 * (`{method, path, authorization, bodyBytes, bodySha}`), records it, and can be told to fail.
 * `/token` answers `{token}` for preAuthentication tests; `/secure` requires `Bearer fresh-token`.
 */
export async function startEchoServer(): Promise<EchoServer> {
	const requests: RecordedRequest[] = [];
	const failures = new Map<string, { status: number; count: number }>();
	const { createHash } = await import('node:crypto');
	let tokenCounter = 0;
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			const url = req.url ?? '/';
			requests.push({ method: req.method ?? '', url, headers: req.headers, body });
			const path = url.split('?')[0];
			const failure = failures.get(path);
			if (failure && failure.count > 0) {
				failure.count--;
				res.writeHead(failure.status, { 'content-type': 'application/json' });
				res.end(
					JSON.stringify({ error: { code: 'INJECTED', message: `injected ${failure.status}` } }),
				);
				return;
			}
			if (path === '/token') {
				tokenCounter++;
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ token: `fresh-token`, issued: tokenCounter }));
				return;
			}
			if (path === '/secure' && req.headers.authorization !== 'Bearer fresh-token') {
				res.writeHead(401, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: 'unauthorized' }));
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					method: req.method,
					path,
					authorization: req.headers.authorization ?? null,
					apiKeyHeader: req.headers['x-api-key'] ?? null,
					bodyBytes: body.length,
					bodySha256: createHash('sha256').update(body).digest('hex'),
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		failNext(path, status, count = 1) {
			failures.set(path, { status, count });
		},
		close: async () =>
			await new Promise<void>((resolve, reject) =>
				server.close((error) => (error ? reject(error) : resolve())),
			),
	};
}

/**
 * One echo server for the tests of the file that calls it: started by a beforeAll (and handed to `onStart`, to keep
 * it in the file's own variable), closed by an afterAll, its recorded requests emptied before each test.
 */
export function useEchoServer(onStart: (server: EchoServer) => unknown): void {
	let server: EchoServer | undefined;
	beforeAll(async () => {
		server = await startEchoServer();
		await onStart(server);
	});
	afterAll(async () => {
		await server?.close();
	});
	beforeEach(() => {
		if (server) server.requests.length = 0;
	});
}

/** Bearer-token credential with generic authenticate (like RecruitingAnalysisApi) and a test request. */
export class EchoApi implements ICredentialType {
	name = 'echoApi';

	displayName = 'Echo API';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: 'http://127.0.0.1:9' },
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
	};

	test: ICredentialTestRequest = {
		request: { baseURL: '={{$credentials.baseUrl}}', url: '/whoami' },
	};
}

/** Credential whose token is fetched by preAuthentication (expirable hidden field), as n8n supports. */
export class TokenApi implements ICredentialType {
	name = 'tokenApi';

	displayName = 'Token API';

	properties: INodeProperties[] = [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		{
			displayName: 'Session Token',
			name: 'sessionToken',
			type: 'hidden',
			typeOptions: { expirable: true },
			default: '',
		},
	];

	async preAuthentication(
		this: import('n8n-workflow').IHttpRequestHelper,
		credentials: IDataObject,
	) {
		const response = (await this.helpers.httpRequest({
			method: 'POST',
			url: `${credentials.baseUrl as string}/token`,
			json: true,
		})) as { token: string };
		return { sessionToken: response.token };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.sessionToken}}' } },
	};
}

const echoProperties: INodeProperties[] = [
	{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' },
	{
		displayName: 'Send Binary',
		name: 'sendBinary',
		type: 'boolean',
		default: false,
		description: 'Whether to stream the input binary as the request body',
	},
	{ displayName: 'Binary Property', name: 'binaryProperty', type: 'string', default: 'data' },
	{
		displayName: 'Authenticate',
		name: 'authenticate',
		type: 'boolean',
		default: true,
		description:
			'Whether to send the request with the credential (httpRequestWithAuthentication) or without (httpRequest)',
	},
	{
		displayName: 'Return Binary',
		name: 'returnBinary',
		type: 'boolean',
		default: false,
		description: 'Whether to attach the response body as output binary',
	},
];

/**
 * Echo node: for each item, calls `httpRequestWithAuthentication('echoApi', ...)` against the
 * credential's base URL, optionally streaming the item's binary (via `getBinaryStream`) as the body.
 * Errors follow n8n's modern node pattern (per-item try/catch, continueOnFail error item with pairedItem).
 */
export class EchoNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Echo',
		name: 'echo',
		group: ['transform'],
		version: [1, 2],
		description: 'Calls the echo server',
		defaults: { name: 'Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'echoApi', required: true }],
		properties: echoProperties,
	};

	methods = {
		loadOptions: {
			/** Asks the echo server (authenticated) and offers its answer's fields as options. */
			async getEchoFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
				const path = this.getCurrentNodeParameter('path') as string;
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					url: `${credentials.baseUrl}${path}`,
					json: true,
				})) as IDataObject;
				return Object.entries(response).map(([name, value]) => ({ name, value: String(value) }));
			},
		},
		listSearch: {
			/** Offers the echo server's answer fields whose name contains the filter, one page of 2. */
			async searchEchoFields(
				this: ILoadOptionsFunctions,
				filter?: string,
				paginationToken?: string,
			): Promise<import('n8n-workflow').INodeListSearchResult> {
				const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					url: `${credentials.baseUrl}/search?filter=${encodeURIComponent(filter ?? '')}`,
					json: true,
				})) as IDataObject;
				const names = Object.keys(response).filter((name) => name.includes(filter ?? ''));
				const start = Number(paginationToken ?? 0);
				return {
					results: names.slice(start, start + 2).map((name) => ({ name, value: name })),
					paginationToken: start + 2 < names.length ? String(start + 2) : undefined,
				};
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const path = this.getNodeParameter('path', i) as string;
				const sendBinary = this.getNodeParameter('sendBinary', i) as boolean;
				let body: Buffer | import('node:stream').Readable | undefined;
				const headers: IDataObject = {};
				let fromDisk: boolean | null = null;
				if (sendBinary) {
					const property = this.getNodeParameter('binaryProperty', i) as string;
					const binaryData = this.helpers.assertBinaryData(i, property);
					fromDisk = binaryData.id !== undefined;
					body = binaryData.id
						? await this.helpers.getBinaryStream(binaryData.id)
						: await this.helpers.getBinaryDataBuffer(i, property);
					headers['content-type'] = binaryData.mimeType;
					if (binaryData.bytes !== undefined) headers['content-length'] = binaryData.bytes;
				}
				const request = {
					method: sendBinary ? ('PUT' as const) : ('GET' as const),
					url: `${credentials.baseUrl}${path}`,
					body,
					headers,
					json: !sendBinary,
				};
				const response = (
					(this.getNodeParameter('authenticate', i) as boolean)
						? await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', request)
						: await this.helpers.httpRequest(request)
				) as IDataObject | string;
				const json = (
					typeof response === 'string' ? JSON.parse(response) : response
				) as IDataObject;
				const bodyKind =
					body === undefined ? null : Buffer.isBuffer(body) ? 'Buffer' : body.constructor.name;
				const item: INodeExecutionData = {
					json: {
						...json,
						streamedFromDisk: fromDisk,
						bodyKind,
						executionId: this.getExecutionId(),
					},
					pairedItem: { item: i },
				};
				if (this.getNodeParameter('returnBinary', i) as boolean) {
					item.binary = {
						data: await this.helpers.prepareBinaryData(
							Buffer.from(JSON.stringify(json)),
							'response.json',
							'application/json',
						),
					};
				}
				out.push(item);
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			}
		}
		return [out];
	}
}

/** Token node: one authenticated GET with the preAuthentication credential. */
export class TokenNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Token Echo',
		name: 'tokenEcho',
		group: ['transform'],
		version: 1,
		description: 'Calls /secure with a preAuthentication token',
		defaults: { name: 'Token Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'tokenApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials<{ baseUrl: string }>('tokenApi');
		const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'tokenApi', {
			method: 'GET',
			url: `${credentials.baseUrl}/secure`,
			json: true,
		})) as IDataObject;
		return [[{ json: response }]];
	}
}

/**
 * Polling node: advances a cursor in the node's static data on every poll, asks the echo server
 * (authenticated), and returns an item only when `emit` says so.
 */
export class FeedPollNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Feed Poll',
		name: 'feedPoll',
		group: ['trigger'],
		version: 1,
		description: 'Polls the echo server',
		defaults: { name: 'Feed Poll' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'echoApi', required: true }],
		properties: [
			{
				displayName: 'Emit',
				name: 'emit',
				type: 'options',
				options: [
					{ name: 'Always', value: 'always' },
					{ name: 'Never', value: 'never' },
				],
				default: 'always',
			},
			{ displayName: 'Path', name: 'path', type: 'string', default: '/feed' },
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const state = this.getWorkflowStaticData('node');
		const cursor = ((state.cursor as number | undefined) ?? 0) + 1;
		state.cursor = cursor;
		const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
		const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
			url: `${credentials.baseUrl}${this.getNodeParameter('path') as string}?cursor=${cursor}`,
			json: true,
		})) as IDataObject;
		if (this.getNodeParameter('emit') === 'never') return null;
		return [
			[
				{
					json: {
						cursor,
						authorization: response.authorization,
						mode: this.getMode(),
						activation: this.getActivationMode(),
					},
				},
			],
		];
	}
}

/** Signing secret credential for the webhook fixture. */
export class EchoSigningApi implements ICredentialType {
	name = 'echoSigningApi';

	displayName = 'Echo Signing';

	properties: INodeProperties[] = [
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
	];
}

/** HMAC-SHA256 (hex) of the exact bytes, as the webhook fixture expects in `x-signature`. */
export function signBody(secret: string, body: Buffer): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Webhook trigger: verifies `x-signature` over `req.rawBody` (401 through `res` without starting
 * the workflow), dedupes event ids in node static data, ignores other event types, and registers
 * itself with the echo server in `webhookMethods` (keeping the registration id in static data).
 */
export class SignedWebhookTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Signed Webhook Trigger',
		name: 'signedWebhookTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Receives signed events',
		defaults: { name: 'Signed Webhook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'echoSigningApi', required: true },
			{ name: 'echoApi', required: true },
		],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'events' }],
		properties: [
			{ displayName: 'Event Type', name: 'eventType', type: 'string', default: 'report.completed' },
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return this.getWorkflowStaticData('node').registrationId !== undefined;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					method: 'POST',
					url: `${credentials.baseUrl}/register`,
					body: { url: this.getNodeWebhookUrl('default') },
					json: true,
				})) as IDataObject;
				const state = this.getWorkflowStaticData('node');
				state.registrationId = `reg-${response.bodySha256 as string}`.slice(0, 20);
				state.registeredUrl = this.getNodeWebhookUrl('default');
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const credentials = await this.getCredentials<{ baseUrl: string }>('echoApi');
				const state = this.getWorkflowStaticData('node');
				await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					method: 'DELETE',
					url: `${credentials.baseUrl}/register/${state.registrationId as string}`,
					json: true,
				});
				delete state.registrationId;
				delete state.registeredUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject() as unknown as { rawBody: Buffer };
		const res = this.getResponseObject();
		const { secret } = await this.getCredentials<{ secret: string }>('echoSigningApi');
		const given = Buffer.from(String(this.getHeaderData()['x-signature'] ?? ''), 'utf8');
		const expected = Buffer.from(signBody(secret, req.rawBody), 'utf8');
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
			res.status(401).json({ error: 'invalid signature' });
			return { noWebhookResponse: true };
		}
		const body = this.getBodyData() as { id: string; type: string };
		const state = this.getWorkflowStaticData('node');
		const seen = (state.seen as string[] | undefined) ?? [];
		if (seen.includes(body.id)) return { webhookResponse: { duplicate: true } };
		state.seen = [...seen, body.id];
		if (body.type !== this.getNodeParameter('eventType'))
			return { webhookResponse: { ignored: body.type } };
		return {
			workflowData: [
				[
					{
						json: {
							event: body,
							rawBytes: req.rawBody.length,
							query: this.getQueryData() as IDataObject,
						},
					},
				],
			],
		};
	}
}

/** trigger() node: emits one item on activation and counts closes. */
export class OnceTrigger implements INodeType {
	static closed = 0;

	description: INodeTypeDescription = {
		displayName: 'Once Trigger',
		name: 'onceTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Emits once',
		defaults: { name: 'Once Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Value', name: 'value', type: 'string', default: 'hello' }],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const state = this.getWorkflowStaticData('node');
		state.activations = ((state.activations as number | undefined) ?? 0) + 1;
		const emitNow = () =>
			this.emit([
				this.helpers.returnJsonArray([{ value: this.getNodeParameter('value') as string }]),
			]);
		if (this.getMode() !== 'manual') emitNow();
		return {
			closeFunction: async () => {
				OnceTrigger.closed++;
			},
			manualTriggerFunction: async () => emitNow(),
		};
	}
}

/**
 * Plain node: returns each input item's json with `seen: true` and does NOT set pairedItem (the
 * engine must add it); throws a NodeOperationError for the whole run when an item has `fail: true`.
 */
export class PlainNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Plain',
		name: 'plain',
		group: ['transform'],
		version: 1,
		description: 'Marks items',
		defaults: { name: 'Plain' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const failing = items.findIndex((item) => item.json.fail === true);
		if (failing !== -1)
			throw new NodeOperationError(this.getNode(), 'item asked to fail', { itemIndex: failing });
		return [items.map((item) => ({ json: { ...item.json, seen: true } }))];
	}
}
