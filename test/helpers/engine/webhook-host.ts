/**
 * A webhook host: the part of n8n's webhook server a webhook trigger talks to, on 127.0.0.1.
 *
 * For each request it does what n8n's `WebhookRequestHandler` + `WebhookHelpers.executeWebhook` do
 * for a production webhook (packages/cli, v1 engine path):
 * - reads the body and keeps the exact received bytes as `req.rawBody` (n8n's raw-body reader),
 *   then parses it like n8n's `parseBody`: JSON → object, urlencoded → object, text/* → string,
 *   empty → `{}` (multipart is not supported by this host);
 * - gives the node Express-shaped `req` (`headers`, `query`, `params`, `body`, `rawBody`,
 *   `contentType`) and `res` (`status`, `set`/`header`, `send`, `json`, `end`) through
 *   `additionalData.httpRequest` / `httpResponse`, exactly where `WebhookContext` reads them;
 * - runs the node's `webhook()` in n8n-core's real `WebhookContext` (mode `webhook`);
 * - answers as n8n does: `noWebhookResponse` → the node already answered through `res`; no
 *   `workflowData` → `webhookResponse` or `{message: 'Webhook call received'}`; otherwise the
 *   workflow starts and, for the default response mode `onReceived`, the answer is
 *   `webhookResponse` or `{message: 'Workflow was started'}` with the description's
 *   `responseCode` (default 200); a throwing `webhook()` → 500
 *   `{message: 'There was a problem executing the workflow'}`;
 * - records each started workflow in `executions`, after running it through `WorkflowExecute`
 *   (mode `webhook`, the trigger as start node with its `workflowData`, as `prepareExecutionData`
 *   sets it up), and saves static data when n8n 2.41 does (see the comment at the save: a workflow
 *   started with a deferred `onReceived` answer loses the node's static-data changes). The
 *   harness answers after that (single-node) run is recorded, so `executions` is complete when the
 *   caller has its response (n8n answers `onReceived` just after creating the execution).
 *
 * With `activate: true` (default when the node has `webhookMethods.default`) the host also runs
 * the activation hooks like n8n's `WebhookService.createWebhookIfNotExists` (checkExists, then
 * create if needed) on start and `delete` on `close()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';

import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	IHttpRequestMethods,
	INodeExecutionData,
	IRun,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WebhookType,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { buildHooks } from './additional-data';
import type { EngineNodeOptions } from './execute-node';
import { buildSingleNodeWorkflow, saveStaticData, type SingleNodeWorkflow } from './single-node';

export interface WebhookHostOptions extends EngineNodeOptions {
	/** Stored workflow static data; updated in place whenever n8n would save it. */
	staticData?: IDataObject;
	workflowId?: string;
	/** Run `webhookMethods.default` checkExists/create on start and delete on close (default: if defined). */
	activate?: boolean;
	/** Name of the webhook description to serve (default `default`). */
	webhookName?: WebhookType;
	/**
	 * Called where n8n 2.41 creates the execution (`WorkflowRunner.run`, before it reads the node's answer); when it
	 * throws, the host answers as n8n does (500, nothing saved, no execution).
	 */
	createExecution?: () => Promise<void> | void;
}

/** One HTTP request as the host received it, and what it answered. */
export interface WebhookExchange {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	rawBody: Buffer;
	status: number;
	responseHeaders: Record<string, string | string[] | number | undefined>;
	responseBody: Buffer;
	/** The node's `webhook()` result (undefined if it threw). */
	webhookResult?: IWebhookResponseData;
	/** `webhook()`'s error, if it threw. */
	error?: Error;
}

/** A workflow start: the trigger's output and the run `WorkflowExecute` made of it. */
export interface WebhookExecution {
	workflowData: INodeExecutionData[][];
	run: IRun;
	exchange: WebhookExchange;
}

