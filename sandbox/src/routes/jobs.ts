/** GET /api/v1/job-descriptions (limit, cursor; newest first) and GET /api/v1/job-descriptions/{id}. */
import type { Ctx } from '../context';
import type { Cursors } from '../cursors';
import { notFound } from '../errors';
import type { ApiRouter } from '../http';
import { jobView } from '../views';
import { allowOnly, pageParams, Validator } from '../validation';

export function jobRoutes(api: ApiRouter, ctx: Ctx, cursors: Cursors): void {
	api.add({
		method: 'GET',
		path: '/api/v1/job-descriptions',
		scope: 'job-descriptions:read',
		handler: ({ ws, query }) => {
			const v = new Validator();
			allowOnly(v, query, ['limit', 'cursor']);
			const { limit, cursor } = pageParams(v, query);
			v.throwIfAny();
			const position = cursor
				? cursors.decode<[number, string]>(cursor, ws.id, 'job-descriptions', {}).p
				: null;
			const all = Object.values(ctx.store.jobs)
				.filter((j) => j.workspaceId === ws.id)
				.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
				.filter(
					(j) =>
						!position ||
						j.createdAt < position[0] ||
						(j.createdAt === position[0] && j.id < position[1]),
				);
			const page = all.slice(0, limit);
			const last = page[page.length - 1];
			const nextCursor =
				all.length > limit
					? cursors.encode(
							ws.id,
							'job-descriptions',
							{},
							[last.createdAt, last.id],
							ctx.clock.now(),
						)
					: null;
			return { status: 200, body: { data: { items: page.map(jobView), nextCursor } } };
		},
	});
	api.add({
		method: 'GET',
		path: '/api/v1/job-descriptions/{id}',
		scope: 'job-descriptions:read',
		handler: ({ ws, params }) => {
			const job = ctx.store.jobs[params.id];
			if (!job || job.workspaceId !== ws.id) throw notFound('Job description');
			return { status: 200, body: { data: jobView(job) } };
		},
	});
}
