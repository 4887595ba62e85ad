/**
 * GET /api/v1/events (spec "Events feed", "Pull feed retention"): durable order per workspace, cursor
 * bound to the workspace and filters, `hasMore`, 410 EVENT_CURSOR_EXPIRED past the 30-day retention.
 */
import type { Ctx } from '../context';
import type { Cursors } from '../cursors';
import { ApiError } from '../errors';
import { EVENT_TYPES } from '../events';
import { eventBody } from '../views';
import type { ApiRouter } from '../http';
import { allowOnly, pageParams, queryString, Validator } from '../validation';

export function eventRoutes(api: ApiRouter, ctx: Ctx, cursors: Cursors): void {
	api.add({
		method: 'GET',
		path: '/api/v1/events',
		scope: 'events:read',
		handler: ({ ws, query }) => {
			const v = new Validator();
			allowOnly(v, query, ['limit', 'cursor', 'type', 'reportId', 'interviewId']);
			const { limit, cursor } = pageParams(v, query);
			const type = queryString(v, query, 'type');
			if (type !== undefined && !EVENT_TYPES.includes(type)) v.add('type', 'enum');
			const reportId = queryString(v, query, 'reportId', { min: 1, max: 100 });
			const interviewId = queryString(v, query, 'interviewId', { min: 1, max: 100 });
			v.throwIfAny();
			const filters = {
				type: type ?? null,
				reportId: reportId ?? null,
				interviewId: interviewId ?? null,
			};
			let after = 0;
			if (cursor !== undefined) {
				after = cursors.decode<number>(cursor, ws.id, 'events', filters).p;
				if (after < ws.purgedThroughSeq) {
					throw new ApiError(
						410,
						'The cursor is older than the retained history (30 days); reconcile reports and interviews, then start a fresh position.',
					);
				}
			}
			// Events are stored in sequence order: binary-search the position, then scan only what a page needs.
			const list = ctx.store.eventsOf(ws.id);
			let lo = 0;
			let hi = list.length;
			while (lo < hi) {
				const mid = (lo + hi) >> 1;
				if (list[mid].seq <= after) lo = mid + 1;
				else hi = mid;
			}
			const page: typeof list = [];
			let hasMore = false;
			for (let i = lo; i < list.length; i += 1) {
				const e = list[i];
				if (
					(type && e.type !== type) ||
					(reportId && e.reportId !== reportId) ||
					(interviewId && e.interviewId !== interviewId)
				)
					continue;
				if (page.length === limit) {
					hasMore = true;
					break;
				}
				page.push(e);
			}
			const position = page.length
				? page[page.length - 1].seq
				: Math.max(after, hasMore ? after : ws.eventSeq);
			const nextCursor = cursors.encode(ws.id, 'events', filters, position, ctx.clock.now());
			return { status: 200, body: { data: { items: page.map(eventBody), nextCursor, hasMore } } };
		},
	});
}
