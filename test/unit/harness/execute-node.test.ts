import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { executeNode, readOutputBinary } from '../../helpers/n8n-engine';
import {
	EchoApi,
	EchoNode,
	PlainNode,
	TokenApi,
	TokenNode,
	useEchoServer,
	type EchoServer,
} from './fixtures';

let server: EchoServer;
useEchoServer((started) => (server = started));

const credentials = () => ({
	echoApi: { apiKey: 'svc_test_harness_key', baseUrl: server.baseUrl },
});

describe('executeNode', () => {
	it('runs the node through WorkflowExecute and applies the generic bearer authenticate over real HTTP', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/hello' },
			items: [{ json: { a: 1 } }, { json: { a: 2 } }],
		});
		expect(result.error).toBeUndefined();
		expect(result.output).toHaveLength(1);
		expect(result.output[0]).toHaveLength(2);
		expect(result.output[0][0].json).toMatchObject({
			method: 'GET',
			path: '/hello',
			authorization: 'Bearer svc_test_harness_key',
		});
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(server.requests.map((r) => r.headers.authorization)).toEqual([
			'Bearer svc_test_harness_key',
			'Bearer svc_test_harness_key',
		]);
		expect(result.run.status).toBe('success');
		expect(result.output[0][0].json.executionId).toBe(result.executionId);
	});

	it('stops the workflow with a NodeApiError when the API fails and continueOnFail is off', async () => {
		server.failNext('/boom', 500);
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/boom' },
		});
		expect(result.error).toBeDefined();
		expect(result.error?.name).toBe('NodeApiError');
		expect((result.error as unknown as { httpCode: string }).httpCode).toBe('500');
		expect(result.run.status).toBe('error');
		expect(result.output).toEqual([]);
	});

	it('continueOnFail turns the failure into an error item that keeps pairedItem', async () => {
		server.failNext('/boom', 422, 1);
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/boom' },
			items: [{ json: { n: 0 } }, { json: { n: 1 } }],
			continueOnFail: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0]).toHaveLength(2);
		expect(result.output[0][0].json.error).toEqual(expect.any(String));
		expect(result.output[0][0].pairedItem).toEqual({ item: 0 });
		expect(result.output[0][1].json).toMatchObject({
			path: '/boom',
			authorization: 'Bearer svc_test_harness_key',
		});
		expect(result.output[0][1].pairedItem).toEqual({ item: 1 });
	});

	it('retryOnFail re-runs the node in the engine until it succeeds', async () => {
		server.failNext('/flaky', 503, 2);
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/flaky' },
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 0,
		});
		expect(result.error).toBeUndefined();
		expect(server.requests.filter((r) => r.url === '/flaky')).toHaveLength(3);
		expect(result.output[0][0].json).toMatchObject({ path: '/flaky' });
	});

	it('resolves expressions in credential data before authenticating', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: {
				echoApi: { apiKey: '={{ "svc_test_" + "from_expression" }}', baseUrl: server.baseUrl },
			},
			parameters: { path: '/expr' },
		});
		expect(result.error).toBeUndefined();
		expect(server.requests[0].headers.authorization).toBe('Bearer svc_test_from_expression');
	});

	it('resolves expressions in node parameters against the input item', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '={{ "/items/" + $json.id }}' },
			items: [{ json: { id: 'a' } }, { json: { id: 'b' } }],
		});
		expect(result.error).toBeUndefined();
		expect(server.requests.map((r) => r.url)).toEqual(['/items/a', '/items/b']);
	});

	it('runs preAuthentication when the expirable token is empty and persists the fetched token', async () => {
		const result = await executeNode({
			nodeType: new TokenNode(),
			credentialTypes: [new TokenApi()],
			credentials: { tokenApi: { baseUrl: server.baseUrl, sessionToken: '' } },
			parameters: {},
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0][0].json).toMatchObject({ authorization: 'Bearer fresh-token' });
		expect(server.requests.map((r) => r.url)).toEqual(['/token', '/secure']);
		expect(result.credentialsHelper.updates).toHaveLength(1);
		const id = result.node.credentials!.tokenApi.id!;
		expect(await result.credentialsHelper.readStored(id)).toMatchObject({
			sessionToken: 'fresh-token',
		});
	});

	it('refreshes an expired token after a 401 and retries the request once', async () => {
		const result = await executeNode({
			nodeType: new TokenNode(),
			credentialTypes: [new TokenApi()],
			credentials: { tokenApi: { baseUrl: server.baseUrl, sessionToken: 'stale-token' } },
			parameters: {},
		});
		expect(result.error).toBeUndefined();
		expect(server.requests.map((r) => [r.url, r.headers.authorization ?? null])).toEqual([
			['/secure', 'Bearer stale-token'],
			['/token', null],
			['/secure', 'Bearer fresh-token'],
		]);
	});

	it.each(['default', 'filesystem'] as const)(
		'streams input binary to the server in %s mode',
		async (binaryMode) => {
			const bytes = Buffer.alloc(300_000);
			for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251;
			const result = await executeNode({
				nodeType: new EchoNode(),
				credentialTypes: [new EchoApi()],
				credentials: credentials(),
				parameters: { path: '/upload', sendBinary: true, returnBinary: true },
				items: [
					{
						json: {},
						binary: { data: { data: bytes, mimeType: 'application/pdf', fileName: 'resume.pdf' } },
					},
				],
				binaryMode,
			});
			expect(result.error).toBeUndefined();
			const json = result.output[0][0].json;
			expect(json).toMatchObject({ method: 'PUT', bodyBytes: bytes.length });
			expect(json.bodySha256).toBe(createHash('sha256').update(bytes).digest('hex'));
			expect(json.streamedFromDisk).toBe(binaryMode === 'filesystem');
			// filesystem mode: getBinaryStream hands the node a file stream, the bytes never sit in the item
			expect(json.bodyKind).toBe(binaryMode === 'filesystem' ? 'ReadStream' : 'Buffer');
			expect(server.requests[0].headers['content-type']).toBe('application/pdf');

			const outputBinary = result.output[0][0].binary!.data;
			const filesystem = binaryMode === 'filesystem';
			const executionDir = path.join(
				result.binary.storagePath ?? '(no storage path)',
				'workflows',
				result.workflowId,
				'executions',
				result.executionId,
				'binary_data',
			);
			// filesystem mode: the output is a file of this execution (with the input resume: two files or more);
			// default mode: the bytes are in the item, no id.
			expect({
				id: filesystem ? /^filesystem-v2:/.test(String(outputBinary.id)) : outputBinary.id,
				data: filesystem ? outputBinary.data : 'in the item',
				filesOfExecution: filesystem
					? existsSync(executionDir) && readdirSync(executionDir).length >= 2
					: 'none',
			}).toEqual({
				id: filesystem ? true : undefined,
				data: filesystem ? 'filesystem-v2' : 'in the item',
				filesOfExecution: filesystem ? true : 'none',
			});
			const echoed = JSON.parse(
				(await readOutputBinary(result, result.output[0][0])).toString('utf8'),
			);
			expect(echoed).toMatchObject({ path: '/upload', bodyBytes: bytes.length });
		},
	);

	it('assigns pairedItem itself when the node does not (WorkflowExecute.assignPairedItems)', async () => {
		const result = await executeNode({
			nodeType: new PlainNode(),
			parameters: {},
			items: [{ json: { a: 1 } }, { json: { a: 2 } }],
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0]).toEqual([
			{ json: { a: 1, seen: true }, pairedItem: { item: 0 } },
			{ json: { a: 2, seen: true }, pairedItem: { item: 1 } },
		]);
	});

	it('a node that throws stops the run; with continueOnFail the engine passes the input through and records the error', async () => {
		const items = [{ json: { a: 1 } }, { json: { fail: true } }];
		const stopped = await executeNode({ nodeType: new PlainNode(), parameters: {}, items });
		expect(stopped.run.status).toBe('error');
		expect(stopped.error?.message).toBe('item asked to fail');
		expect(stopped.output).toEqual([]);

		const continued = await executeNode({
			nodeType: new PlainNode(),
			parameters: {},
			items,
			continueOnFail: true,
		});
		expect(continued.output[0]).toEqual([
			{ json: { a: 1 }, pairedItem: { item: 0 } },
			{ json: { fail: true }, pairedItem: { item: 1 } },
		]);
		expect(continued.taskData[0].error?.message).toBe('item asked to fail');
		// n8n-core 2.41 keeps the thrown error as the run's error when it came from the last node.
		expect(continued.run.status).toBe('error');
		expect(continued.error?.message).toBe('item asked to fail');
	});

	it('onError continueErrorOutput routes error items to the error output, merged with their input item', async () => {
		server.failNext('/boom', 500, 1);
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/boom' },
			items: [{ json: { a: 1 } }, { json: { a: 2 } }],
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		expect(result.output).toHaveLength(2);
		expect(result.output[0].map((item) => [item.json.path, item.pairedItem])).toEqual([
			['/boom', { item: 1 }],
		]);
		expect(result.output[1]).toEqual([
			{ json: { a: 1, error: expect.any(String) }, pairedItem: { item: 0 } },
		]);
	});

	it('fills in parameter defaults like the editor and uses the requested type version', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: {},
			typeVersion: 1,
			nodeName: 'My Echo',
			nodeId: 'node-under-test-1',
			executionId: 'exec-42',
		});
		expect(result.node).toMatchObject({
			id: 'node-under-test-1',
			name: 'My Echo',
			typeVersion: 1,
			type: 'echo',
		});
		expect(result.output[0][0].json.executionId).toBe('exec-42');
		expect(result.node.parameters).toEqual({
			path: '/echo',
			sendBinary: false,
			binaryProperty: 'data',
			authenticate: true,
			returnBinary: false,
		});
		expect(server.requests[0].url).toBe('/echo');
	});

	it('stores credentials encrypted with the instance key (n8n-core Credentials + Cipher)', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: {},
		});
		const reference = result.node.credentials!.echoApi;
		const stored = await result.credentialsHelper.getCredentials(reference, 'echoApi');
		const encrypted = stored.getDataToSave().data!;
		expect(encrypted).not.toContain('svc_test_harness_key');
		expect(await stored.getData()).toEqual({
			apiKey: 'svc_test_harness_key',
			baseUrl: server.baseUrl,
		});
	});

	it('overlapping runs share a binary mode; a run in the other mode is refused while one is in flight', async () => {
		const pdf = {
			data: Buffer.from('%PDF-1.4 overlap'),
			mimeType: 'application/pdf',
			fileName: 'a.pdf',
		};
		const run = (binaryMode: 'default' | 'filesystem') =>
			executeNode({
				nodeType: new EchoNode(),
				credentialTypes: [new EchoApi()],
				credentials: credentials(),
				parameters: { path: '/overlap', sendBinary: true },
				items: [{ json: {}, binary: { data: pdf } }],
				binaryMode,
			});
		const first = run('filesystem');
		const second = run('filesystem');
		const other = run('default');
		await expect(other).rejects.toThrow(/still in flight/);
		const results = await Promise.all([first, second]);
		for (const result of results) {
			expect(result.error).toBeUndefined();
			expect(result.output[0][0].json).toMatchObject({
				bodyBytes: pdf.data.length,
				bodyKind: 'ReadStream',
			});
		}
		// once they are done, the other mode is available again
		expect((await run('default')).output[0][0].json).toMatchObject({ bodyKind: 'Buffer' });
	});

	it('this.helpers.httpRequest goes over HTTP without the credential (as for the storage upload URL)', async () => {
		const result = await executeNode({
			nodeType: new EchoNode(),
			credentialTypes: [new EchoApi()],
			credentials: credentials(),
			parameters: { path: '/storage', authenticate: false },
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0][0].json).toMatchObject({ path: '/storage', authorization: null });
		expect(server.requests[0].headers.authorization).toBeUndefined();
	});
});
