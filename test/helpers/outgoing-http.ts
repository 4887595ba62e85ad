/**
 * What the node sends: every HTTP request this process starts through Node's http client (n8n's request helpers
 * the node calls go through it), seen on Node's own diagnostics channel `http.client.request.start`, with its
 * destination, path and headers as they leave. The tests' own fetch calls (undici) are not on this channel.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

export interface OutgoingRequest {
	method: string;
	/** protocol://host:port */
	origin: string;
	/** Path and query. */
	path: string;
	/** Header names in lower case, values as strings. */
	headers: Record<string, string>;
}

export interface OutgoingRecorder {
	requests: OutgoingRequest[];
	stop(): void;
}

const CHANNEL = 'http.client.request.start';

export function recordOutgoingHttp(): OutgoingRecorder {
	const requests: OutgoingRequest[] = [];
	const listener = (message: unknown) => {
		const request = (message as { request: ClientRequest }).request;
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(request.getHeaders()))
			headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
		const protocol = request.protocol ?? 'http:';
		const host = request.host ?? headers.host ?? '';
		const port = (request as unknown as { socket?: { remotePort?: number } }).socket?.remotePort;
		requests.push({
			method: request.method,
			origin: `${protocol}//${headers.host ?? (port ? `${host}:${port}` : host)}`,
			path: request.path,
			headers,
		});
	};
	subscribe(CHANNEL, listener);
	return { requests, stop: () => unsubscribe(CHANNEL, listener) };
}
