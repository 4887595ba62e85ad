/**
 * Events: one durable publication order per workspace (spec "Events"), 30-day retention, tombstones.
 * Payloads carry identifiers and status only. Every published event is handed to the webhook sender.
 */
import type { Ctx } from './context';
import { DAY } from './clock';
import { newUuid } from './store';
import type { EventRecord } from './types';
import { eventBody } from './views';
import { dispatchEvent } from './webhooks';

export const EVENT_RETENTION_MS = 30 * DAY;

export const EVENT_TYPES = [
	'report.completed',
	'report.requires_action',
	'report.failed',
	'report.result_ready',
	'report.deleted',
	'interview.invited',
	'interview.started',
	'interview.completed',
	'interview.expired',
	'interview.preparation_failed',
	'interview.result_failed',
	'interview.invitation_failed',
	'interview.result_ready',
	'batch.completed',
	'webhook.test',
];

export function publish(
	ctx: Ctx,
	workspaceId: string,
	type: string,
	data: Record<string, unknown> | null,
	assoc: { reportId?: string | null; interviewId?: string | null } = {},
	options: { deliver?: boolean; tombstone?: boolean } = {},
): EventRecord {
	const ws = ctx.store.workspaces[workspaceId];
	ws.eventSeq += 1;
	const event: EventRecord = {
		seq: ws.eventSeq,
		id: newUuid(),
		type,
		occurredAt: ctx.clock.now(),
		data,
		reportId: assoc.reportId ?? null,
		interviewId: assoc.interviewId ?? null,
		tombstone: options.tombstone ?? false,
	};
	ctx.store.eventsOf(workspaceId).push(event);
	ctx.markDirty();
	if (options.deliver !== false) dispatchEvent(ctx, workspaceId, event);
	return event;
}

/** Drop events past the 30-day retention; cursors positioned before them then get 410. */
export function sweepEvents(ctx: Ctx, workspaceId: string): void {
	const ws = ctx.store.workspaces[workspaceId];
	const list = ctx.store.eventsOf(workspaceId);
	const cutoff = ctx.clock.now() - EVENT_RETENTION_MS;
	let n = 0;
	while (n < list.length && list[n].occurredAt < cutoff) n += 1;
	if (n > 0) {
		ws.purgedThroughSeq = list[n - 1].seq;
		list.splice(0, n);
		ctx.markDirty();
	}
}

/** Erasure of a report: its events (and its interviews' events) keep only id, type and occurrence time. */
export function tombstoneEvents(
	ctx: Ctx,
	workspaceId: string,
	reportId: string,
	interviewIds: string[],
): void {
	const erased = new Map<string, EventRecord>();
	for (const e of ctx.store.eventsOf(workspaceId)) {
		if (e.reportId === reportId || (e.interviewId && interviewIds.includes(e.interviewId))) {
			e.tombstone = true;
			e.data = null;
			erased.set(e.id, e);
		}
	}
	// Retained webhook deliveries (and so their replays) carry the tombstone too.
	for (const d of Object.values(ctx.store.deliveries)) {
		const e = erased.get(d.eventId);
		if (e) d.body = JSON.stringify(eventBody(e));
	}
	ctx.markDirty();
}
