/**
 * The webhook sender (spec "Webhook receiver contract"): Standard Webhooks signatures made with the
 * `standardwebhooks` package (every active secret signs, so two signatures during rotation), delivery with
 * undici under a ten-second deadline, no redirects followed, at most seven attempts on the
 * 0/1m/5m/30m/2h/8h/24h schedule with jitter and Retry-After, all multiplied by `webhookTimeScale`.
 * Retention (30 days) is read on the sandbox clock.
 */
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Ctx } from './context';
import { DAY, HOUR, MINUTE } from './clock';
import { newId, newUuid } from './store';
import type { DeliveryRecord, EventRecord, WebhookEndpoint } from './types';
import { eventBody } from './views';

export const RETRY_SCHEDULE_MS = [
	0,
	MINUTE,
	5 * MINUTE,
	30 * MINUTE,
	2 * HOUR,
	8 * HOUR,
	24 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
const RETENTION_MS = 30 * DAY;
const SHOWN_ATTEMPTS = 7;

export function signatureHeader(
	secrets: string[],
	msgId: string,
	timestamp: Date,
	body: string,
): string {
	return secrets.map((s) => new Webhook(s).sign(msgId, timestamp, body)).join(' ');
}

function subscribed(endpoint: WebhookEndpoint, type: string): boolean {
	return endpoint.eventTypes === null || endpoint.eventTypes.includes(type);
}

export function dispatchEvent(ctx: Ctx, workspaceId: string, event: EventRecord): void {
	for (const endpoint of Object.values(ctx.store.endpoints)) {
		if (endpoint.workspaceId !== workspaceId || !subscribed(endpoint, event.type)) continue;
		createDelivery(ctx, endpoint, {
			eventId: event.id,
			eventType: event.type,
			body: JSON.stringify(eventBody(event)),
			eventOccurredAt: event.occurredAt,
			reportId: event.reportId,
			interviewId: event.interviewId,
		});
	}
}

/** `webhook.test`: a synthetic event for one endpoint only, with no report or candidate data. */
export function sendTest(ctx: Ctx, endpoint: WebhookEndpoint): DeliveryRecord {
	const occurredAt = ctx.clock.now();
	const id = newUuid();
	const body = {
		id,
		type: 'webhook.test',
		schemaVersion: 1,
		occurredAt: new Date(occurredAt).toISOString(),
		data: { test: true },
	};
	return createDelivery(ctx, endpoint, {
		eventId: id,
		eventType: 'webhook.test',
		body: JSON.stringify(body),
		eventOccurredAt: occurredAt,
		reportId: null,
		interviewId: null,
	});
}

type DeliveryInput = Pick<
	DeliveryRecord,
	'eventId' | 'eventType' | 'body' | 'eventOccurredAt' | 'reportId' | 'interviewId'
>;

export function createDelivery(
	ctx: Ctx,
	endpoint: WebhookEndpoint,
	input: DeliveryInput,
): DeliveryRecord {
	const delivery: DeliveryRecord = {
		deliveryId: newId('dlv_'),
		workspaceId: endpoint.workspaceId,
		endpointId: endpoint.id,
		...input,
		state: 'pending',
		attemptCount: 0,
		attempts: [],
		outcome: null,
	};
	ctx.store.deliveries[delivery.deliveryId] = delivery;
	ctx.markDirty();
	if (!endpoint.paused)
		ctx.timers.schedule(endpoint.workspaceId, 0, () => attempt(ctx, delivery.deliveryId));
	return delivery;
}

/** Replay of a retained succeeded or failed delivery: same event id and body, fresh retry budget. */
export function replayDelivery(ctx: Ctx, original: DeliveryRecord): DeliveryRecord | null {
	const endpoint = ctx.store.endpoints[original.endpointId];
	if (!endpoint) return null;
	return createDelivery(ctx, endpoint, {
		eventId: original.eventId,
		eventType: original.eventType,
		body: original.body,
		eventOccurredAt: original.eventOccurredAt,
		reportId: original.reportId,
		interviewId: original.interviewId,
	});
}

/** Unpausing an endpoint sends the deliveries it held. */
export function resumeEndpoint(ctx: Ctx, endpoint: WebhookEndpoint): void {
	for (const d of Object.values(ctx.store.deliveries)) {
		if (d.endpointId === endpoint.id && d.state === 'pending') {
			ctx.timers.schedule(endpoint.workspaceId, 0, () => attempt(ctx, d.deliveryId));
		}
	}
}

/** A changed URL or a deleted endpoint cancels unsent deliveries to the old destination. */
export function cancelPending(ctx: Ctx, endpointId: string): void {
	for (const d of Object.values(ctx.store.deliveries)) {
		if (d.endpointId === endpointId && d.state === 'pending') {
			d.state = 'cancelled';
			d.outcome = 'DESTINATION_CHANGED';
		}
	}
	ctx.markDirty();
}

function retryAfterMs(value: string | string[] | undefined): number | null {
	const v = Array.isArray(value) ? value[0] : value;
	if (!v) return null;
	if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
	const date = Date.parse(v);
	return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

async function attempt(ctx: Ctx, deliveryId: string): Promise<void> {
	const d = ctx.store.deliveries[deliveryId];
	if (!d || d.state !== 'pending') return;
	const endpoint = ctx.store.endpoints[d.endpointId];
	if (!endpoint) {
		d.state = 'cancelled';
		d.outcome = 'ENDPOINT_DELETED';
		return;
	}
	if (endpoint.paused) return; // held until the endpoint is resumed
	if (ctx.clock.now() - d.eventOccurredAt > RETENTION_MS) {
		d.state = 'failed';
		d.outcome = 'RETENTION_ENDED';
		ctx.markDirty();
		return;
	}
	d.attemptCount += 1;
	const timestamp = new Date(); // receivers check it against their real clock
	const headers = {
		'content-type': 'application/json',
		'user-agent': 'recruiting-analysis-sandbox-webhooks/1.0',
		'webhook-id': d.eventId,
		'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
		'webhook-signature': signatureHeader(endpoint.secrets, d.eventId, timestamp, d.body),
	};
	const started = Date.now();
	let status: number | null = null;
	let error: string | null = null;
	let retryAfter: number | null = null;
	try {
		const res = await request(endpoint.url, {
			method: 'POST',
			dispatcher: ctx.dispatcher,
			headers,
			body: d.body,
			signal: AbortSignal.timeout(ctx.opts.webhookDeadlineMs),
			headersTimeout: ctx.opts.webhookDeadlineMs,
			bodyTimeout: ctx.opts.webhookDeadlineMs,
		});
		status = res.statusCode;
		retryAfter = retryAfterMs(res.headers['retry-after']);
		await res.body.dump().catch(() => undefined); // response bodies are ignored
	} catch (err) {
		const name = (err as Error).name;
		error =
			name === 'TimeoutError' ||
			name === 'AbortError' ||
			/timeout/i.test(String((err as Error).message))
				? 'TIMEOUT'
				: 'NETWORK_ERROR';
	}
	if (ctx.timers.closed) return;
	d.attempts.push({ at: timestamp.toISOString(), status, durationMs: Date.now() - started, error });
	if (d.attempts.length > SHOWN_ATTEMPTS) d.attempts.splice(0, d.attempts.length - SHOWN_ATTEMPTS);
	ctx.markDirty();
	if (status !== null && status >= 200 && status < 300) {
		d.state = 'succeeded';
		d.outcome = 'ACKNOWLEDGED';
		return;
	}
	const retryable = status === null || status === 408 || status === 429 || status >= 500;
	if (!retryable) {
		d.state = 'failed';
		d.outcome =
			status !== null && status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : `HTTP_${status}`;
		return;
	}
	if (d.attemptCount >= MAX_ATTEMPTS) {
		d.state = 'failed';
		d.outcome = 'ATTEMPTS_EXHAUSTED';
		return;
	}
	let waitMs = RETRY_SCHEDULE_MS[d.attemptCount] * (0.9 + Math.random() * 0.2);
	if (retryAfter !== null) waitMs = Math.min(Math.max(waitMs, retryAfter), 24 * HOUR);
	ctx.timers.schedule(d.workspaceId, waitMs * ctx.opts.webhookTimeScale, () =>
		attempt(ctx, deliveryId),
	);
}

/**
 * Catch-up preview (webhook receiver contract 7): the retained events of an ISO window on the current
 * endpoint, at most 500, valid ten minutes (sandbox clock), bound to the endpoint revision; sending it
 * skips events that already have a delivery to that endpoint.
 */
export interface CatchUpPreview {
	id: string;
	endpointId: string;
	revision: number;
	expiresAt: number;
	eventIds: string[];
}

export const CATCH_UP_LIMIT = 500;
export const CATCH_UP_TTL_MS = 10 * MINUTE;

export function previewCatchUp(
	ctx: Ctx,
	endpoint: WebhookEndpoint,
	from: number,
	to: number,
): CatchUpPreview {
	const delivered = new Set(
		Object.values(ctx.store.deliveries)
			.filter((d) => d.endpointId === endpoint.id)
			.map((d) => d.eventId),
	);
	const eventIds = ctx.store
		.eventsOf(endpoint.workspaceId)
		.filter(
			(e) =>
				e.occurredAt >= from &&
				e.occurredAt < to &&
				subscribed(endpoint, e.type) &&
				!delivered.has(e.id),
		)
		.slice(0, CATCH_UP_LIMIT)
		.map((e) => e.id);
	return {
		id: newId('cup_'),
		endpointId: endpoint.id,
		revision: endpoint.revision,
		expiresAt: ctx.clock.now() + CATCH_UP_TTL_MS,
		eventIds,
	};
}

export function sendCatchUp(ctx: Ctx, preview: CatchUpPreview): DeliveryRecord[] {
	const endpoint = ctx.store.endpoints[preview.endpointId];
	const delivered = new Set(
		Object.values(ctx.store.deliveries)
			.filter((d) => d.endpointId === preview.endpointId)
			.map((d) => d.eventId),
	);
	const events = new Map(ctx.store.eventsOf(endpoint.workspaceId).map((e) => [e.id, e]));
	const out: DeliveryRecord[] = [];
	for (const id of preview.eventIds) {
		const e = events.get(id);
		if (!e || delivered.has(id)) continue;
		out.push(
			createDelivery(ctx, endpoint, {
				eventId: e.id,
				eventType: e.type,
				body: JSON.stringify(eventBody(e)),
				eventOccurredAt: e.occurredAt,
				reportId: e.reportId,
				interviewId: e.interviewId,
			}),
		);
	}
	return out;
}
