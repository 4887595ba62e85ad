/**
 * A person in the hosted chat of an active workflow's public Chat Trigger (n8n 2.x), spoken as n8n's hosted chat page
 * speaks it: the message is posted to `<webhook base>/webhook/<id>/chat` (action sendMessage), and what the workflow
 * says back (Chat nodes, a Human review's approval request with its buttons) arrives over n8n's chat WebSocket
 * (`/chat?sessionId&executionId&isPublic=true`). A review's button is answered by opening its link, as the page does.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { N8nInstance } from '../../scripts/n8n-host';

/** n8n's send-and-wait ignores link previews and bots (isbot), such as Node's own fetch: a person's browser. */
const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

interface Socket {
	on(event: 'message', listener: (data: Buffer) => void): void;
	on(event: 'close', listener: () => void): void;
	on(event: 'error', listener: (error: Error) => void): void;
	send(data: string): void;
	close(): void;
}

/** A review's approval request as the chat receives it. */
export interface ChatReview {
	type: string;
	text: string;
	buttons: Array<{ text: string; link: string }>;
}

export class HostedChat {
	readonly received: string[] = [];
	closed = false;
	private wake: (() => void) | undefined;

	private constructor(
		readonly executionId: string,
		private readonly socket: Socket,
		private readonly describe: () => Promise<string>,
	) {
		socket.on('message', (data) => {
			const text = data.toString('utf8');
			// n8n closes a chat whose heartbeat is not answered (n8n/dist/chat/chat-service.js).
			if (text === 'n8n|heartbeat') socket.send('n8n|heartbeat-ack');
			else if (text !== 'n8n|continue') this.received.push(text);
			this.wake?.();
		});
		socket.on('close', () => {
			this.closed = true;
			this.wake?.();
		});
		socket.on('error', () => undefined);
	}

	/**
	 * Sends `chatInput` to the chat at `chatUrl` (`<webhook base>/webhook/<id>/chat`) of `n8n`. A failed wait names
	 * what `describe` says of the execution (by default n8n's last log lines).
	 */
	static async send(
		n8n: N8nInstance,
		chatUrl: string,
		chatInput: string,
		describe?: (executionId: string) => Promise<string>,
	): Promise<HostedChat> {
		const sessionId = `chat-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
		const res = await fetch(chatUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
		});
		const text = await res.text();
		const body = (() => {
			try {
				return JSON.parse(text) as {
					executionStarted?: boolean;
					executionId?: string;
					resumeToken?: string;
				};
			} catch {
				return {};
			}
		})();
		if (res.status !== 200 || body.executionStarted !== true || !body.executionId)
			throw new Error(`the chat message did not start an execution: ${res.status} ${text}`);
		const query = new URLSearchParams({
			sessionId,
			executionId: String(body.executionId),
			isPublic: 'true',
			...(body.resumeToken ? { token: body.resumeToken } : {}),
		});
		// The `ws` library of the n8n under test, the one its chat server speaks.
		const n8nPackage = join(n8n.host.hostDir, 'node_modules', 'n8n', 'package.json');
		const WebSocket = createRequire(n8nPackage)('ws') as new (url: string) => Socket;
		const origin = new URL(chatUrl).origin.replace(/^http/, 'ws');
		const executionId = String(body.executionId);
		return new HostedChat(
			executionId,
			new WebSocket(`${origin}/chat?${query}`),
			describe ? () => describe(executionId) : () => Promise.resolve(n8n.logTail(20)),
		);
	}

	/** The first message received that `accept` takes, within `timeoutMs`, or a failure naming `what`. */
	async message(
		what: string,
		accept: (text: string) => boolean,
		timeoutMs = 180_000,
	): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.received.find(accept);
			if (found !== undefined) return found;
			const left = deadline - Date.now();
			if (left <= 0 || this.closed)
				throw new Error(
					`${what}: not received within ${timeoutMs / 1000} s (chat ${this.closed ? 'closed' : 'open'}; execution ${this.executionId}; received ${JSON.stringify(this.received)})\n${await this.describe()}`,
				);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, left);
				this.wake = () => {
					clearTimeout(timer);
					resolve();
				};
			});
			this.wake = undefined;
		}
	}

	/** The first review approval request (a message with buttons). */
	async review(): Promise<ChatReview> {
		const text = await this.message("the review's approval request", (t) =>
			t.includes('"with-buttons"'),
		);
		return JSON.parse(text) as ChatReview;
	}

	/** Clicks the review's button labelled `label`, as the hosted chat page does. */
	async answer(review: ChatReview, label: string): Promise<void> {
		const button = review.buttons.find((b) => b.text === label);
		if (!button) throw new Error(`no "${label}" button in ${JSON.stringify(review.buttons)}`);
		const res = await fetch(button.link, { headers: { 'user-agent': BROWSER } });
		const page = await res.text();
		if (res.status !== 200)
			throw new Error(`"${label}" answered ${res.status}: ${page.slice(0, 300)}`);
	}

	close(): void {
		this.socket.close();
	}
}
