import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

// Interface skeleton: implementation follows in the next commit.

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions | IWebhookFunctions;
export const CREDENTIAL_TYPE = 'recruitingAnalysisApi';

export interface ApiRequestOptions {
	method: IHttpRequestMethods;
	/** '/api/v1/...'; build it with apiPath() so every id is encodeURIComponent'ed. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** Sends Idempotency-Key; makes a POST safe to retry. */
	idempotencyKey?: string;
	/** For error attribution. */
	itemIndex?: number;
	/** The endpoint answers 204 with no body. */
	expectEmpty?: boolean;
}

export async function apiRequest<T = IDataObject>(this: ApiContext, options: ApiRequestOptions): Promise<T> {
	void options;
	throw new Error('not implemented yet');
}

export async function apiRequestAllItems<T = IDataObject>(
	this: ApiContext,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<T[]> {
	void options;
	throw new Error('not implemented yet');
}

export function apiPath(template: string, ...ids: string[]): string {
	let i = 0;
	return template.replace(/\{\}/g, () => encodeURIComponent(ids[i++] ?? ''));
}

export function idempotencyKeyFor(
	this: IExecuteFunctions,
	itemIndex: number,
	operation: string,
	userKey?: string,
	attempt?: string,
): string {
	void itemIndex;
	void operation;
	void attempt;
	return userKey ?? '';
}

export interface UploadTarget {
	url: string;
	method: string;
	mimeType: string;
	sizeBytes: number;
	expiresInSeconds: number;
}

export async function putResumeToStorage(
	this: IExecuteFunctions,
	args: { reportId: string; upload: UploadTarget; itemIndex: number; binaryPropertyName: string },
): Promise<{ refreshed: boolean }> {
	void args;
	throw new Error('not implemented yet');
}

export async function pollUntil<T>(
	this: IExecuteFunctions,
	args: {
		fetch: () => Promise<T>;
		done: (value: T) => boolean;
		timeoutSeconds: number;
		initialDelayMs?: number;
		maxDelayMs?: number;
	},
): Promise<{ value: T; timedOut: boolean }> {
	const value = await args.fetch();
	return { value, timedOut: !args.done(value) };
}
