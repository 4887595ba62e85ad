/**
 * Small node and credential classes, and a local HTTP server, for the harness's self-tests.
 * Nothing here is shipped; they exercise the engine the way our real nodes will.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
	IAuthenticateGeneric,
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
				res.end(JSON.stringify({ error: { code: 'INJECTED', message: `injected ${failure.status}` } }));
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
			await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
	};
}

/** Bearer-token credential with generic authenticate (like RecruitingAnalysisApi) and a test request. */
export class EchoApi implements ICredentialType {
	name = 'echoApi';

	displayName = 'Echo API';

	properties: INodeProperties[] = [
		{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
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
		{ displayName: 'Session Token', name: 'sessionToken', type: 'hidden', typeOptions: { expirable: true }, default: '' },
	];

	async preAuthentication(this: import('n8n-workflow').IHttpRequestHelper, credentials: IDataObject) {
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
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					method: sendBinary ? 'PUT' : 'GET',
					url: `${credentials.baseUrl}${path}`,
					body,
					headers,
					json: !sendBinary,
				})) as IDataObject | string;
				const json = (typeof response === 'string' ? JSON.parse(response) : response) as IDataObject;
				const item: INodeExecutionData = {
					json: { ...json, streamedFromDisk: fromDisk, executionId: this.getExecutionId() },
					pairedItem: { item: i },
				};
				if (this.getNodeParameter('returnBinary', i) as boolean) {
					item.binary = {
						data: await this.helpers.prepareBinaryData(Buffer.from(JSON.stringify(json)), 'response.json', 'application/json'),
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
