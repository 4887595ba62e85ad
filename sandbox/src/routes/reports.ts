/** GET /api/v1/reports[/{id}[/status|/result]] (spec "Reports"). */
import type { Ctx } from '../context';
import { Cursors } from '../cursors';
import { badRequest, unprocessable } from '../errors';
import type { ApiRouter } from '../http';
import { ownReport } from '../uploads';
import { reportResult, reportStatus, reportSummary } from '../views';
import {
	allowOnly,
	isoDateTime,
	pageParams,
	queryString,
	SOURCE_PATTERN,
	Validator,
} from '../validation';
import { schemaVersionOk } from './common';

export function includeReference(v: Validator, value: unknown): boolean {
	if (value === undefined) return false;
	if (value !== 'reference') v.add('include', 'enum');
	return value === 'reference';
}

/** externalReferenceSource and externalReferenceId: both or neither. */
export function externalReferenceFilter(v: Validator, q: Record<string, unknown>) {
	const source = queryString(v, q, 'externalReferenceSource', {
		min: 1,
		max: 64,
		pattern: SOURCE_PATTERN,
	});
	const id = queryString(v, q, 'externalReferenceId', { min: 1, max: 128 });
	if ((q.externalReferenceSource === undefined) !== (q.externalReferenceId === undefined)) {
		v.add(
			q.externalReferenceSource === undefined ? 'externalReferenceSource' : 'externalReferenceId',
			'both_or_neither',
		);
	}
	return source !== undefined && id !== undefined ? { source, id } : null;
}

export function reportRoutes(api: ApiRouter, ctx: Ctx, cursors: Cursors): void {
	api.add({
		method: 'GET',
		path: '/api/v1/reports',
		scope: 'reports:read',
		handler: ({ ws, query }) => {
			const v = new Validator();
			allowOnly(v, query, [
				'limit',
				'cursor',
				'externalReferenceSource',
				'externalReferenceId',
				'include',
				'createdAfter',
				'createdBefore',
			]);
			const { limit, cursor } = pageParams(v, query);
			const er = externalReferenceFilter(v, query);
			const withRef = includeReference(v, query.include);
			const after = isoDateTime(v, 'createdAfter', query.createdAfter);
			const before = isoDateTime(v, 'createdBefore', query.createdBefore);
			if (after !== undefined && before !== undefined && before <= after)
				v.add('createdBefore', 'after_createdAfter');
			v.throwIfAny();
			const filters = {
				er,
				after: query.createdAfter ?? null,
				before: query.createdBefore ?? null,
				include: query.include ?? null,
			};
			let position: [number, number] | null = null;
			if (cursor !== undefined)
				position = cursors.decode<[number, number]>(cursor, ws.id, 'reports', filters).p;
			const all = Object.values(ctx.store.reports)
				.filter((r) => r.workspaceId === ws.id)
				.filter(
					(r) =>
						!er || (r.externalReference?.source === er.source && r.externalReference.id === er.id),
				)
				.filter((r) => after === undefined || r.createdAt > after)
				.filter((r) => before === undefined || r.createdAt < before)
				.filter(
					(r) =>
						!position ||
						r.createdAt < position[0] ||
						(r.createdAt === position[0] && r.seq < position[1]),
				)
				.sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
			const page = all.slice(0, limit);
			const last = page[page.length - 1];
			const nextCursor =
				all.length > limit
					? cursors.encode(ws.id, 'reports', filters, [last.createdAt, last.seq], ctx.clock.now())
					: null;
			return {
				status: 200,
				body: { data: { items: page.map((r) => reportSummary(r, withRef)), nextCursor } },
			};
		},
	});
	api.add({
		method: 'GET',
		path: '/api/v1/reports/{id}',
		scope: 'reports:read',
		handler: ({ ws, params, query }) => {
			const v = new Validator();
			allowOnly(v, query, ['include']);
			const withRef = includeReference(v, query.include);
			v.throwIfAny();
			return { status: 200, body: { data: reportSummary(ownReport(ctx, ws, params.id), withRef) } };
		},
	});
	api.add({
		method: 'GET',
		path: '/api/v1/reports/{id}/status',
		scope: 'reports:read',
		handler: ({ ws, params, query }) => {
			const v = new Validator();
			allowOnly(v, query, []);
			v.throwIfAny();
			return { status: 200, body: { data: reportStatus(ownReport(ctx, ws, params.id)) } };
		},
	});
	api.add({
		method: 'GET',
		path: '/api/v1/reports/{id}/result',
		scope: 'reports:read',
		handler: ({ ws, params, query }) => {
			const v = new Validator();
			allowOnly(v, query, ['schemaVersion']);
			if (!v.ok) throw badRequest(v.issues);
			const r = ownReport(ctx, ws, params.id);
			if (!schemaVersionOk(query.schemaVersion)) {
				throw unprocessable(
					'RESULT_VERSION_UNSUPPORTED',
					'Only result schemaVersion 1 is supported.',
				);
			}
			return { status: 200, body: { data: reportResult(r) } };
		},
	});
}
