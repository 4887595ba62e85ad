// Every call of the API: one request, a list page by page, a read until done, and the conditions of its errors.
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, JsonObject } from 'n8n-workflow';

import { asObject, asString, describeApiError, headerValue, type ApiErrorParts } from './errors';
import { forgetConfig, resolveConfig } from './environment';
import { refusals, sendAttempt, type ApiContext } from './attempt';
import { hasControlCharacter, redactDeep, redactSecrets, scrubError } from './guard';
import {
	DEFAULT_RETRY_POLICY,
	growingDelayMs,
	isCancellation,
	isRetryableStatus,
	isSafeToRetry,
	withRetries,
	parseRetryAfter,
} from './retry';

export const REQUEST_TIMEOUT_MS = 30_000;

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	// Built with apiPath(), so that every id is URI-encoded.
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	// Makes a POST safe to retry.
	idempotencyKey?: string;
	itemIndex?: number;
	expectEmpty?: boolean;
	apiTime?: { dateMs?: number };
}

export type ApiErrorInfo = Pick<ApiErrorParts, 'status' | 'code' | 'reason' | 'requestId'> & {
	retryAfterMs?: number;
};

export const transportSettings = {
	retry: { ...DEFAULT_RETRY_POLICY },
	random: Math.random,
	requestTimeoutMs: REQUEST_TIMEOUT_MS,
};

export function apiPath(template: string, ...ids: string[]): string {
	let index = 0;
	const path = template.replace(/\{\}/g, () => {
		const id = ids[index++];
		if (id === undefined)
			throw new RangeError(`apiPath: no id for placeholder ${index} in ${template}`);
		return encodeURIComponent(String(id));
	});
	if (index !== ids.length)
		throw new RangeError(`apiPath: ${ids.length} ids for ${index} placeholders in ${template}`);
	return path;
}

export function apiErrorInfo(error: unknown): ApiErrorInfo | undefined {
	return (error as { context?: { apiError?: ApiErrorInfo } } | undefined)?.context?.apiError;
}

// Not every context n8n hands the transport carries a cancel signal, hence the optional call.
function cancelled(context: ApiContext): boolean {
	return (context as Partial<IExecuteFunctions>).getExecutionCancelSignal?.()?.aborted === true;
}

export function buildApiError(
	context: ApiContext,
	parts: ApiErrorParts,
	options: { itemIndex?: number; secrets?: string[]; retryAfterMs?: number; storage?: boolean },
): NodeApiError {
	const { httpCode, status, code, reason, requestId } = parts;
	const { itemIndex, secrets = [], retryAfterMs } = options;
	const message = redactSecrets(parts.message, secrets);
	const description = redactSecrets(parts.description, secrets);
	type Cause = 'rate-limited' | 'temporarily-unavailable' | 'credential-invalid';
	let failure: { cause: Cause; retryAfterMs?: number } | undefined;
	if (status === 429) failure = { cause: 'rate-limited', retryAfterMs };
	// Status 0 is a request that got no answer at all (a network failure in apiRequest).
	else if (status === 503 || status === 0)
		failure = { cause: 'temporarily-unavailable', retryAfterMs };
	// A 401 from storage says nothing about the API key (storage never gets it): no request for a new credential.
	else if (status === 401 && !options.storage) failure = { cause: 'credential-invalid' };
	// n8n 1.x has no NodeApiError failure option and ignores it.
	const errorOptions = { message, description, httpCode, itemIndex, failure };
	// n8n stores `errorResponse` in the task data and the saved execution: no secret may survive in it.
	const body = redactDeep(parts.body, secrets) as JsonObject;
	const error = new NodeApiError(context.getNode(), body, errorOptions);
	// NodeApiError picks a generic message for some status codes; keep ours, which names code and reason.
	error.message = message;
	error.description = description;
	error.context.apiError = { status, code, reason, requestId, retryAfterMs };
	return error;
}

