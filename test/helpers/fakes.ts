/**
 * A fake transport for unit tests of engine/ and writes/ on their own: an n8n execute context whose HTTP helper
 * answers from a handler instead of the network, and records every request. With jest's fake timers (the clock),
 * waits and retries run in simulated time. Whole-node runs against the real sandbox live in test/nodes/.
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { api } from '../../nodes/RecruitingAnalysis/transport';

export interface FakeAnswer {
	statusCode: number;
	body?: unknown;
	headers?: Record<string, string>;
}

export interface SentRequest {
	method: string;
	path: string;
	qs?: IDataObject;
	body?: unknown;
	headers: IDataObject;
	at: number;
}

export type FakeHandler = (request: SentRequest) => FakeAnswer | Promise<FakeAnswer>;

const node: INode = {
	id: 'fake-node',
	name: 'Recruiting Analysis',
	type: 'n8n-nodes-recruiting-analysis.recruitingAnalysis',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** `{ data }` with status 200, as the API answers a read. */
export const ok = (data: unknown, statusCode = 200): FakeAnswer => ({ statusCode, body: { data } });

/** An API error answer (spec, "Errors"): `{error: {code, message, requestId, reason?}}`. */
export const apiError = (statusCode: number, code: string, reason?: string): FakeAnswer => ({
	statusCode,
	body: {
		error: {
			code,
			message: `${code}${reason ? ` (${reason})` : ''}`,
			requestId: '00000000-0000-4000-8000-000000000000',
			...(reason ? { reason } : {}),
		},
	},
	headers: { 'x-request-id': '00000000-0000-4000-8000-000000000000' },
});

export interface FakeContext {
	ctx: IExecuteFunctions;
	requests: SentRequest[];
	hints: string[];
	logs: string[];
}

/** An execute context with a sandbox credential whose requests go to `handler`. */
export function fakeContext(
	handler: FakeHandler,
	parameters: IDataObject = {},
	continueOnFail = false,
): FakeContext {
	const requests: SentRequest[] = [];
	const hints: string[] = [];
	const logs: string[] = [];
	const httpRequestWithAuthentication = async (_type: string, options: IHttpRequestOptions) => {
		const url = new URL(options.url);
		const request: SentRequest = {
			method: String(options.method ?? 'GET'),
			path: url.pathname,
			qs: options.qs as IDataObject | undefined,
			body: options.body,
			headers: (options.headers ?? {}) as IDataObject,
			at: Date.now(),
		};
		requests.push(request);
		const answer = await handler(request);
		return { statusCode: answer.statusCode, body: answer.body, headers: answer.headers ?? {} };
	};
	const ctx = {
		getNode: () => node,
		getCredentials: async () => ({
			environment: 'sandbox',
			baseUrl: 'http://127.0.0.1:9',
			apiKey: 'svc_test_fake',
		}),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => {
			const value = name
				.split('.')
				.reduce<unknown>((at, part) => (at as IDataObject | undefined)?.[part], parameters);
			return value === undefined ? fallback : value;
		},
		getInputData: () => [{ json: {} }],
		continueOnFail: () => continueOnFail,
		getExecutionCancelSignal: () => undefined,
		addExecutionHints: (...found: Array<{ message: string }>) =>
			hints.push(...found.map((hint) => hint.message)),
		logger: {
			info: (message: string) => logs.push(message),
			debug: () => undefined,
			warn: () => undefined,
			error: () => undefined,
		},
		helpers: { httpRequestWithAuthentication },
	} as unknown as IExecuteFunctions;
	return { ctx, requests, hints, logs };
}

/** An invitation sent as the node sends it (a POST with an idempotency key), answered by the fake's handler. */
export async function postInvitation(ctx: IExecuteFunctions): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: '/api/v1/interviews',
		body: {},
		idempotencyKey: 'k',
		itemIndex: 0,
	});
}