export interface WebhookHost {
	/** The node's production webhook URL on this host (what n8n would register with the sender). */
	url: string;
	/** The host's base address (`http://127.0.0.1:<port>`). */
	baseUrl: string;
	/** Every workflow start, in order. */
	executions: WebhookExecution[];
	/** Every request and its answer, in order. */
	responses: WebhookExchange[];
	/** The in-memory static data of the active workflow. */
	readonly workflowStaticData: IDataObject;
	/** The loaded single-node workflow. */
	readonly loaded: SingleNodeWorkflow;
	/** Runs `webhookMethods.default.delete` when activated, then stops the server. */
	close(): Promise<void>;
}

/** Express-shaped request given to the node. */
export type HarnessWebhookRequest = IncomingMessage & {
	rawBody: Buffer;
	/** n8n's request helper to read the raw body on demand; here it is already read. */
	readRawBody(): Promise<void>;
	body: unknown;
	query: IDataObject;
	params: IDataObject;
	contentType?: string;
	path: string;
};

/** Express-shaped response given to the node (the subset n8n nodes use). */
export type HarnessWebhookResponse = Omit<ServerResponse, 'end'> & {
	end: ServerResponse['end'];
	status(code: number): HarnessWebhookResponse;
	set(name: string, value: string): HarnessWebhookResponse;
	header(name: string, value: string): HarnessWebhookResponse;
	send(body?: unknown): HarnessWebhookResponse;
	json(body: unknown): HarnessWebhookResponse;
};

function parseBody(rawBody: Buffer, contentType: string | undefined): unknown {
	if (rawBody.length === 0) return {};
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	const text = rawBody.toString('utf8');
	// n8n strips a leading byte order mark before parsing (`parseBody` in packages/cli middlewares/body-parser).
	if (type === 'application/json' || type.endsWith('+json'))
		return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
	if (type === 'application/x-www-form-urlencoded') return { ...parseQueryString(text) };
	if (type.startsWith('text/')) return text;
	return {};
}

/**
 * `hold` (when given) delays the moment the answer leaves: the node's own answer (`noWebhookResponse`)
 * goes out only once the started execution is recorded, so a caller that has its response always finds
 * `executions` complete. n8n sends such an answer at once; only the timing differs, not the content.
 */
