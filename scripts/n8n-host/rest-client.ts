/**
 * n8n's REST API as the editor calls it, on one running n8n process (scripts/n8n-host/instance.ts N8nInstance): the
 * auth cookie, answers wrapped in `data`, and the two ways a busy n8n answers that are not errors of the call.
 */
import { Agent, fetch as fetchOwnConnection } from 'undici';

import { CLOSED_UNDER_US, orClosedUnderUs } from './closed-connection';
import { delay, type Logger } from './process';

const DATABASE_NOT_READY = Symbol('database not ready');
/**
 * Writes go on a connection of their own (pipelining 0: no keep-alive), never on a kept-alive one that n8n may close
 * just as the write goes out: such a write cannot be sent again (it may have landed), a read can.
 */
const OWN_CONNECTION = new Agent({ pipelining: 0 });

export abstract class N8nRestClient {
	/** The `n8n-auth` cookie of the owner's login (N8nInstance.login). */
	cookie = '';

	protected constructor(
		readonly port: number,
		protected readonly log: Logger,
	) {}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async request<T = unknown>(
		method: string,
		path: string,
		body?: unknown,
		opts: {
			expectStatus?: number | number[];
			raw?: boolean;
			headers?: Record<string, string>;
		} = {},
	): Promise<{ status: number; body: T; headers: Headers }> {
		// n8n answers every REST call 503 "Database is not ready!" while its periodic database check has failed (a
		// busy SQLite on a loaded machine); it recovers by itself, so the call is made again for up to a minute.
		for (let attempt = 1; ; attempt++) {
			// A read whose kept-alive connection n8n closed under it is sent again; a write has a connection of its own.
			const request = this.requestOnce<T>(method, path, body, opts);
			const answer = await orClosedUnderUs(request, method === 'GET' && attempt < 3);
			if (answer === CLOSED_UNDER_US) continue;
			if (answer !== DATABASE_NOT_READY) return answer;
			if (attempt >= 60)
				throw new Error(`n8n ${method} ${path} -> 503: Database is not ready! (for 60 s)`);
			this.log(`n8n ${method} ${path}: database not ready, again in 1 s`);
			await delay(1000);
		}
	}

	private async requestOnce<T>(
		method: string,
		path: string,
		body: unknown,
		opts: { expectStatus?: number | number[]; raw?: boolean; headers?: Record<string, string> },
	): Promise<{ status: number; body: T; headers: Headers } | typeof DATABASE_NOT_READY> {
		const init = {
			method,
			headers: {
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...(this.cookie ? { cookie: this.cookie } : {}),
				...(opts.headers ?? {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		};
		const url = this.baseUrl + path;
		const res =
			method === 'GET'
				? await fetch(url, init)
				: await fetchOwnConnection(url, { ...init, dispatcher: OWN_CONNECTION });
		const text = await res.text();
		let parsed: unknown = text;
		if (!opts.raw) {
			try {
				parsed = text ? JSON.parse(text) : undefined;
			} catch {
				parsed = text;
			}
		}
		const expected =
			opts.expectStatus === undefined ? undefined : ([] as number[]).concat(opts.expectStatus);
		if (res.status === 503 && path.startsWith('/rest/') && text.includes('Database is not ready')) {
			if (!expected?.includes(503)) return DATABASE_NOT_READY;
		}
		if (expected ? !expected.includes(res.status) : res.status >= 400) {
			throw new Error(`n8n ${method} ${path} -> ${res.status}: ${text.slice(0, 800)}`);
		}
		return { status: res.status, body: parsed as T, headers: res.headers };
	}

	/** REST call returning the `data` member n8n wraps its answers in. */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const { body: answer } = await this.request<{ data: T }>(method, `/rest${path}`, body);
		return answer.data;
	}
}
