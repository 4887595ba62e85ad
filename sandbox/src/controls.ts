/**
 * Sandbox control endpoints (`/_sandbox/...`, loopback only, no API key): workspaces, keys, limits,
 * reset, counters, idempotency receipts, mail sink, jobs, report deletion, interview controls, event seeding, webhook
 * endpoints and deliveries, the private inbox, the clock and fault injection. See sandbox/README.md.
 */
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Ctx } from './context';
import { createKey, parseScopes } from './auth';
import { ApiError, badRequest, notFound } from './errors';
import { publish } from './events';
import type { Faults } from './faults';
import { applyControl } from './interviews';
import { newId, newUuid } from './store';
import type { JobDescription } from './types';
import { Validator } from './validation';
import {
	createJob,
	createWorkspace,
	deleteReport,
	jobRevision,
	resetWorkspace,
} from './workspaces';
import { jobView } from './views';
import { sweepAll } from './resume';
import { LIMIT_NAMES } from './capacity';
import { body, workspaceOf } from './controlRequests';
import { receiptControlRoutes } from './receiptControls';
import { webhookControlRoutes } from './webhookControls';
import { sha256Hex } from './canonical';

const isLoopback = (addr: string | undefined) =>
	!!addr &&
	(addr === '127.0.0.1' ||
		addr === '::1' ||
		addr === '::ffff:127.0.0.1' ||
		addr.startsWith('127.'));

/** A seeded event's payload, shaped as its type's payload is (so the feed stays on the contract). */
function syntheticEvent(type: string): {
	data: Record<string, unknown>;
	reportId: string | null;
	interviewId: string | null;
} {
	const reportId = newId('rpt_');
	const attemptId = newId('att_');
	if (type === 'batch.completed')
		return {
			data: { batchId: newId('bat_'), kind: 'analyses', succeededCount: 1, failedCount: 0 },
			reportId: null,
			interviewId: null,
		};
	if (type === 'webhook.test') return { data: { test: true }, reportId: null, interviewId: null };
	if (type === 'report.result_ready')
		return {
			data: { reportId, attemptId, resultRevision: sha256Hex(`${reportId}:${attemptId}`) },
			reportId,
			interviewId: null,
		};
	if (type.startsWith('interview.')) {
		const interviewId = newId('int_');
		return {
			data: {
				interviewId,
				reportId,
				lifecycle: 'invited',
				preparation: 'ready',
				evaluation: 'not_started',
				emailDelivery: 'sent',
			},
			reportId,
			interviewId,
		};
	}
	return {
		data: {
			reportId,
			attemptId,
			status:
				type === 'report.failed'
					? 'failed'
					: type === 'report.requires_action'
						? 'requires_action'
						: 'completed',
			code: null,
		},
		reportId,
		interviewId: null,
	};
}

