/**
 * The HTTP conventions of the API (spec "Endpoints / Conventions", "Errors"): route registry with
 * 404/405 + Allow, bearer auth and scopes, path id limits, idempotency receipts, the error body,
 * `X-Request-Id` + `Cache-Control: no-store`, request counters, response recording and fault injection.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from './context';
import { authenticate, requireScope } from './auth';
import { ApiError, badRequest } from './errors';
import { characterCount } from './validation';
import type { Faults } from './faults';
import { findReceipt, readIdempotencyKey, storeReceipt } from './idempotency';
import { isStoragePath, sendStorageError, storageFault } from './storageErrors';
import type { ApiKey, Receipt, Scope, Workspace } from './types';
import { sweepWorkspace } from './workspaces';

export interface ApiCall {
	ws: Workspace;
	key: ApiKey;
	params: Record<string, string>;
	query: Record<string, unknown>;
	body: unknown;
	rawLength: number;
	requestId: string;
}

export interface ApiResult {
	status: number;
	body?: unknown;
}

export interface RouteDef {
	method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
	/** OpenAPI path template, e.g. `/api/v1/reports/{id}`. */
	path: string;
	scope: Scope;
	/** Requires an Idempotency-Key and keeps a receipt of the successful outcome. */
	idempotent?: boolean;
	/** Decides whether a stored receipt may be replayed now (throws to refuse). */
	replayGuard?: (call: ApiCall, receipt: Receipt) => void;
	/** Extra receipt fields taken from the result. */
	receiptExtra?: (result: ApiResult) => Partial<Receipt>;
	handler: (call: ApiCall) => ApiResult;
}

interface Known {
	template: string;
	regex: RegExp;
	methods: Set<string>;
}

declare module 'fastify' {
	interface FastifyRequest {
		routeTemplate?: string;
		rawBodyLength?: number;
		dropAfterCommit?: boolean;
		workspaceId?: string;
	}
}

export const toFastifyPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

export class ApiRouter {
	readonly known: Known[] = [];

	constructor(
		private readonly app: FastifyInstance,
		private readonly ctx: Ctx,
	) {}

	/** Records a template (for 405 detection) without registering a handler. */
	remember(method: string, template: string): void {
		let k = this.known.find((x) => x.template === template);
		if (!k) {
			const regex = new RegExp(`^${template.replace(/\{(\w+)\}/g, '[^/]+')}$`);
			k = { template, regex, methods: new Set() };
			this.known.push(k);
		}
		k.methods.add(method);
	}

	private lastSweep = new Map<string, { at: number; offset: number }>();

	/** Housekeeping before a request, at most every 200 ms per workspace unless the clock was moved. */
	private sweepSoon(workspaceId: string): void {
		const last = this.lastSweep.get(workspaceId);
		const now = Date.now();
		if (last && now - last.at < 200 && last.offset === this.ctx.clock.offset) return;
		this.lastSweep.set(workspaceId, { at: now, offset: this.ctx.clock.offset });
		sweepWorkspace(this.ctx, workspaceId);
	}

	match(path: string): Known | undefined {
		return this.known.find((k) => k.regex.test(path));
	}

	add(def: RouteDef): void {
		this.remember(def.method, def.path);
		const ctx = this.ctx;
		this.app.route({
			method: def.method,
			url: toFastifyPath(def.path),
			handler: async (req: FastifyRequest, reply: FastifyReply) => {
				req.routeTemplate = def.path;
				const { ws, key } = authenticate(ctx, req.headers.authorization);
				req.workspaceId = ws.id;
				const counters = ctx.store.countersOf(ws.id);
				const name = `${def.method} ${def.path}`;
				counters.requests[name] = (counters.requests[name] ?? 0) + 1;
				requireScope(key, def.scope);
				this.sweepSoon(ws.id);
				const params = (req.params ?? {}) as Record<string, string>;
				const issues = Object.entries(params)
					.filter(([, v]) => characterCount(v) < 1 || characterCount(v) > 100)
					.map(([field]) => ({ field, rule: 'max_length' }));
				if (issues.length) throw badRequest(issues);
				const call: ApiCall = {
					ws,
					key,
					params,
					query: (req.query ?? {}) as Record<string, unknown>,
					body: req.body,
					rawLength: req.rawBodyLength ?? 0,
					requestId: req.id,
				};
				let result: ApiResult;
				if (def.idempotent) {
					const idemKey = readIdempotencyKey(req.headers['idempotency-key']);
					const request = { params, body: req.body ?? null };
					const { receipt, bodyHash } = findReceipt(ctx, ws, name, idemKey, request);
					if (receipt) {
						def.replayGuard?.(call, receipt);
						counters.idempotentReplays += 1;
						result = { status: receipt.status, body: receipt.body };
					} else {
						result = def.handler(call);
						if (result.status >= 200 && result.status < 300) {
							storeReceipt(ctx, ws.id, idemKey, {
								operation: name,
								bodyHash,
								status: result.status,
								body: result.body ?? null,
								createdAt: ctx.clock.now(),
								...def.receiptExtra?.(result),
							});
						}
					}
				} else {
					result = def.handler(call);
				}
				reply.code(result.status);
				if (result.body === undefined) return reply.send();
				return reply.send(result.body);
			},
		});
	}
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
	// Set here as well as in onSend: answers the router gives before any hook runs must carry them too.
	reply.header('X-Request-Id', reply.request.id);
	reply.header('Cache-Control', 'no-store');
	for (const [h, v] of Object.entries(err.headers)) reply.header(h, v);
	return reply.code(err.status).type('application/json').send(err.body(reply.request.id));
}

/** Hooks shared by /api/v1 and /_storage: faults before processing, drop after commit. */
export function installFaultHooks(app: FastifyInstance, faults: Faults, router: ApiRouter): void {
	app.addHook('onRequest', async (req, reply) => {
		const path = req.url.split('?')[0];
		if (!path.startsWith('/api/v1') && !isStoragePath(path)) return;
		const template = router.match(path)?.template ?? path;
		const d = faults.decide(req.method, template, path);
		await faults.hold(d);
		if (d.before) {
			const status = d.before.status;
			const headers: Record<string, string> = {};
			if (status === 429) headers['Retry-After'] = String(d.before.retryAfterSeconds ?? 1);
			else if (d.before.retryAfterSeconds)
				headers['Retry-After'] = String(d.before.retryAfterSeconds);
			req.routeTemplate = template;
			if (isStoragePath(path)) return sendStorageError(reply, storageFault(status), headers);
			return sendError(
				reply,
				new ApiError(status, `Injected fault (${status}).`, undefined, {}, headers),
			);
		}
		if (d.drop) req.dropAfterCommit = true;
		return undefined;
	});
}