function toExpressResponse(
	res: ServerResponse,
	written: Buffer[],
	onEnd: () => void,
	hold?: Promise<void>,
): HarnessWebhookResponse {
	const response = res as unknown as HarnessWebhookResponse;
	const originalWrite = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
	const originalEnd = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
	response.write = ((chunk: unknown, ...rest: unknown[]) => {
		if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
			written.push(Buffer.from(chunk as Buffer));
		return originalWrite(chunk, ...rest);
	}) as ServerResponse['write'];
	response.end = ((chunk?: unknown, ...rest: unknown[]) => {
		if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
			written.push(Buffer.from(chunk as Buffer));
		if (hold === undefined) {
			onEnd();
			return originalEnd(chunk, ...rest);
		}
		void hold.then(() => {
			onEnd();
			originalEnd(chunk, ...rest);
		});
		return res;
	}) as ServerResponse['end'];
	response.status = (code) => {
		res.statusCode = code;
		return response;
	};
	response.set = (name, value) => {
		res.setHeader(name, value);
		return response;
	};
	response.header = response.set;
	response.json = (body) => {
		if (!res.hasHeader('content-type'))
			res.setHeader('content-type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		return response;
	};
	response.send = (body) => {
		if (body === undefined || body === null) res.end();
		else if (Buffer.isBuffer(body)) res.end(body);
		else if (typeof body === 'object') return response.json(body);
		else {
			if (!res.hasHeader('content-type')) res.setHeader('content-type', 'text/html; charset=utf-8');
			res.end(String(body));
		}
		return response;
	};
	return response;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function describeWebhook(loaded: SingleNodeWorkflow, name: WebhookType): IWebhookDescription {
	const nodeType = loaded.workflow.nodeTypes.getByNameAndVersion(
		loaded.node.type,
		loaded.node.typeVersion,
	);
	const description = nodeType.description.webhooks?.find((webhook) => webhook.name === name);
	if (!description) throw new Error(`n8n-engine harness: node type has no webhook named "${name}"`);
	return description;
}

function evaluate<T>(loaded: SingleNodeWorkflow, value: unknown, fallback: T): T {
	if (value === undefined) return fallback;
	const resolved = loaded.workflow.expression.getSimpleParameterValue(
		loaded.node,
		value as string,
		'webhook',
		{},
		undefined,
		fallback as unknown as string,
	);
	return (resolved ?? fallback) as T;
}

function buildWebhookData(
	loaded: SingleNodeWorkflow,
	description: IWebhookDescription,
	additionalData: IWorkflowExecuteAdditionalData,
): IWebhookData {
	return {
		httpMethod: evaluate(loaded, description.httpMethod, 'POST') as IHttpRequestMethods,
		node: loaded.node.name,
		path: String(evaluate(loaded, description.path, '')),
		webhookDescription: description,
		workflowId: loaded.workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: loaded.node.webhookId,
	};
}

/**
 * Runs one of the node's `webhookMethods.default` hooks (`checkExists`, `create`, `delete`) in
 * n8n-core's `HookContext`, as n8n does on activation/deactivation. Static data changes are saved
 * to `options.staticData` as n8n saves them after adding/removing webhooks.
 */
export async function runWebhookMethods(
	options: WebhookHostOptions,
	method: 'checkExists' | 'create' | 'delete',
	activation: WorkflowActivateMode = 'activate',
): Promise<boolean> {
	const loaded = await buildSingleNodeWorkflow(options);
	const result = await runWebhookMethodOn(
		loaded,
		options.webhookName ?? 'default',
		method,
		activation,
	);
	if (options.staticData) saveStaticData(loaded.workflow, options.staticData);
	return result;
}

async function runWebhookMethodOn(
	loaded: SingleNodeWorkflow,
	webhookName: WebhookType,
	method: 'checkExists' | 'create' | 'delete',
	activation: WorkflowActivateMode,
): Promise<boolean> {
	const nodeType = loaded.workflow.nodeTypes.getByNameAndVersion(
		loaded.node.type,
		loaded.node.typeVersion,
	);
	const hook = nodeType.webhookMethods?.[webhookName]?.[method];
	if (!hook)
		throw new Error(`n8n-engine harness: the node has no webhookMethods.${webhookName}.${method}`);
	const description = describeWebhook(loaded, webhookName);
	const webhookData = buildWebhookData(loaded, description, loaded.additionalData);
	const context = new HookContext(
		loaded.workflow,
		loaded.node,
		loaded.additionalData,
		'trigger',
		activation,
		webhookData,
	);
	return await hook.call(context);
}

/** Starts a webhook host for a webhook trigger node (see the file comment). */
export async function startWebhookHost(options: WebhookHostOptions): Promise<WebhookHost> {
	const executions: WebhookExecution[] = [];
	const responses: WebhookExchange[] = [];
	const webhookName: WebhookType = options.webhookName ?? 'default';
	const stored = options.staticData ?? {};

	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const baseUrl = `http://127.0.0.1:${port}`;

	const loaded = await buildSingleNodeWorkflow({ ...options, webhookBaseUrl: baseUrl });
	const description = describeWebhook(loaded, webhookName);
	const webhookData = buildWebhookData(loaded, description, loaded.additionalData);
	const url = new HookContext(
		loaded.workflow,
		loaded.node,
		loaded.additionalData,
		'webhook',
		'activate',
		webhookData,
	).getNodeWebhookUrl(webhookName)!;

	const nodeType = loaded.workflow.nodeTypes.getByNameAndVersion(
		loaded.node.type,
		loaded.node.typeVersion,
	);
	const activate = options.activate ?? nodeType.webhookMethods?.[webhookName] !== undefined;
	if (activate) {
		const exists = await runWebhookMethodOn(loaded, webhookName, 'checkExists', 'activate');
		if (!exists) await runWebhookMethodOn(loaded, webhookName, 'create', 'activate');
		saveStaticData(loaded.workflow, stored);
	}

	let executionCounter = 0;
	server.on('request', (req: IncomingMessage, res: ServerResponse) => {
		// Whatever path this request takes, an answer the node wrote itself leaves when the handling is over.
		let release: () => void = () => {};
		const hold = new Promise<void>((resolve) => {
			release = resolve;
		});
		void (async () => {
			const rawBody = await readBody(req);
			const written: Buffer[] = [];
			const requestUrl = new URL(req.url ?? '/', baseUrl);
			const exchange: WebhookExchange = {
				method: req.method ?? 'GET',
				path: requestUrl.pathname,
				headers: req.headers,
				rawBody,
				status: 0,
				responseHeaders: {},
				responseBody: Buffer.alloc(0),
			};
			// Recorded when the answer is complete, before it leaves, so a caller that got its response
			// always finds the exchange filled in.
			const response = toExpressResponse(
				res,
				written,
				() => {
					exchange.status = res.statusCode;
					exchange.responseHeaders = res.getHeaders();
					exchange.responseBody = Buffer.concat(written);
				},
				hold,
			);

			responses.push(exchange);

			if (
				req.method !== webhookData.httpMethod &&
				!(description.httpMethod === 'HEAD' && req.method === 'GET')
			) {
				response.status(404).json({
					code: 404,
					message: `This webhook is not registered for ${req.method} requests`,
				});
				return;
			}

			const request = req as HarnessWebhookRequest;
			request.rawBody = rawBody;
			request.readRawBody = async () => {};
			request.query = { ...parseQueryString(requestUrl.search.slice(1)) };
			request.params = {};
			request.path = requestUrl.pathname;
			request.contentType = req.headers['content-type']?.split(';')[0].trim();
			try {
				request.body = parseBody(rawBody, req.headers['content-type']);
			} catch {
				response.status(400).json({ code: 400, message: 'Failed to parse request body' });
				return;
			}

			// n8n loads the workflow, with its static data, from the database for every production request.
			loaded.workflow.overrideStaticData(JSON.parse(JSON.stringify(stored)) as IDataObject);
			loaded.workflow.staticData.__dataChanged = false;

			const executionId = `webhook-${++executionCounter}`;
			const additionalData: IWorkflowExecuteAdditionalData = {
				...loaded.additionalData,
				executionId,
				httpRequest: request as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
				httpResponse: response as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
			};
			const context = new WebhookContext(
				loaded.workflow,
				loaded.node,
				additionalData,
				'webhook',
				{ ...webhookData, workflowExecuteAdditionalData: additionalData },
				[],
				null,
			);

			let result: IWebhookResponseData;
			try {
				result = await nodeType.webhook!.call(context);
				exchange.webhookResult = result;
			} catch (error) {
				// n8n answers with the error through the response callback, which rejects before its
				// static-data save: nothing is saved.
				exchange.error = error as Error;
				if (!res.headersSent) {
					response
						.status(500)
						.json({ code: 0, message: 'There was a problem executing the workflow' });
				}
				return;
			}

			// n8n 2.41 (`LiveWebhooks.executeWebhook`) saves the static data, if changed, inside its response
			// callback. `WebhookHelpers.executeWebhook` calls that callback at once when the node answered
			// itself (`noWebhookResponse`) or starts no workflow; otherwise, for `onReceived`, only after
			// `WorkflowRunner.run` has built the run's `Workflow` over the same static-data object, and
			// that re-wrap (`ObservableObject.create`) resets `__dataChanged`, so the save finds nothing.
			// In both cases n8n takes the answer's body (`extractWebhookOnReceivedResponse`: the description's
			// `responseData`, else the node's `webhookResponse`) just before that callback.
			const answersBeforeRun =
				result.noWebhookResponse === true || result.workflowData === undefined;
			let onReceivedBody: unknown;
			if (answersBeforeRun) {
				saveStaticData(loaded.workflow, stored);
			} else {
				try {
					await options.createExecution?.();
				} catch {
					response
						.status(500)
						.json({ code: 0, message: 'There was a problem executing the workflow' });
					return;
				}
				new Workflow({
					id: loaded.workflow.id,
					name: loaded.workflow.name,
					nodes: Object.values(loaded.workflow.nodes),
					connections: loaded.workflow.connectionsBySourceNode,
					active: true,
					nodeTypes: loaded.workflow.nodeTypes,
					staticData: loaded.workflow.staticData,
					settings: loaded.workflow.settings,
				});
				// A description without `responseData` makes n8n answer the text "firstEntryJson" (its default); the
				// harness answers `webhookResponse` there instead, read after the save as n8n never reads it.
				if (description.responseData !== undefined) {
					const responseData = evaluate<unknown>(
						loaded,
						description.responseData,
						'firstEntryJson',
					);
					onReceivedBody =
						responseData === 'noData'
							? undefined
							: responseData
								? responseData
								: (result.webhookResponse ?? { message: 'Workflow was started' });
				}
				saveStaticData(loaded.workflow, stored);
			}

			const responseCode = Number(evaluate(loaded, description.responseCode, 200));
			if (result.noWebhookResponse === true) {
				// The node answered through `res` itself.
			} else if (result.workflowData === undefined) {
				response
					.status(responseCode)
					.send(
						result.webhookResponse !== undefined
							? result.webhookResponse
							: { message: 'Webhook call received' },
					);
			}
			if (result.workflowData === undefined) return;

			// The workflow starts. n8n answers `onReceived` right after creating the execution; the
			// harness runs the (single-node) workflow first, so `executions` is complete by the time
			// the caller has its response.
			const { hooks, finished } = buildHooks('webhook', executionId, loaded.workflowData);
			const runExecutionData = createRunExecutionData({
				executionData: {
					nodeExecutionStack: [
						{ node: loaded.node, data: { main: result.workflowData }, source: null },
					],
				},
			});
			const run = await new WorkflowExecute(
				{ ...additionalData, hooks },
				'webhook',
				runExecutionData,
			).processRunExecutionData(loaded.workflow);
			await finished;
			executions.push({ workflowData: result.workflowData, run, exchange });

			const responseMode = evaluate(loaded, description.responseMode, 'onReceived');
			if (result.noWebhookResponse !== true && !res.headersSent) {
				if (responseMode !== 'onReceived') {
					// lastNode / responseNode modes are not used by this package's triggers.
					response.status(500).json({
						message: `n8n-engine harness: response mode "${responseMode}" is not supported`,
					});
					return;
				}
				const body =
					description.responseData !== undefined
						? onReceivedBody
						: (result.webhookResponse ?? { message: 'Workflow was started' });
				response.status(responseCode).send(body);
			}
		})()
			.catch((error: unknown) => {
				if (!res.headersSent) {
					res.statusCode = 500;
					res.end(JSON.stringify({ message: (error as Error).message }));
				}
			})
			.finally(release);
	});

	let closed = false;
	return {
		url,
		baseUrl,
		executions,
		responses,
		get workflowStaticData() {
			return loaded.workflow.staticData;
		},
		loaded,
		async close() {
			if (closed) return;
			closed = true;
			try {
				if (activate) {
					await runWebhookMethodOn(loaded, webhookName, 'delete', 'activate');
					saveStaticData(loaded.workflow, stored);
				}
			} finally {
				server.closeAllConnections();
				await new Promise<void>((resolve) => server.close(() => resolve()));
			}
		},
	};
}
