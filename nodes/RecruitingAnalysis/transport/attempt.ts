// Redirects are followed here, not by n8n: its redirect options would still let a 303 turn a write into a GET.
import { NodeOperationError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IN8nHttpResponse,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'recruitingAnalysisApi';
import { headerValue } from './errors';
import {
	decideRedirect,
	discardBody,
	isRedirectStatus,
	MAX_API_RESPONSE_BYTES,
	parseAnswer,
	readBounded,
	ResponseTooLargeError,
} from './guard';

export type ApiContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions | IWebhookFunctions;

export const refusals = new WeakSet<object>();

export function refusal(
	context: ApiContext,
	message: string,
	description: string,
	itemIndex?: number,
): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	refusals.add(error);
	return error;
}

export async function sendAttempt(
	context: ApiContext,
	args: {
		config: { origin: string; credentials: ICredentialDataDecryptedObject };
		method: IHttpRequestMethods;
		url: string;
		headers: IDataObject;
		qs?: IDataObject;
		body?: IDataObject;
		timeoutMs: number;
		itemIndex?: number;
	},
): Promise<IN8nHttpFullResponse> {
	const { method, timeoutMs, itemIndex } = args;
	const deadline = Date.now() + timeoutMs;
	let url = new URL(args.url);
	let qs = args.qs;
	for (let hops = 0; ; hops++) {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{
				method,
				url: url.href,
				headers: { ...args.headers },
				qs,
				json: true,
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: Math.max(1, deadline - Date.now()),
				body: args.body,
			},
			{
				credentialsDecrypted: {
					id: '',
					name: CREDENTIAL_TYPE,
					type: CREDENTIAL_TYPE,
					data: { ...args.config.credentials },
				},
			},
		)) as IN8nHttpFullResponse;
		if (isRedirectStatus(response.statusCode)) {
			discardBody(response.body);
			// The first hop's query is part of `url` from here on (a Location carries its own).
			const current = qs ? withQuery(url, qs) : url;
			const decision = decideRedirect({
				status: response.statusCode,
				location: headerValue(response.headers, 'location'),
				method,
				current,
				credentialOrigin: args.config.origin,
				hops,
			});
			if ('refuse' in decision)
				throw refusal(context, decision.refuse, decision.description, itemIndex);
			url = decision.follow;
			qs = undefined;
			continue;
		}
		try {
			const raw = await readBounded(response.body, MAX_API_RESPONSE_BYTES, deadline, timeoutMs);
			return { ...response, body: parseAnswer(raw) as IN8nHttpResponse };
		} catch (error) {
			if (error instanceof ResponseTooLargeError) {
				throw refusal(
					context,
					`The answer to ${method} ${url.pathname} was larger than ${MAX_API_RESPONSE_BYTES / 1024 / 1024} MiB and was not read`,
					'No answer of the Recruiting Analysis API comes near this size: check the proxy in front of the API (the base URL of the credential). A list read can ask for fewer items per page (Limit).',
					itemIndex,
				);
			}
			// A dropped connection or the deadline (code ETIMEDOUT): its code stays readable as the cause for retry.ts.
			throw new NodeOperationError(
				context.getNode(),
				error instanceof Error ? error : String(error),
				{ itemIndex },
			);
		}
	}
}

function withQuery(url: URL, qs: IDataObject): URL {
	const out = new URL(url.href);
	for (const [key, value] of Object.entries(qs)) {
		if (value !== undefined && value !== null) out.searchParams.set(key, String(value));
	}
	return out;
}
