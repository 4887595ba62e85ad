/**
 * The trigger verifies the bytes n8n read off the wire, also when n8n has not read them yet.
 *
 * The engine harness's host always reads the body before calling the node. n8n itself installs
 * `req.readRawBody()` (packages/cli middlewares `rawBodyReader`) and sets `req.rawBody` only once
 * something called it. This test serves the trigger from a plain node:http server that does exactly
 * that, so `webhook()` has to call `readRawBody()` itself, and runs it in n8n-core's WebhookContext.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { WebhookContext } from 'n8n-core';
import type {
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { RecruitingAnalysisSigningSecretApi } from '../../../credentials/RecruitingAnalysisSigningSecretApi.credentials';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { signWebhook } from '../../helpers/sign-webhook';
import { buildSingleNodeWorkflow } from '../../helpers/engine/single-node';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: Server;
let url: string;
const results: Array<{
	result?: IWebhookResponseData;
	rawBodyBeforeCall: boolean;
	readCalls: number;
}> = [];

beforeAll(async () => {
	const nodeType = new RecruitingAnalysisTrigger();
	const loaded = await buildSingleNodeWorkflow({
		nodeType,
		credentialTypes: [new RecruitingAnalysisSigningSecretApi()],
		credentials: { recruitingAnalysisSigningSecretApi: { secret, previousSecret: '' } },
		parameters: { events: ['*'] },
	});
	server = createServer((req: IncomingMessage, res: ServerResponse) => {
		void (async () => {
			// What n8n's rawBodyReader middleware installs: a lazy reader, nothing read yet.
			const request = req as IncomingMessage & {
				rawBody?: Buffer;
				readRawBody: () => Promise<void>;
			};
			let readCalls = 0;
			request.readRawBody = async () => {
				readCalls++;
				if (request.rawBody !== undefined) return;
				const chunks: Buffer[] = [];
				for await (const chunk of req) chunks.push(chunk as Buffer);
				request.rawBody = Buffer.concat(chunks);
			};
			const response = Object.assign(res, {
				status(code: number) {
					res.statusCode = code;
					return response;
				},
				set(name: string, value: string) {
					res.setHeader(name, value);
					return response;
				},
				json(body: unknown) {
					res.setHeader('content-type', 'application/json');
					res.end(JSON.stringify(body));
					return response;
				},
			});
			const additionalData: IWorkflowExecuteAdditionalData = {
				...loaded.additionalData,
				httpRequest: request as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
				httpResponse: response as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
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
			const rawBodyBeforeCall = request.rawBody !== undefined;
			const context = new WebhookContext(
				loaded.workflow,
				loaded.node,
				additionalData,
				'webhook',
				webhookData,
				[],
				null,
			);
			const result = await nodeType.webhook.call(context);
			results.push({ result, rawBodyBeforeCall, readCalls });
			if (!res.headersSent)
				response.status(200).json({ started: result.workflowData !== undefined });
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

function signed(raw: string, key = secret) {
	const id = `msg_${randomUUID()}`;
	const at = Math.floor(Date.now() / 1000);
	return {
		'content-type': 'application/json',
		'webhook-id': id,
		'webhook-timestamp': String(at),
		'webhook-signature': signWebhook({
			secret: key,
			webhookId: id,
			timestamp: at,
			rawBody: Buffer.from(raw),
		}),
	};
}

it('reads the raw body itself when n8n has not, and verifies those exact bytes', async () => {
	// Deliberately unusual JSON spacing: only the raw bytes carry this signature.
	const raw = `{ "id" : "${randomUUID()}", "type":"webhook.test",  "schemaVersion":1, "data":{"test":true} }`;
	const res = await fetch(url, { method: 'POST', headers: signed(raw), body: raw });
	expect(res.status).toBe(200);
	expect(await res.json()).toEqual({ started: true }); // the node leaves the answer to n8n (this host's)
	const last = results.at(-1)!;
	expect(last.rawBodyBeforeCall).toBe(false);
	expect(last.readCalls).toBe(1);
	expect(last.result?.workflowData?.[0][0].json).toMatchObject({
		type: 'webhook.test',
		data: { test: true },
	});
});

it('a forged delivery read the same way is refused with 401', async () => {
	const raw = JSON.stringify({
		id: randomUUID(),
		type: 'webhook.test',
		schemaVersion: 1,
		data: {},
	});
	const res = await fetch(url, {
		method: 'POST',
		headers: signed(raw, `whsec_${randomBytes(24).toString('base64')}`),
		body: raw,
	});
	expect(res.status).toBe(401);
	expect(results.at(-1)?.result).toEqual({ noWebhookResponse: true });
	expect(results.at(-1)?.readCalls).toBe(1);
});
