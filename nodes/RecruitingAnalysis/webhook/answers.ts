/**
 * How the webhook trigger answers a delivery (api-spec "Webhook receiver contract" 5 and 6), and how it reads the
 * request: the signed body and the headers as received.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { HeaderBag, VerifyFailureReason } from './verify';

/** Static-data key (node scope) of the remembered event ids (webhook/dedupe.ts). */
export const SEEN_IDS = 'seenEventIds';

export type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/** Failures that secrets read after the delivery arrived could turn into a success. */
export const RECHECKED_FAILURES: ReadonlySet<VerifyFailureReason> = new Set([
	'SIGNATURE_MISMATCH',
	'NO_SECRET',
	'INVALID_SECRET',
]);

/** Answers through `res` (no execution starts) and tells n8n that the node has answered. */
export function answer(
	res: WebhookResponse,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	res.set('cache-control', 'no-store');
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * A failure on this side (the secret cannot be read or used, the raw body is missing): 503, which the service
 * retries for about a day and a half (api-spec "Webhook receiver contract" 5 and 6), so the event arrives once
 * the problem is fixed. A 401 would end the delivery for good.
 */
export function unavailable(
	res: WebhookResponse,
	reason: string,
	message: string,
): IWebhookResponseData {
	return answer(res, 503, { error: { code: 'SERVICE_UNAVAILABLE', reason, message } });
}

/** The secret could not be read, or the raw body is missing: 503, so that the service retries. */
export function notReady(
	ctx: IWebhookFunctions,
	res: WebhookResponse,
	error: unknown,
): IWebhookResponseData {
	ctx.logger.warn(
		`Recruiting Analysis Trigger cannot verify deliveries: ${(error as Error).message}`,
	);
	return unavailable(
		res,
		'RECEIVER_NOT_READY',
		'The receiver cannot verify deliveries right now; retry later',
	);
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The signed body as JSON; a leading UTF-8 byte order mark is tolerated (the signature covers it as received). */
export function parseBody(raw: Uint8Array): unknown {
	const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
	const start = UTF8_BOM.every((b, i) => bytes[i] === b) ? UTF8_BOM.length : 0;
	try {
		return JSON.parse(bytes.subarray(start).toString('utf8'));
	} catch {
		return undefined;
	}
}

/**
 * Starts the workflow and lets n8n answer 200 only after it has written the remembered event id to its database,
 * so that a replay after a restart, or on another webhook process, is recognised (acknowledged means remembered).
 *
 * n8n writes a webhook workflow's changed static data inside its response callback, just before it answers
 * (packages/cli `LiveWebhooks.executeWebhook`). On n8n 1.x the callback runs before the execution is created; on
 * 2.x after it, and creating the execution wraps the same static data in a new `Workflow`, which clears its
 * "changed" mark. n8n reads the node's `webhookResponse` right before calling that callback (it is the answer's
 * body when the description's `responseData` is empty), so reading it marks the ids changed again: on both lines
 * the ids are written, then the answer goes out.
 */
export function acknowledgeWhenStored(
	staticData: IDataObject,
	rememberedIds: string[] | undefined,
	workflowData: IWebhookResponseData['workflowData'],
): IWebhookResponseData {
	const result: IWebhookResponseData = { workflowData };
	Object.defineProperty(result, 'webhookResponse', {
		enumerable: true,
		get: () => {
			if (rememberedIds) staticData[SEEN_IDS] = rememberedIds;
			return { received: true, started: true };
		},
	});
	return result;
}

export function headerBag(req: { headers: HeaderBag; headersDistinct?: HeaderBag }): HeaderBag {
	// headersDistinct keeps repeated headers as arrays (Node joins them with ", " in `headers`).
	return req.headersDistinct ?? req.headers;
}
