/**
 * The demo model `npm start` serves on loopback for the agent example (examples/agent-chat-with-review.json): an
 * OpenAI-compatible Chat Completions endpoint (scripts/chat-model-server.ts) with no account and no AI behind it. It
 * is a script: it reads the chat message and the tools n8n offers and answers the way a model would, with tool calls
 * and then a short text:
 * - "read report rpt_…" → the Read Report tool (free);
 * - "analyze report rpt_…" (or "start …") → the Start Analysis tool, which n8n's Human review in the chat holds until
 *   the person answers Approve;
 * - both words → Read Report first, then Start Analysis;
 * - anything else → a text that says what it understands.
 * Point the example's *OpenAI-compatible model* credential at a real OpenAI-compatible server to use a real model.
 */
import {
	messageText,
	startChatModelServer,
	type ChatModelServer,
	type ChatReply,
	type ChatRequest,
} from './chat-model-server';

/** What the demo model says it is, in every text it writes. */
export const DEMO_MODEL_NOTE = '(npm start demo model: scripted, not an AI)';

const HELP = `${DEMO_MODEL_NOTE} I understand "read report rpt_…" and "analyze report rpt_…" (a report ID from the analyze-one-resume example's output).`;

type Tools = NonNullable<ChatRequest['tools']>;

/** The offered tool whose name matches `pattern` (n8n names a tool after its node: "Read_Report"). */
function toolNamed(tools: Tools, pattern: RegExp): Tools[number] | undefined {
	return tools.find((t) => pattern.test(t.function.name));
}

/**
 * The arguments of a call: behind a Human review node n8n offers the tool with its own arguments under
 * `toolParameters` and the review's under `hitlParameters` (n8n-core's createHitlToolkit).
 */
function argumentsFor(tool: Tools[number], own: Record<string, unknown>): Record<string, unknown> {
	const properties = tool.function.parameters?.properties ?? {};
	return 'toolParameters' in properties ? { toolParameters: own, hitlParameters: {} } : own;
}

/** A short line about one tool answer (the tool's JSON output, or its text). */
function summary(content: string): string {
	let parsed: unknown;
	try {
		parsed = JSON.parse(content);
	} catch {
		return content.slice(0, 200);
	}
	const item = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | undefined;
	if (!item || typeof item !== 'object') return content.slice(0, 200);
	const fields = ['candidateName', 'reportId', 'id', 'status', 'score', 'recovered', 'error'];
	const parts = fields
		.filter((f) => item[f] !== undefined && item[f] !== null)
		.map((f) => `${f} ${typeof item[f] === 'string' ? item[f] : JSON.stringify(item[f])}`);
	return parts.length > 0 ? parts.join(', ') : content.slice(0, 200);
}

/** The demo model's answer to one request n8n's AI Agent sends. */
export function demoModelReply(request: ChatRequest): ChatReply {
	const users = request.messages.filter((m) => m.role === 'user');
	const asked = users.length > 0 ? messageText(users[users.length - 1]) : '';
	const reportId = /rpt_[A-Za-z0-9_-]+/.exec(asked)?.[0];
	const tools = request.tools ?? [];
	const planned: Array<Tools[number]> = [];
	const read = toolNamed(tools, /read/i);
	const start = toolNamed(tools, /start|analy/i);
	if (reportId && /\bread\b/i.test(asked) && read) planned.push(read);
	if (reportId && /analy[sz]|\bstart\b/i.test(asked) && start) planned.push(start);
	if (planned.length === 0) return { text: HELP };
	// The tool answers since the person's message: one per call already made in this turn.
	const lastUser = request.messages.lastIndexOf(users[users.length - 1]);
	const answers = request.messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
	if (answers.length < planned.length) {
		const tool = planned[answers.length];
		return { toolCall: { name: tool.function.name, arguments: argumentsFor(tool, { reportId }) } };
	}
	const lines = answers.map((a, i) => `${planned[i].function.name}: ${summary(messageText(a))}`);
	return { text: `${DEMO_MODEL_NOTE}\n${lines.join('\n')}` };
}

/** Starts the demo model on 127.0.0.1 (a free port); its `baseUrl` is the Base URL for n8n's OpenAI credential. */
export async function startDemoModel(): Promise<ChatModelServer> {
	return await startChatModelServer(demoModelReply, 0, false);
}