// The key goes only to the credential's origin (attempt.ts), and no error leaving here holds it (guard.ts scrubError).
export async function apiRequest<T = IDataObject>(
	this: ApiContext,
	options: ApiRequestOptions,
): Promise<T> {
	const { method, path, itemIndex, idempotencyKey } = options;
	const bare = path.split('?')[0];
	const where = `${method} ${bare}`;
	let secrets: string[] = [];
	try {
		const config = await resolveConfig.call(this, itemIndex);
		secrets = [config.apiKey, config.apiKey.trim()];
		const safe = isSafeToRetry(method, path, idempotencyKey);
		const cancellation = () =>
			new NodeOperationError(this.getNode(), 'The execution was cancelled', { itemIndex });
		// A `.` or `..` segment (also as %2e) would make the URL parser step to another endpoint with the key.
		const dotSegment = bare.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
		if (hasControlCharacter(path) || dotSegment) {
			throw new NodeOperationError(
				this.getNode(),
				`Refused before sending: an ID in the request path of ${method} is . or .., or holds a control character`,
				{
					itemIndex,
					description:
						'IDs are sent as one path segment each and may not be a path step or carry line breaks. Check the ID fields of this item. Nothing was sent.',
				},
			);
		}

		const headers: IDataObject = { Accept: 'application/json' };
		if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
		const qs =
			options.qs &&
			Object.fromEntries(
				Object.entries(options.qs).filter(([, v]) => v !== undefined && v !== null && v !== ''),
			);
		const { response, error, networkCode, attempts } = await withRetries({
			safe,
			policy: transportSettings.retry,
			random: transportSettings.random,
			beforeAttempt: () => {
				if (cancelled(this)) throw cancellation();
			},
			send: async () =>
				await sendAttempt(this, {
					config,
					method,
					url: `${config.baseUrl}${path}`,
					headers,
					qs,
					body: options.body,
					timeoutMs: transportSettings.requestTimeoutMs,
					itemIndex,
				}),
		});
		if (!response) {
			if (refusals.has(error as object)) throw error;
			if (isCancellation(error) || cancelled(this)) throw cancellation();
			if (!networkCode) {
				// Its text may hold the key; scrubError below masks it.
				const text = error instanceof Error ? error.message : String(error);
				throw new NodeOperationError(
					this.getNode(),
					`Request to the Recruiting Analysis API failed: ${text}`,
					{ itemIndex, description: `${where} could not be sent.` },
				);
			}
			const advice = idempotencyKey
				? `The write may have been committed: a timeout or dropped connection is not proof of failure. It carried Idempotency-Key ${idempotencyKey}, ` +
					'which names this write (it is derived from what the write is, or from Options > Idempotency Key), not this execution: ' +
					'run the node again on the same input, or retry the execution, and the service answers with what this request created instead of creating it twice.'
				: safe
					? 'This request has no side effects; run again when the API is reachable.'
					: 'The request was not retried because it is not safe to repeat. Check whether it took effect before running again.';
			const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
			const parts: ApiErrorParts = {
				status: 0,
				code: 'NETWORK_ERROR',
				reason: networkCode,
				body: { error: { code: 'NETWORK_ERROR', reason: networkCode } },
				message: `Could not get an answer from the Recruiting Analysis API for ${where}`,
				description: `Network error ${networkCode} after ${tries} to ${config.baseUrl}. ${advice}`,
			};
			throw buildApiError(this, parts, { itemIndex });
		}
		const status = response.statusCode;
		// Any answer tells the API's time, a refusal too (the Feed Trigger's Start From Now needs it).
		if (options.apiTime) {
			const dateMs = Date.parse(String(headerValue(response.headers, 'date') ?? ''));
			options.apiTime.dateMs = Number.isFinite(dateMs) ? dateMs : undefined;
		}
		if (status >= 200 && status < 300) {
			if (options.expectEmpty || status === 204) return undefined as T;
			const envelope = asObject(response.body);
			return (envelope && 'data' in envelope ? envelope.data : response.body) as T;
		}

		// A refused key is read again on the next request (the user may have replaced it in the credential).
		if (status === 401) forgetConfig(this, itemIndex);
		const retryAfterMs = parseRetryAfter(headerValue(response.headers, 'retry-after'), Date.now());
		const parts = describeApiError({
			status,
			body: response.body,
			headers: response.headers,
			retries: isRetryableStatus(status) && safe ? attempts - 1 : 0,
			safeToRetry: safe,
		});
		throw buildApiError(this, parts, { itemIndex, secrets, retryAfterMs });
	} catch (error) {
		throw scrubError(error, secrets);
	}
}

export async function api(ctx: IExecuteFunctions, options: ApiRequestOptions) {
	return (await apiRequest.call(ctx, options)) as IDataObject;
}

