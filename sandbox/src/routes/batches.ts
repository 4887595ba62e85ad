/**
 * Upload, analysis and interview batches and the two batch quote forms (spec "Batch rules").
 * Envelope rules (1..20 items, 256 KiB, unique itemKey, field rules) give 400; a foreign or unknown
 * resource id rejects the whole envelope with 404; a second active batch of a kind gives 409.
 */
import type { Ctx } from '../context';
import { ApiError, badRequest, conflict, notFound } from '../errors';
import type { ApiRouter } from '../http';
import { quoteAnalysis } from '../analyses';
import { activeBatch, batchView, createBatch } from '../batches';
import { issueInterviewQuote } from '../interviews';
import type { BatchRecord, Workspace } from '../types';
import {
	jobReference,
	MAX_BATCH_BYTES,
	uploadInput,
	Validator,
	type ParsedJobRef,
} from '../validation';
import { fingerprintField, interviewInput } from './interviews';

interface Envelope {
	items: { itemKey: string; raw: unknown }[];
	jobDescription?: unknown;
}

function envelope(v: Validator, body: unknown, rawLength: number, allowed: string[]): Envelope {
	if (rawLength > MAX_BATCH_BYTES) throw badRequest([{ field: 'body', rule: 'max_bytes_262144' }]);
	const o = v.object('', body, allowed);
	if (!o) throw badRequest(v.issues);
	if (!Array.isArray(o.items)) {
		v.add('items', o.items === undefined ? 'required' : 'type_array');
		throw badRequest(v.issues);
	}
	if (o.items.length < 1) v.add('items', 'min_items');
	if (o.items.length > 20) v.add('items', 'max_items');
	const seen = new Set<string>();
	const items: Envelope['items'] = [];
	o.items.forEach((it: unknown, i: number) => {
		const io = v.object(`items[${i}]`, it, ['itemKey', 'input']);
		if (!io) return;
		const key = v.string(`items[${i}].itemKey`, io.itemKey, { min: 1, max: 100 });
		if (key !== undefined) {
			if (seen.has(key)) v.add(`items[${i}].itemKey`, 'unique');
			seen.add(key);
		}
		if (io.input === undefined) v.add(`items[${i}].input`, 'required');
		items.push({ itemKey: key ?? '', raw: io.input });
	});
	return { items, jobDescription: o.jobDescription };
}

function ensureNoActive(ctx: Ctx, ws: Workspace, kind: BatchRecord['kind']): void {
	const active = activeBatch(ctx, ws.id, kind);
	if (active)
		throw conflict(
			'BATCH_ALREADY_ACTIVE',
			`Batch ${active.id} of kind ${kind} is still active; only one per kind per workspace.`,
		);
}

function ownReportIds(ctx: Ctx, ws: Workspace, ids: { field: string; id: string }[]): void {
	const foreign = ids.filter(({ id }) => ctx.store.reports[id]?.workspaceId !== ws.id);
	if (foreign.length) {
		throw new ApiError(
			404,
			'The envelope names unknown or foreign resources; nothing was created.',
			undefined,
			{
				details: foreign.map(({ field }) => ({ field, rule: 'unknown_resource' })),
			},
		);
	}
}

function quoteTotals(
	items: {
		itemKey: string;
		quote: { creditUnits: number; creditScale: number } | null;
		errorCode: string | null;
	}[],
) {
	const quoted = items.filter((i) => i.quote);
	return {
		total: {
			creditUnits: quoted.reduce((s, i) => s + (i.quote?.creditUnits ?? 0), 0),
			creditScale: quoted[0]?.quote?.creditScale ?? 100,
			quotedItems: quoted.length,
			failedItems: items.length - quoted.length,
			admissionGuaranteed: false,
		},
		items,
	};
}

function quoteItem<T extends { creditUnits: number; creditScale: number }>(
	itemKey: string,
	fn: () => T,
) {
	try {
		return { itemKey, quote: fn() as T | null, errorCode: null as string | null };
	} catch (err) {
		if (!(err instanceof ApiError)) throw err;
		return { itemKey, quote: null, errorCode: err.reason ?? (err.body('').error.code as string) };
	}
}

