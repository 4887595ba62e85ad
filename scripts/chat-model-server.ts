/**
 * A small OpenAI-compatible chat-completions server on loopback: n8n's OpenAI Chat Model node (Chat Completions, not
 * the Responses API) posts to `<base>/chat/completions`; each answer comes from `reply`, which sees the whole
 * request (messages, the tools n8n offers) and returns either tool calls or the final text. Answers plain JSON, or
 * server-sent events when the request asks to stream. Every request body is kept in `requests`. `npm start` serves
 * its scripted demo model with it (scripts/demo-model.ts); the real-n8n AI Agent tests play their models with it
 * (test/helpers/openai-stub.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: string;
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	name?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{
		type: 'function';
		function: {
			name: string;
			description?: string;
			parameters?: { properties?: Record<string, unknown> };
		};
	}>;
	stream?: boolean;
}

export type ChatReply =
	{ toolCall: { name: string; arguments: Record<string, unknown> } } | { text: string };

export interface ChatModelServer {
	/** The base URL for n8n's OpenAI credential (`…/v1`). */
	baseUrl: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

/** The text of a message's content (string or content parts). */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content)) return message.content.map((p) => p.text ?? '').join('');
	return '';
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

function answer(res: ServerResponse, request: ChatRequest, reply: ChatReply, n: number): void {
	const created = Math.floor(Date.now() / 1000);
	const id = `chatcmpl-local-${n}`;
	const toolCalls =
		'toolCall' in reply
			? [
					{
						id: `call_local_${n}`,
						type: 'function' as const,
						function: {
							name: reply.toolCall.name,
							arguments: JSON.stringify(reply.toolCall.arguments),
						},
					},
				]
			: undefined;
	const finish = toolCalls ? 'tool_calls' : 'stop';
	const content = 'text' in reply ? reply.text : null;
	const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
	if (!request.stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			JSON.stringify({
				id,
				object: 'chat.completion',
				created,
				model: request.model,
				choices: [
					{
						index: 0,
						message: {
							role: 'assistant',
							content,
							...(toolCalls ? { tool_calls: toolCalls } : {}),
						},
						finish_reason: finish,
					},
				],
				usage,
			}),
		);
		return;
	}
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
		res.write(
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
		);
	if (toolCalls) {
		chunk(
			{
				role: 'assistant',
				content: null,
				tool_calls: toolCalls.map((c, index) => ({ index, ...c })),
			},
			null,
		);
	} else {
		chunk({ role: 'assistant', content }, null);
	}
	chunk({}, finish);
	res.write(
		`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage })}\n\n`,
	);
	res.end('data: [DONE]\n\n');
}

/**
 * Starts the server on 127.0.0.1 (`listenPort`, or a free one). `keepRequests` false keeps none (a long-running
 * server, such as `npm start`'s demo model, would otherwise grow with every request).
 */
export async function startChatModelServer(
	reply: (request: ChatRequest) => ChatReply,
	listenPort = 0,
	keepRequests = true,
): Promise<ChatModelServer> {
	const requests: ChatRequest[] = [];
	let answered = 0;
	const server: Server = createServer((req, res) => {
		void (async () => {
			const body = await readBody(req);
			if (req.method === 'GET' && req.url?.endsWith('/models')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(
					JSON.stringify({
						object: 'list',
						data: [{ id: 'demo-model', object: 'model', created: 0, owned_by: 'loopback' }],
					}),
				);
				return;
			}
			if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(
					JSON.stringify({
						error: {
							message: `this server answers POST /v1/chat/completions only, not ${req.method} ${req.url}`,
						},
					}),
				);
				return;
			}
			const request = JSON.parse(body) as ChatRequest;
			answered += 1;
			if (keepRequests) requests.push(request);
			answer(res, request, reply(request), answered);
		})().catch((error: unknown) => {
			res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