// Never build or decode a cursor; a cursor seen twice stops the walk with an error instead of looping.
export async function* listPages(
	this: ApiContext,
	options: ApiRequestOptions & { pageSize: number | (() => number); cursor?: string },
): AsyncGenerator<{ items: IDataObject[]; nextCursor?: string; hasMore?: boolean }> {
	const { pageSize, cursor: start, ...request } = options;
	const seen = new Set<string>();
	let cursor = start;
	for (;;) {
		const limit = typeof pageSize === 'function' ? pageSize() : pageSize;
		const qs = { ...request.qs, limit, cursor };
		const data = (await apiRequest.call(this, { ...request, qs })) as IDataObject | undefined;
		const page = {
			items: Array.isArray(data?.items) ? (data.items as IDataObject[]) : [],
			nextCursor: asString(data?.nextCursor),
			hasMore: typeof data?.hasMore === 'boolean' ? data.hasMore : undefined,
		};
		yield page;
		if (page.nextCursor === undefined || page.hasMore === false) return;
		if (seen.has(page.nextCursor)) {
			throw new NodeOperationError(this.getNode(), 'The API returned the same page cursor twice', {
				itemIndex: request.itemIndex,
				description:
					'Paging stopped to avoid an endless loop. Run again; if it repeats, report it.',
			});
		}
		seen.add(page.nextCursor);
		cursor = page.nextCursor;
	}
}

export async function apiAll(
	ctx: ApiContext,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<IDataObject[]> {
	const { returnAll, limit: wanted, ...request } = options;
	const limit = returnAll ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(wanted ?? 50));
	const items: IDataObject[] = [];
	const pageSize = () => Math.min(100, limit - items.length);
	for await (const page of listPages.call(ctx, { ...request, pageSize })) {
		items.push(...page.items);
		if (items.length >= limit || page.items.length === 0) break;
	}
	return items.length > limit ? items.slice(0, limit) : items;
}

// A time-out is reported as timedOut, never as a failure (spec: do not infer report failure from elapsed time).
export async function poll<T>(
	ctx: IExecuteFunctions,
	args: {
		fetch: () => Promise<T>;
		done: (value: T) => boolean;
		timeoutSeconds: number;
		initialDelayMs: number;
		maxDelayMs: number;
		firstReadDelayMs?: number;
	},
): Promise<{ value: T; timedOut: boolean }> {
	const { initialDelayMs, maxDelayMs, firstReadDelayMs = 0 } = args;
	const deadline = Date.now() + Math.max(0, args.timeoutSeconds) * 1000;
	for (let read = 0; ; read++) {
		const delay =
			read > 0 ? growingDelayMs(read - 1, initialDelayMs, maxDelayMs) : firstReadDelayMs;
		if (delay > 0) await sleep(Math.max(0, Math.min(delay, deadline - Date.now())));
		if (cancelled(ctx)) {
			throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled while waiting');
		}
		const value = await args.fetch();
		if (args.done(value)) return { value, timedOut: false };
		if (Date.now() >= deadline) return { value, timedOut: true };
	}
}

// The spec leaves the sub-condition's placement open, so both error.reason and error.code are read.
export function apiErrorConditions(error: unknown): string[] {
	const found = new Set<string>();
	const visit = (value: unknown, depth: number): void => {
		if (depth > 4 || typeof value !== 'object' || value === null) return;
		const record = value as Record<string, unknown>;
		for (const key of ['reason', 'code'])
			if (typeof record[key] === 'string') found.add(record[key] as string);
		for (const key of ['context', 'apiError', 'cause', 'error', 'errorResponse', 'body'])
			if (key in record) visit(record[key], depth + 1);
	};
	visit(error, 0);
	return [...found];
}

export function hasApiCondition(error: unknown, condition: string): boolean {
	return apiErrorConditions(error).includes(condition);
}

export async function onApiCondition<T>(
	condition: string,
	first: () => Promise<T>,
	recover: (error: unknown) => Promise<T>,
): Promise<T> {
	const outcome = await outcomeOf(first);
	if (outcome.ok) return outcome.value;
	if (!hasApiCondition(outcome.error, condition)) throw outcome.error;
	return await recover(outcome.error);
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function outcomeOf<T>(run: () => Promise<T>): Promise<Outcome<T>> {
	return await run().then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
}
