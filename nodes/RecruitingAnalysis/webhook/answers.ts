/**
 * How the webhook trigger answers a delivery (api-spec "Webhook receiver contract" 5 and 6), and how it reads the
 * request: the signed body and the headers as received.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { readSeenList, type SeenList } from './dedupe';
import type { HeaderBag, VerifyFailureReason } from './verify';

/** Static-data key (node scope) of the remembered event ids (webhook/dedupe.ts). */
export const SEEN_IDS = 'seenEventIds';
/** Static-data key (node scope) of each remembered id's place in the order of acknowledgements (webhook/dedupe.ts). */
export const SEEN_ORDER = 'seenEventOrder';

/** The remembered ids as stored in the node's static data. */
export function storedSeen(staticData: IDataObject): SeenList {
	return readSeenList(staticData[SEEN_IDS], staticData[SEEN_ORDER]);
}

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
 * Starts the workflow and records the event id as seen at the moment n8n takes the trigger's answer
 * (`acknowledge`), with the remembered ids written to the static data n8n saves just before it answers.
 *
 * n8n reads the node's `webhookResponse` (the answer's body, the description's `responseData` being empty) right
 * before its response callback, which writes a webhook workflow's changed static data and then answers
 * (packages/cli `WebhookHelpers.executeWebhook`, `LiveWebhooks.executeWebhook`). On n8n 2.x that happens only after
 * `WorkflowRunner.run` created the execution; when creating it fails n8n answers 500 and never reads it, so the id is
 * not recorded and the sender's retry starts the event. On 1.x n8n reads it (and answers 200) before it creates the
 * execution. Creating the execution on 2.x also wraps the same static data in a new `Workflow`, which clears its
 * "changed" mark: assigning the ids inside the getter marks them changed again, so they are written on both lines.
 */
export function acknowledgeWhenStored(
	staticData: IDataObject,
	acknowledge: ((stored: SeenList) => SeenList) | undefined,
	workflowData: IWebhookResponseData['workflowData'],
): IWebhookResponseData {
	const result: IWebhookResponseData = { workflowData };
	let acknowledged = false;
	Object.defineProperty(result, 'webhookResponse', {
		enumerable: true,
		get: () => {
			if (acknowledge && !acknowledged) {
				acknowledged = true;
				const seen = acknowledge(storedSeen(staticData));
				staticData[SEEN_IDS] = seen.ids;
				staticData[SEEN_ORDER] = seen.order;
			}
			return { received: true, started: true };
		},
	});
	return result;
}

/**
 * A copy of an event whose first delivery n8n has not acknowledged yet (its execution is being created): 503, so the
 * sender retries it; by then the first is either acknowledged (the retry is a duplicate) or failed (the retry runs).
 */
export function inFlight(res: WebhookResponse): IWebhookResponseData {
	return unavailable(
		res,
		'DELIVERY_IN_PROGRESS',
		'Another delivery of this event is being started; retry later',
	);
}

/**
 * Calls `abandon` when n8n answered this request with something other than the trigger's acknowledgement (it failed
 * to start the execution). When the sender left before any answer, the id stays in flight (webhook/dedupe.ts,
 * IN_FLIGHT_LIMIT_MS): n8n may still create the execution.
 */
export function abandonUnlessAcknowledged(res: WebhookResponse, abandon: () => void): void {
	if (typeof res.once !== 'function') return;
	res.once('close', () => {
		if (res.writableFinished) abandon();
	});
}

export function headerBag(req: { headers: HeaderBag; headersDistinct?: HeaderBag }): HeaderBag {
	// headersDistinct keeps repeated headers as arrays (Node joins them with ", " in `headers`).
	return req.headersDistinct ?? req.headers;
}
