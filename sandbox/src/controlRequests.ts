/** What the sandbox control routes read from a request: its JSON body and the workspace it names. */
import type { FastifyRequest } from 'fastify';

import type { Ctx } from './context';
import { notFound } from './errors';

export const body = (req: FastifyRequest) => (req.body ?? {}) as Record<string, unknown>;

export function workspaceOf(ctx: Ctx, req: FastifyRequest) {
	const ws = ctx.store.workspaces[(req.params as { wid: string }).wid];
	if (!ws) throw notFound('Workspace');
	return ws;
}