export function batchRoutes(api: ApiRouter, ctx: Ctx): void {
	api.add({
		method: 'POST',
		path: '/api/v1/upload-batches',
		scope: 'analyses:write',
		idempotent: true,
		handler: ({ ws, body, rawLength }) => {
			const v = new Validator();
			const env = envelope(v, body, rawLength, ['items', 'jobDescription']);
			const batchJob = jobReference(v, 'jobDescription', env.jobDescription, false);
			const inputs = env.items.map((it, i) =>
				uploadInput(v, `items[${i}].input`, it.raw, !batchJob),
			);
			v.throwIfAny();
			const jobIds = inputs
				.map((inp, i) => ({
					field: `items[${i}].input.jobDescription.id`,
					job: (inp?.jobDescription ?? batchJob) as ParsedJobRef,
				}))
				.concat(batchJob ? [{ field: 'jobDescription.id', job: batchJob }] : [])
				.filter(
					({ job }) =>
						job.kind === 'existing' && ctx.store.jobs[job.id ?? '']?.workspaceId !== ws.id,
				);
			if (jobIds.length) {
				throw new ApiError(
					404,
					'The envelope names unknown or foreign job descriptions; nothing was created.',
					undefined,
					{
						details: jobIds.map(({ field }) => ({ field, rule: 'unknown_resource' })),
					},
				);
			}
			ensureNoActive(ctx, ws, 'uploads');
			const b = createBatch(
				ctx,
				ws,
				'uploads',
				env.items.map((it, i) => ({
					itemKey: it.itemKey,
					input: inputs[i] as unknown as Record<string, unknown>,
				})),
				batchJob,
			);
			return {
				status: 202,
				body: { data: { batchId: b.id, statusUrl: `/api/v1/upload-batches/${b.id}` } },
			};
		},
	});

	api.add({
		method: 'POST',
		path: '/api/v1/analysis-batch-quotes',
		scope: 'analyses:write',
		handler: ({ ws, body, rawLength }) => {
			const v = new Validator();
			const env = envelope(v, body, rawLength, ['items']);
			const ids = env.items.map((it, i) => {
				const o = v.object(`items[${i}].input`, it.raw, ['reportId']);
				return {
					field: `items[${i}].input.reportId`,
					id: (o && v.string(`items[${i}].input.reportId`, o.reportId, { min: 1, max: 100 })) ?? '',
				};
			});
			v.throwIfAny();
			ownReportIds(ctx, ws, ids);
			const items = env.items.map((it, i) =>
				quoteItem(it.itemKey, () => quoteAnalysis(ctx, ws, ids[i].id)),
			);
			return { status: 200, body: { data: quoteTotals(items) } };
		},
	});

	api.add({
		method: 'POST',
		path: '/api/v1/analysis-batches',
		scope: 'analyses:write',
		idempotent: true,
		handler: ({ ws, body, rawLength }) => {
			const v = new Validator();
			const env = envelope(v, body, rawLength, ['items']);
			const inputs = env.items.map((it, i) => {
				const o = v.object(`items[${i}].input`, it.raw, ['reportId', 'quoteFingerprint']);
				if (!o) return { reportId: '', quoteFingerprint: '' };
				return {
					reportId: v.string(`items[${i}].input.reportId`, o.reportId, { min: 1, max: 100 }) ?? '',
					quoteFingerprint:
						fingerprintField(v, `items[${i}].input.quoteFingerprint`, o.quoteFingerprint) ?? '',
				};
			});
			v.throwIfAny();
			ownReportIds(
				ctx,
				ws,
				inputs.map((inp, i) => ({ field: `items[${i}].input.reportId`, id: inp.reportId })),
			);
			ensureNoActive(ctx, ws, 'analyses');
			const b = createBatch(
				ctx,
				ws,
				'analyses',
				env.items.map((it, i) => ({ itemKey: it.itemKey, input: inputs[i] })),
				null,
			);
			return {
				status: 202,
				body: { data: { batchId: b.id, statusUrl: `/api/v1/analysis-batches/${b.id}` } },
			};
		},
	});

	const interviewItems = (v: Validator, env: Envelope, extra: string[]) =>
		env.items.map((it, i) => {
			const base = `items[${i}].input`;
			// Batch items carry sendEmail (spec: `{reportId, candidateEmail, sendEmail}`, and only true).
			const input = interviewInput(v, base, it.raw, extra, true);
			const raw = (it.raw ?? {}) as Record<string, unknown>;
			if (raw.sendEmail === false) v.add(`${base}.sendEmail`, 'batches_require_true');
			const fp = extra.includes('quoteFingerprint')
				? fingerprintField(v, `${base}.quoteFingerprint`, raw.quoteFingerprint)
				: undefined;
			return { input, fp, field: `${base}.reportId` };
		});

	api.add({
		method: 'POST',
		path: '/api/v1/interview-batch-quotes',
		scope: 'interviews:write',
		handler: ({ ws, body, rawLength }) => {
			const v = new Validator();
			const env = envelope(v, body, rawLength, ['items']);
			const parsed = interviewItems(v, env, []);
			v.throwIfAny();
			ownReportIds(
				ctx,
				ws,
				parsed.map((p) => ({ field: p.field, id: p.input!.reportId })),
			);
			const items = env.items.map((it, i) =>
				quoteItem(it.itemKey, () => issueInterviewQuote(ctx, ws, parsed[i].input!)),
			);
			return { status: 200, body: { data: quoteTotals(items) } };
		},
	});

	api.add({
		method: 'POST',
		path: '/api/v1/interview-batches',
		scope: 'interviews:write',
		idempotent: true,
		handler: ({ ws, body, rawLength }) => {
			const v = new Validator();
			const env = envelope(v, body, rawLength, ['items']);
			const parsed = interviewItems(v, env, ['quoteFingerprint']);
			v.throwIfAny();
			ownReportIds(
				ctx,
				ws,
				parsed.map((p) => ({ field: p.field, id: p.input!.reportId })),
			);
			ensureNoActive(ctx, ws, 'interviews');
			const b = createBatch(
				ctx,
				ws,
				'interviews',
				env.items.map((it, i) => ({
					itemKey: it.itemKey,
					input: { ...parsed[i].input!, quoteFingerprint: parsed[i].fp },
				})),
				null,
			);
			return {
				status: 202,
				body: { data: { batchId: b.id, statusUrl: `/api/v1/interview-batches/${b.id}` } },
			};
		},
	});

	const reads: [string, BatchRecord['kind'], 'analyses:write' | 'interviews:write'][] = [
		['/api/v1/upload-batches/{id}', 'uploads', 'analyses:write'],
		['/api/v1/analysis-batches/{id}', 'analyses', 'analyses:write'],
		['/api/v1/interview-batches/{id}', 'interviews', 'interviews:write'],
	];
	for (const [path, kind, scope] of reads) {
		api.add({
			method: 'GET',
			path,
			scope,
			handler: ({ ws, params }) => {
				const b = ctx.store.batches[params.id];
				if (!b || b.workspaceId !== ws.id || b.kind !== kind) throw notFound('Batch');
				return { status: 200, body: { data: batchView(b) } };
			},
		});
	}
}