export function controlRoutes(app: FastifyInstance, ctx: Ctx, faults: Faults): void {
	app.register(async (c) => {
		c.addHook('onRequest', async (req) => {
			if (!isLoopback(req.socket.remoteAddress))
				throw new ApiError(403, 'Sandbox controls answer loopback callers only.', 'LOOPBACK_ONLY');
		});

		c.get('/_sandbox/health', async () => ({ ok: true }));

		// The profile and limits new workspaces get (--profile, --active-analysis-limit, ...).
		c.get('/_sandbox/limits', async () => ({ profile: ctx.opts.profile, limits: ctx.opts.limits }));

		c.post('/_sandbox/workspaces', async (req) => {
			const b = body(req);
			const v = new Validator();
			v.object('', b, [
				'scopes',
				'keyExpiresInDays',
				'analysisAllowance',
				'interviewAllowance',
				...LIMIT_NAMES,
			]);
			const keyExpiresInDays = v.integer('keyExpiresInDays', b.keyExpiresInDays, {
				required: false,
				min: 1,
				max: 365,
			});
			const analysisAllowance = v.integer('analysisAllowance', b.analysisAllowance, {
				required: false,
				min: 0,
			});
			const interviewAllowance = v.integer('interviewAllowance', b.interviewAllowance, {
				required: false,
				min: 0,
			});
			const limits = Object.fromEntries(
				LIMIT_NAMES.map((k) => [k, v.integer(k, b[k], { required: false, min: 0 })]),
			);
			v.throwIfAny();
			return createWorkspace(ctx, {
				scopes: parseScopes(b.scopes),
				keyExpiresInDays,
				analysisAllowance,
				interviewAllowance,
				...limits,
			});
		});

		c.post('/_sandbox/workspaces/:wid/keys', async (req) => {
			const ws = workspaceOf(ctx, req);
			const b = body(req);
			const key = createKey(
				ctx,
				ws.id,
				parseScopes(b.scopes),
				(b.expiresInDays as number | undefined) ?? 90,
			);
			return {
				apiKey: key.secret,
				keyId: key.id,
				expiresAt: new Date(key.expiresAt).toISOString(),
			};
		});

		c.post('/_sandbox/keys/revoke', async (req) => {
			const key = ctx.store.keys[String(body(req).apiKey ?? '')];
			if (!key) throw notFound('Key');
			key.revoked = true;
			ctx.markDirty();
			return { revoked: true };
		});

		c.patch('/_sandbox/workspaces/:wid', async (req) => {
			const ws = workspaceOf(ctx, req);
			const b = body(req);
			const v = new Validator();
			const ints = [
				'analysisAllowance',
				'interviewAllowance',
				...LIMIT_NAMES,
				'priceVersion',
				'analysisCreditUnits',
				'interviewCreditUnits',
				'analysisDurationMs',
			] as const;
			const bools = ['disabled', 'holdEmails', 'holdPreparation'] as const;
			v.object('', b, [...ints, ...bools]);
			const patch: Record<string, unknown> = {};
			for (const k of ints) {
				const n = v.integer(k, b[k], { required: false, min: 0 });
				if (n !== undefined) patch[k] = n;
			}
			for (const k of bools) {
				const x = v.boolean(k, b[k]);
				if (x !== undefined) patch[k] = x;
			}
			v.throwIfAny();
			Object.assign(ws, patch);
			ctx.markDirty();
			const { webhookSecret: _secret, ...settings } = ws;
			return settings;
		});

		c.post('/_sandbox/workspaces/:wid/reset', async (req) =>
			resetWorkspace(ctx, workspaceOf(ctx, req).id),
		);

		c.get('/_sandbox/workspaces/:wid/counters', async (req) =>
			ctx.store.countersOf(workspaceOf(ctx, req).id),
		);

		receiptControlRoutes(c, ctx);

		c.get('/_sandbox/workspaces/:wid/mail', async (req) => ({
			items: ctx.store.mail[workspaceOf(ctx, req).id] ?? [],
		}));

		c.post('/_sandbox/workspaces/:wid/job-descriptions', async (req) => {
			const ws = workspaceOf(ctx, req);
			const b = body(req);
			const fields: Partial<JobDescription> = {};
			for (const k of [
				'title',
				'company',
				'team',
				'location',
				'level',
				'employmentType',
				'status',
				'description',
			] as const) {
				if (typeof b[k] === 'string') fields[k] = b[k] as string;
			}
			return jobView(createJob(ctx, ws.id, fields));
		});

		c.post('/_sandbox/job-descriptions/:id/revise', async (req) => {
			const job = ctx.store.jobs[(req.params as { id: string }).id];
			if (!job) throw notFound('Job description');
			const b = body(req);
			job.description =
				typeof b.description === 'string' ? b.description : `${job.description} (revised)`;
			job.updatedAt = ctx.clock.now();
			job.revision = jobRevision(job, `${job.id}:${job.updatedAt}:${newUuid()}`);
			ctx.markDirty();
			return jobView(job);
		});

		c.post('/_sandbox/job-descriptions/:id/deactivate', async (req) => {
			const job = ctx.store.jobs[(req.params as { id: string }).id];
			if (!job) throw notFound('Job description');
			job.status = 'INACTIVE';
			job.updatedAt = ctx.clock.now();
			ctx.markDirty();
			return jobView(job);
		});

		c.post('/_sandbox/reports/:id/delete', async (req) => {
			if (!deleteReport(ctx, (req.params as { id: string }).id)) throw notFound('Report');
			return { deleted: true };
		});

		c.post('/_sandbox/interviews/:id/events', async (req) => {
			const i = ctx.store.interviews[(req.params as { id: string }).id];
			if (!i) throw notFound('Interview');
			const type = body(req).type;
			if (typeof type !== 'string') throw badRequest([{ field: 'type', rule: 'required' }]);
			const updated = applyControl(ctx, i, type);
			return {
				id: updated.id,
				lifecycle: updated.lifecycle,
				preparation: updated.preparation,
				evaluation: updated.evaluation,
				emailDelivery: updated.emailDelivery,
			};
		});

		// The candidate side of an invitation link: a superseded or expired invitation cannot start a session.
		c.get('/_sandbox/invitations/:token', async (req, reply) => {
			const token = (req.params as { token: string }).token;
			const i = Object.values(ctx.store.interviews).find((x) => x.invitationToken === token);
			if (!i) throw notFound('Invitation');
			if (i.lifecycle !== 'invited' && i.lifecycle !== 'in_progress') {
				return reply.code(410).send({
					error: {
						code: 'GONE',
						message: `This invitation is ${i.lifecycle}.`,
						requestId: req.id,
					},
				});
			}
			return { interviewId: i.id, lifecycle: i.lifecycle, usable: true };
		});

		c.post('/_sandbox/workspaces/:wid/events/seed', async (req) => {
			const ws = workspaceOf(ctx, req);
			const b = body(req);
			const count = Number(b.count ?? 1);
			if (!Number.isInteger(count) || count < 1 || count > 100_000)
				throw badRequest([{ field: 'count', rule: 'range_1_100000' }]);
			const type = typeof b.type === 'string' ? b.type : 'report.completed';
			for (let n = 0; n < count; n += 1) {
				const { data, reportId, interviewId } = syntheticEvent(type);
				publish(
					ctx,
					ws.id,
					type,
					data,
					{ reportId, interviewId },
					{ deliver: false, tombstone: type === 'report.deleted' },
				);
			}
			return { appended: count, lastSeq: ws.eventSeq };
		});

		webhookControlRoutes(c, ctx);

		c.get('/_sandbox/clock', async () => ({ now: ctx.clock.iso() }));

		c.post('/_sandbox/clock/advance', async (req) => {
			const ms = body(req).ms;
			if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
				throw badRequest([{ field: 'ms', rule: 'non_negative_number' }]);
			ctx.clock.advance(ms);
			ctx.store.clockOffset = ctx.clock.offset;
			sweepAll(ctx); // expiries take effect now, not only at the next request
			ctx.markDirty();
			return { now: ctx.clock.iso() };
		});

		c.put('/_sandbox/faults', async (req) => {
			const cfg = faults.configure(req.body);
			return { latencyMs: cfg.latencyMs, rules: cfg.rules.length };
		});

		// What each rule has done so far, so that a test can check a fault it claims was really served.
		c.get('/_sandbox/faults', async () => ({
			latencyMs: faults.latencyMs,
			rules: faults.rules.map((r) => ({ ...r })),
		}));

		c.delete('/_sandbox/faults', async () => {
			faults.clear();
			return { cleared: true };
		});
	});

	// The private inbox receiver: exact body bytes, headers and the verification result; it answers per
	// the mode of the endpoint that points at it (success 200, retry 503, timeout: answers after the deadline).
	app.register(async (inbox) => {
		inbox.removeAllContentTypeParsers();
		inbox.addContentTypeParser('*', { parseAs: 'string' }, (_req, b, done) => done(null, b));
		inbox.post('/_sandbox/inbox/:wid', async (req, reply) => {
			const ws = workspaceOf(ctx, req);
			const raw = typeof req.body === 'string' ? req.body : '';
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers))
				headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
			if (req.headers.authorization !== undefined)
				ctx.store.countersOf(ws.id).webhookAuthorizationHeaders += 1;
			const path = req.url.split('?')[0];
			const endpoints = Object.values(ctx.store.endpoints).filter((e) => e.workspaceId === ws.id);
			const endpoint = endpoints.find((e) => {
				try {
					return new URL(e.url).pathname === path;
				} catch {
					return false;
				}
			});
			const secrets = [
				...new Set([
					...(endpoint?.secrets ?? []),
					...endpoints.flatMap((e) => e.secrets),
					ws.webhookSecret,
				]),
			];
			let verified = false;
			let reason: string | null = 'no secret matched';
			for (const s of secrets) {
				try {
					new Webhook(s).verify(raw, headers);
					verified = true;
					reason = null;
					break;
				} catch (err) {
					reason = (err as Error).message;
				}
			}
			(ctx.store.inbox[ws.id] ??= []).push({
				receivedAt: ctx.clock.iso(),
				headers,
				body: raw,
				verified,
				reason,
			});
			ctx.markDirty();
			const mode = endpoint?.mode ?? 'success';
			if (mode === 'retry') return reply.code(503).header('Retry-After', '1').send({ retry: true });
			if (mode === 'timeout') {
				await new Promise((r) => setTimeout(r, ctx.opts.webhookDeadlineMs + 200));
				return reply.code(200).send({ late: true });
			}
			return reply.code(200).send({ received: true });
		});
	});
}
