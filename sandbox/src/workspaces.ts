/**
 * Workspaces, sample data, sandbox data expiry (seven days), report erasure and the sandbox reset
 * (spec "Sandbox rules" 3, 4 and 6).
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from './context';
import { DAY } from './clock';
import { sha256Hex } from './canonical';
import { createKey } from './auth';
import { publish, sweepEvents, tombstoneEvents } from './events';
import { sweepInterviews } from './interviews';
import { newId } from './store';
import type { JobDescription, Scope, Workspace } from './types';
import { ALL_SCOPES } from './types';
import { LIMIT_NAMES, type WorkspaceLimits } from './capacity';

export const SANDBOX_DATA_MS = 7 * DAY;

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export interface WorkspaceSettings extends Partial<WorkspaceLimits> {
	analysisAllowance?: number;
	interviewAllowance?: number;
}

export function createWorkspace(
	ctx: Ctx,
	o: { scopes?: Scope[]; keyExpiresInDays?: number } & WorkspaceSettings = {},
) {
	const ws: Workspace = {
		id: newId('ws_'),
		createdAt: ctx.clock.now(),
		disabled: false,
		webhookSecret: newWebhookSecret(),
		analysisAllowance: o.analysisAllowance ?? 1000,
		interviewAllowance: o.interviewAllowance ?? 1000,
		...ctx.opts.limits,
		...Object.fromEntries(LIMIT_NAMES.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])),
		priceVersion: 1,
		holdEmails: false,
		holdPreparation: false,
		eventSeq: 0,
		purgedThroughSeq: 0,
	};
	ctx.store.workspaces[ws.id] = ws;
	const job = createJob(ctx, ws.id, {});
	const key = createKey(ctx, ws.id, o.scopes ?? [...ALL_SCOPES], o.keyExpiresInDays ?? 90);
	ctx.markDirty();
	return {
		workspaceId: ws.id,
		apiKey: key.secret,
		webhookSecret: ws.webhookSecret,
		jobDescriptionId: job.id,
	};
}

export function jobRevision(
	j: Pick<
		JobDescription,
		'title' | 'company' | 'description' | 'team' | 'location' | 'level' | 'employmentType'
	>,
	salt: string,
): string {
	return sha256Hex(
		JSON.stringify([
			j.title,
			j.company,
			j.team,
			j.location,
			j.level,
			j.employmentType,
			j.description,
			salt,
		]),
	);
}

export function createJob(
	ctx: Ctx,
	workspaceId: string,
	fields: Partial<JobDescription>,
): JobDescription {
	const now = ctx.clock.now();
	const job: JobDescription = {
		id: newId('jd_'),
		workspaceId,
		title: fields.title ?? 'Senior Backend Engineer',
		company: fields.company ?? 'Example Robotics GmbH',
		team: fields.team ?? 'Platform',
		location: fields.location ?? 'Berlin, Germany (hybrid)',
		level: fields.level ?? 'Senior',
		employmentType: fields.employmentType ?? 'FULL_TIME',
		status: fields.status ?? 'ACTIVE',
		description:
			fields.description ??
			'We build the services behind our warehouse robots. You design TypeScript services, own PostgreSQL schemas and mentor engineers.',
		revision: '',
		createdAt: now,
		updatedAt: now,
	};
	job.revision = jobRevision(job, `${job.id}:0`);
	ctx.store.jobs[job.id] = job;
	ctx.markDirty();
	return job;
}

/** Erase a report, its interviews and file; its events become tombstones; `report.deleted` is published. */
export function deleteReport(ctx: Ctx, reportId: string): boolean {
	const r = ctx.store.reports[reportId];
	if (!r) return false;
	const interviewIds = Object.values(ctx.store.interviews)
		.filter((i) => i.reportId === reportId)
		.map((i) => i.id);
	for (const id of interviewIds) delete ctx.store.interviews[id];
	delete ctx.store.reports[reportId];
	ctx.store.files.delete(reportId);
	tombstoneEvents(ctx, r.workspaceId, reportId, interviewIds);
	publish(ctx, r.workspaceId, 'report.deleted', null, { reportId }, { tombstone: true });
	return true;
}

/** Lazy housekeeping on the sandbox clock: data expiry, invitation expiry, event retention. */
export function sweepWorkspace(ctx: Ctx, workspaceId: string): void {
	const cutoff = ctx.clock.now() - SANDBOX_DATA_MS;
	for (const r of Object.values(ctx.store.reports)) {
		if (r.workspaceId === workspaceId && r.createdAt < cutoff) {
			for (const i of Object.values(ctx.store.interviews))
				if (i.reportId === r.id) delete ctx.store.interviews[i.id];
			delete ctx.store.reports[r.id];
			ctx.store.files.delete(r.id);
			ctx.markDirty();
		}
	}
	sweepInterviews(ctx, workspaceId);
	sweepEvents(ctx, workspaceId);
}

/**
 * The spec's reset: revoke the workspace's test keys, cancel queued work, erase reports, interviews,
 * batches, events, mail and receiver history. Idempotency receipts stay. Returns a fresh key.
 */
export function resetWorkspace(ctx: Ctx, workspaceId: string): { apiKey: string } {
	const { store } = ctx;
	ctx.timers.cancelWorkspace(workspaceId);
	for (const k of Object.values(store.keys)) if (k.workspaceId === workspaceId) k.revoked = true;
	for (const r of Object.values(store.reports)) {
		if (r.workspaceId === workspaceId) {
			delete store.reports[r.id];
			store.files.delete(r.id);
		}
	}
	for (const i of Object.values(store.interviews))
		if (i.workspaceId === workspaceId) delete store.interviews[i.id];
	for (const b of Object.values(store.batches))
		if (b.workspaceId === workspaceId) delete store.batches[b.id];
	for (const d of Object.values(store.deliveries))
		if (d.workspaceId === workspaceId) delete store.deliveries[d.deliveryId];
	store.events[workspaceId] = [];
	store.mail[workspaceId] = [];
	store.inbox[workspaceId] = [];
	const key = createKey(ctx, workspaceId, [...ALL_SCOPES], 90);
	ctx.markDirty();
	return { apiKey: key.secret };
}
