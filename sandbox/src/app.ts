/** Builds the fastify server: parsers, conventions, API routes, storage, controls. */
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
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
import {
	isStoragePath,
	sendStorageError,
	signatureDoesNotMatch,
	StorageError,
} from './storageErrors';
import { uploadRoutes } from './routes/uploads';

const JSON_BODY_LIMIT = 1024 * 1024;

const isApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');
const recorded = (path: string) => isApiPath(path) || isStoragePath(path);
const pathOf = (url: string) => url.split('?')[0];

/**
 * Errors Node's HTTP parser raises before there is a request (oversized headers, a timeout, a malformed
 * request line) still answer with the API's conventions: the error body, X-Request-Id, Cache-Control.
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
	if (err.code === 'ECONNRESET' || socket.destroyed) return;
	const error =
		err.code === 'HPE_HEADER_OVERFLOW'
			? new ApiError(
					431,
					'The request headers are larger than the server accepts (16 KiB).',
					'HEADERS_TOO_LARGE',
				)
			: err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
				? new ApiError(408, 'The request was not received in time.')
				: new ApiError(400, 'The request could not be parsed as HTTP.', 'MALFORMED_REQUEST');
	const requestId = randomUUID();
	const body = JSON.stringify(error.body(requestId));
	if (socket.writable) {
		socket.write(
			`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
				`Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
		);
	}
	socket.destroy(err);
}

export function buildApp(ctx: Ctx): { app: FastifyInstance; faults: Faults } {
	const app = Fastify({
		genReqId: () => randomUUID(),
		logger: false,
		bodyLimit: JSON_BODY_LIMIT,
		routerOptions: { maxParamLength: 4096 },
		exposeHeadRoutes: false,
		forceCloseConnections: true,
		return503OnClosing: false,
		clientErrorHandler,
		// Errors the router raises before any route or hook runs (a malformed percent-encoding, an overlong
		// parameter) get the conventions too; storage answers them in its own XML.
		frameworkErrors: (err, req, reply) => {
			if (isStoragePath(pathOf(req.url)))
				return sendStorageError(
					reply,
					new StorageError(400, 'InvalidURI', "Couldn't parse the specified URI."),
				);
			const field = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'id' : 'path';
			const rule = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'max_length' : 'url_encoding';
			return sendError(
				reply,
				err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH'
					? badRequest([{ field, rule }])
					: new ApiError(500, 'Unexpected failure.'),
			);
		},
	});
	const faults = new Faults();
	const api = new ApiRouter(app, ctx);
	const cursors = new Cursors(() => ctx.store.signingKey);

	// Bodies are JSON (spec): no other parser (fastify's text/plain one included), so any other type is refused.
	app.removeAllContentTypeParsers();
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
		const path = pathOf(req.url);
		if (origin === undefined || !isApiPath(path)) return undefined;
		if (!ctx.opts.docsOrigin || origin !== ctx.opts.docsOrigin) {
			req.routeTemplate = api.match(path)?.template ?? path;
			return sendError(
				reply,
				new ApiError(
					403,
					'Browser calls are allowed from the documentation origin only.',
					'ORIGIN_NOT_ALLOWED',
				),
			);
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

	// 404 and 405 (with Allow) are decided from the path and method alone, before the body is read or parsed.
	app.addHook('onRequest', async (req, reply) => {
		const path = pathOf(req.url);
		if (isStoragePath(path)) {
			if (req.method === 'PUT' && /^\/_storage\/uploads\/[^/]+$/.test(path)) return undefined;
			// The method is part of what a storage URL signs; anything else there is refused as storage refuses it.
			return sendStorageError(
				reply,
				req.method === 'PUT' || /^\/_storage\/uploads\/[^/]+$/.test(path)
					? signatureDoesNotMatch()
					: new StorageError(403, 'AccessDenied', 'Access Denied'),
			);
		}
		if (!isApiPath(path)) return undefined;
		const known = api.match(path);
		if (!known) return sendError(reply, notFound('Route'));
		if (!known.methods.has(req.method)) {
			req.routeTemplate = known.template;
			return sendError(
				reply,
				new ApiError(
					405,
					`Method ${req.method} is not supported here.`,
					undefined,
					{},
					{ Allow: [...known.methods].sort().join(', ') },
				),
			);
		}
		return undefined;
	});

	installFaultHooks(app, faults, api);

	app.addHook('onSend', async (req, reply, payload) => {
		const path = pathOf(req.url);
		// Storage is not the API: it answers with its own headers only.
		if (!isStoragePath(path)) {
			reply.header('X-Request-Id', req.id);
			reply.header('Cache-Control', 'no-store');
			// The API's Date is its own clock (the one its timestamps use), which a test may set apart from the host's.
			reply.header('Date', new Date(ctx.clock.now()).toUTCString());
		}
		if (ctx.opts.recordResponses && recorded(path)) {
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(reply.getHeaders()))
				if (v !== undefined) headers[k.toLowerCase()] = String(v);
			const text =
				payload === null || payload === undefined
					? ''
					: Buffer.isBuffer(payload)
						? payload.toString('utf8')
						: String(payload);
			let body: unknown = null;
			if (text !== '') {
				try {
					body = JSON.parse(text);
				} catch {
					body = text;
				}
			}
			ctx.responses.push({
				method: req.method,
				route: req.routeTemplate ?? path,
				url: req.url,
				status: reply.statusCode,
				headers,
				body,
			});
		}
		if (req.dropAfterCommit) {
			// commit-then-drop: everything above is committed; the client never sees the answer.
			req.raw.socket?.destroy();
		}
		return payload;
	});

	if (ctx.opts.log) {
		app.addHook('onResponse', async (req, reply) => {
			process.stdout.write(
				`${new Date().toISOString()} ${req.method} ${req.url.split('?')[0]} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms\n`,
			);
		});
	}

	app.setErrorHandler((err, req, reply) => {
		if (err instanceof ApiError) return sendError(reply, err);
		const e = err as { code?: string; statusCode?: number; message?: string };
		if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
			return sendError(reply, badRequest([{ field: 'body', rule: 'max_bytes' }]));
		if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
			return sendError(reply, badRequest([{ field: 'Content-Type', rule: 'application_json' }]));
		if (e.code?.startsWith('FST_ERR_CTP') || e.statusCode === 400)
			return sendError(reply, badRequest([{ field: 'body', rule: 'json' }]));
		console.error('[sandbox] unexpected error', err);
		return sendError(reply, new ApiError(500, 'Unexpected failure.'));
	});

	app.setNotFoundHandler((req, reply) => {
		const path = pathOf(req.url);
		const known = api.match(path);
		if (known) {
			req.routeTemplate = known.template;
			return sendError(
				reply,
				new ApiError(
					405,
					`Method ${req.method} is not supported here.`,
					undefined,
					{},
					{ Allow: [...known.methods].sort().join(', ') },
				),
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
