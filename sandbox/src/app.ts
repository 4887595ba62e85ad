/** Builds the fastify server: parsers, conventions, API routes, storage, controls. */
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Ctx } from './context';
import { Cursors } from './cursors';
import { ApiError, badRequest, notFound } from './errors';
import { Faults } from './faults';
import { ApiRouter, installFaultHooks, sendError } from './http';
import { controlRoutes } from './controls';
import { analysisRoutes } from './routes/analyses';
import { batchRoutes } from './routes/batches';
import { eventRoutes } from './routes/events';
import { interviewRoutes } from './routes/interviews';
import { jobRoutes } from './routes/jobs';
import { reportRoutes } from './routes/reports';
import { storageRoutes } from './routes/storage';
import { uploadRoutes } from './routes/uploads';

const JSON_BODY_LIMIT = 1024 * 1024;

const recorded = (path: string) => path.startsWith('/api/v1') || path.startsWith('/_storage');

export function buildApp(ctx: Ctx): { app: FastifyInstance; faults: Faults } {
	const app = Fastify({
		genReqId: () => randomUUID(),
		logger: false,
		bodyLimit: JSON_BODY_LIMIT,
		routerOptions: { maxParamLength: 4096 },
		exposeHeadRoutes: false,
		forceCloseConnections: true,
		return503OnClosing: false,
	});
	const faults = new Faults();
	const api = new ApiRouter(app, ctx);
	const cursors = new Cursors(() => ctx.store.signingKey);

	app.removeContentTypeParser('application/json');
	app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, raw, done) => {
		const text = raw as string;
		req.rawBodyLength = Buffer.byteLength(text);
		if (text.trim() === '') return done(null, undefined);
		try {
			done(null, JSON.parse(text));
		} catch {
			done(badRequest([{ field: 'body', rule: 'json' }]), undefined);
		}
	});

	// Sandbox rule 5: only the configured documentation origin may call from a browser; no credentials.
	app.addHook('onRequest', async (req, reply) => {
		const origin = req.headers.origin;
		const path = req.url.split('?')[0];
		if (origin === undefined || !recorded(path)) return undefined;
		if (!ctx.opts.docsOrigin || origin !== ctx.opts.docsOrigin) {
			req.routeTemplate = api.match(path)?.template ?? path;
			return sendError(reply, new ApiError(403, 'Browser calls are allowed from the documentation origin only.', 'ORIGIN_NOT_ALLOWED'));
		}
		reply.header('Access-Control-Allow-Origin', origin);
		reply.header('Vary', 'Origin');
		reply.header('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, WWW-Authenticate');
		if (req.method === 'OPTIONS') {
			reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
			reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
			return reply.code(204).send();
		}
		return undefined;
	});

	installFaultHooks(app, faults, api);

	app.addHook('onSend', async (req, reply, payload) => {
		reply.header('X-Request-Id', req.id);
		reply.header('Cache-Control', 'no-store');
		const path = req.url.split('?')[0];
		if (ctx.opts.recordResponses && recorded(path)) {
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k.toLowerCase()] = String(v);
			const text = payload === null || payload === undefined ? '' : Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload);
			let body: unknown = null;
			if (text !== '') {
				try {
					body = JSON.parse(text);
				} catch {
					body = text;
				}
			}
			ctx.responses.push({ method: req.method, route: req.routeTemplate ?? path, url: req.url, status: reply.statusCode, headers, body });
		}
		if (req.dropAfterCommit) {
			// commit-then-drop: everything above is committed; the client never sees the answer.
			req.raw.socket?.destroy();
		}
		return payload;
	});

	if (ctx.opts.log) {
		app.addHook('onResponse', async (req, reply) => {
			process.stdout.write(`${new Date().toISOString()} ${req.method} ${req.url.split('?')[0]} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms\n`);
		});
	}

	app.setErrorHandler((err, req, reply) => {
		if (err instanceof ApiError) return sendError(reply, err);
		const e = err as { code?: string; statusCode?: number; message?: string };
		const isStorage = req.url.startsWith('/_storage');
		if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
			return sendError(reply, isStorage
				? new ApiError(400, 'The body is larger than the declared fileSize.', 'SIZE_MISMATCH')
				: badRequest([{ field: 'body', rule: 'max_bytes' }]));
		}
		if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendError(reply, badRequest([{ field: 'Content-Type', rule: 'application_json' }]));
		if (e.code?.startsWith('FST_ERR_CTP') || e.statusCode === 400) return sendError(reply, badRequest([{ field: 'body', rule: 'json' }]));
		console.error('[sandbox] unexpected error', err);
		return sendError(reply, new ApiError(500, 'Unexpected failure.'));
	});

	app.setNotFoundHandler((req, reply) => {
		const path = req.url.split('?')[0];
		const known = api.match(path);
		if (known) {
			req.routeTemplate = known.template;
			return sendError(
				reply,
				new ApiError(405, `Method ${req.method} is not supported here.`, undefined, {}, { Allow: [...known.methods].sort().join(', ') }),
			);
		}
		return sendError(reply, notFound('Route'));
	});

	uploadRoutes(api, ctx);
	analysisRoutes(api, ctx);
	reportRoutes(api, ctx, cursors);
	jobRoutes(api, ctx, cursors);
	interviewRoutes(api, ctx, cursors);
	batchRoutes(api, ctx);
	eventRoutes(api, ctx, cursors);
	storageRoutes(app, api, ctx);
	controlRoutes(app, ctx, faults);
	return { app, faults };
}
