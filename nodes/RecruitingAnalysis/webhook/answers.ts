import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { readSeenList, type SeenList } from './dedupe';
import type { VerifyFailureReason } from './verify';

export const SEEN_IDS = 'seenEventIds';
export const SEEN_ORDER = 'seenEventOrder';

export function storedSeen(staticData: IDataObject): SeenList {
	return readSeenList(staticData[SEEN_IDS], staticData[SEEN_ORDER]);
}

export type WebhookResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

export const RECHECKED_FAILURES: ReadonlySet<VerifyFailureReason> = new Set([
	'SIGNATURE_MISMATCH',
	'NO_SECRET',
	'INVALID_SECRET',
]);

export function answer(res: WebhookResponse, status: number, body: IDataObject) {
	res.set('cache-control', 'no-store');
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

const CODES = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 503: 'SERVICE_UNAVAILABLE' };

// 503, which the service retries for a day and a half, so the event arrives once fixed; a 401 would end it for good.
export function refuse(
	res: WebhookResponse,
	status: keyof typeof CODES,
	reason: string,
	message: string,
) {
	return answer(res, status, { error: { code: CODES[status], reason, message } });
}

export function notReady(ctx: IWebhookFunctions, res: WebhookResponse, error: unknown) {
	ctx.logger.warn(
		`Recruiting Analysis Trigger cannot verify deliveries: ${(error as Error).message}`,
	);
	const message = 'The receiver cannot verify deliveries right now; retry later';
	return refuse(res, 503, 'RECEIVER_NOT_READY', message);
}

// TextDecoder skips a leading UTF-8 byte order mark, which the signature covers as received.
export function parseBody(raw: Uint8Array): unknown {
	try {
		return JSON.parse(new TextDecoder().decode(raw));
	} catch {
		return undefined;
	}
}

// The id counts as seen only when n8n reads the answer (on 2.x after it created the execution), so a failed start is retried.
// Assigning inside the getter marks the static data changed again: 2.x's new Workflow clears that mark.
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

// 503: by the sender's retry the first copy is either acknowledged (a duplicate) or failed (the retry runs).
export function inFlight(res: WebhookResponse) {
	const message = 'Another delivery of this event is being started; retry later';
	return refuse(res, 503, 'DELIVERY_IN_PROGRESS', message);
}

// When the sender left before any answer, the id stays in flight (IN_FLIGHT_LIMIT_MS): n8n may still create the execution.
export function abandonUnlessAcknowledged(res: WebhookResponse, abandon: () => void): void {
	if (typeof res.once !== 'function') return;
	res.once('close', () => {
		if (res.writableFinished) abandon();
	});
}
