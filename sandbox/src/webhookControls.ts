/**
 * Sandbox controls for webhooks (`/_sandbox/...webhook-endpoints`, deliveries, catch-up, the private inbox):
 * register a receiver, switch its behaviour, rotate its secret, send a test, replay a delivery, preview and send a
 * catch-up window (spec, "Webhook receiver contract" 7). See sandbox/README.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { Ctx } from './context';
import { body, workspaceOf } from './controlRequests';
import { ApiError, badRequest, notFound } from './errors';
import { newId } from './store';
import type { DeliveryRecord, WebhookEndpoint } from './types';
import { isoDateTime, Validator } from './validation';
import {
	cancelPending,
	CATCH_UP_LIMIT,
	type CatchUpPreview,
	previewCatchUp,
	replayDelivery,
	resumeEndpoint,
	sendCatchUp,
	sendTest,
} from './webhooks';
import { newWebhookSecret } from './workspaces';

function endpointOf(ctx: Ctx, req: FastifyRequest): WebhookEndpoint {
	const ep = ctx.store.endpoints[(req.params as { id: string }).id];
	if (!ep) throw notFound('Webhook endpoint');
	return ep;
}

function deliveryView(d: DeliveryRecord) {
	return {
		deliveryId: d.deliveryId,
		eventId: d.eventId,
		eventType: d.eventType,
		state: d.state,
		outcome: d.outcome,
		attemptCount: d.attemptCount,
		reportId: d.reportId,
		interviewId: d.interviewId,
		attempts: d.attempts,
	};
}

const WEBHOOK_MODES = ['success', 'retry', 'timeout'];

export function webhookControlRoutes(c: FastifyInstance, ctx: Ctx): void {
	c.post('/_sandbox/workspaces/:wid/webhook-endpoints', async (req) => {
		const ws = workspaceOf(ctx, req);
		const b = body(req);
		if (typeof b.url !== 'string' || !/^https?:\/\//.test(b.url))
			throw badRequest([{ field: 'url', rule: 'url' }]);
		const eventTypes = Array.isArray(b.eventTypes) ? (b.eventTypes as string[]) : null;
		const ep: WebhookEndpoint = {
			id: newId('whe_'),
			workspaceId: ws.id,
			url: b.url,
			eventTypes,
			secrets: [typeof b.secret === 'string' ? b.secret : ws.webhookSecret],
			mode: 'success',
			paused: false,
			revision: 1,
		};
		ctx.store.endpoints[ep.id] = ep;
		ctx.markDirty();
		return { id: ep.id, secret: ep.secrets[0], url: ep.url, eventTypes: ep.eventTypes };
	});

	c.patch('/_sandbox/webhook-endpoints/:id', async (req) => {
		const ep = endpointOf(ctx, req);
		const b = body(req);
		if (b.mode !== undefined) {
			if (!WEBHOOK_MODES.includes(b.mode as string))
				throw badRequest([{ field: 'mode', rule: 'enum' }]);
			ep.mode = b.mode as WebhookEndpoint['mode'];
		}
		if (typeof b.url === 'string' && b.url !== ep.url) {
			cancelPending(ctx, ep.id);
			ep.url = b.url;
			ep.revision += 1;
		}
		if (Array.isArray(b.eventTypes) || b.eventTypes === null)
			ep.eventTypes = b.eventTypes as string[] | null;
		if (typeof b.paused === 'boolean') {
			const wasPaused = ep.paused;
			ep.paused = b.paused;
			if (wasPaused && !ep.paused) resumeEndpoint(ctx, ep);
		}
		ctx.markDirty();
		return {
			id: ep.id,
			url: ep.url,
			mode: ep.mode,
			paused: ep.paused,
			eventTypes: ep.eventTypes,
			revision: ep.revision,
		};
	});

	c.delete('/_sandbox/webhook-endpoints/:id', async (req) => {
		const ep = endpointOf(ctx, req);
		cancelPending(ctx, ep.id);
		delete ctx.store.endpoints[ep.id];
		ctx.markDirty();
		return { deleted: true };
	});

	c.post('/_sandbox/webhook-endpoints/:id/rotate-secret', async (req) => {
		const ep = endpointOf(ctx, req);
		const secret = newWebhookSecret();
		const previousSecret = ep.secrets[0];
		ep.secrets = [secret, previousSecret];
		ctx.markDirty();
		return { secret, previousSecret };
	});

	c.post('/_sandbox/webhook-endpoints/:id/test', async (req) => {
		const d = sendTest(ctx, endpointOf(ctx, req));
		return { deliveryId: d.deliveryId, eventId: d.eventId };
	});

	c.get('/_sandbox/webhook-endpoints/:id/deliveries', async (req) => {
		const ep = endpointOf(ctx, req);
		const q = req.query as Record<string, string | undefined>;
		const items = Object.values(ctx.store.deliveries)
			.filter((d) => d.endpointId === ep.id)
			.filter((d) => !q.reportId || d.reportId === q.reportId)
			.filter((d) => !q.interviewId || d.interviewId === q.interviewId)
			.filter((d) => !q.eventId || d.eventId === q.eventId);
		return { items: items.map(deliveryView) };
	});

	c.post('/_sandbox/deliveries/:id/replay', async (req) => {
		const d = ctx.store.deliveries[(req.params as { id: string }).id];
		if (!d) throw notFound('Delivery');
		if (d.state !== 'succeeded' && d.state !== 'failed') {
			throw new ApiError(
				409,
				'Only a retained succeeded or failed delivery can be replayed.',
				'DELIVERY_NOT_FINISHED',
			);
		}
		const replay = replayDelivery(ctx, d);
		if (!replay) throw notFound('Webhook endpoint');
		return { deliveryId: replay.deliveryId, eventId: replay.eventId };
	});

	const previews = new Map<string, CatchUpPreview>();
	c.post('/_sandbox/webhook-endpoints/:id/catch-up', async (req) => {
		const ep = endpointOf(ctx, req);
		const b = body(req);
		const v = new Validator();
		const from = isoDateTime(v, 'from', b.from);
		const to = isoDateTime(v, 'to', b.to);
		if (b.from === undefined) v.add('from', 'required');
		if (b.to === undefined) v.add('to', 'required');
		if (from !== undefined && to !== undefined && to <= from) v.add('to', 'after_from');
		v.throwIfAny();
		const p = previewCatchUp(ctx, ep, from!, to!);
		previews.set(p.id, p);
		return {
			previewId: p.id,
			eventCount: p.eventIds.length,
			limit: CATCH_UP_LIMIT,
			expiresAt: new Date(p.expiresAt).toISOString(),
			endpointRevision: p.revision,
		};
	});
	c.post('/_sandbox/catch-ups/:id/send', async (req) => {
		const p = previews.get((req.params as { id: string }).id);
		if (!p) throw notFound('Catch-up preview');
		const ep = ctx.store.endpoints[p.endpointId];
		if (p.expiresAt <= ctx.clock.now())
			throw new ApiError(
				409,
				'The catch-up preview expired (ten minutes); preview again.',
				'PREVIEW_EXPIRED',
			);
		if (!ep || ep.revision !== p.revision)
			throw new ApiError(
				409,
				'The endpoint changed since the preview; preview again.',
				'ENDPOINT_CHANGED',
			);
		previews.delete(p.id);
		const sent = sendCatchUp(ctx, p);
		return { deliveries: sent.length };
	});

	c.get('/_sandbox/workspaces/:wid/inbox', async (req) => ({
		items: ctx.store.inbox[workspaceOf(ctx, req).id] ?? [],
	}));
}
