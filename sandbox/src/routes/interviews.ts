/** Interview quotes, invitations, resend, reinterview and reads (spec "Interviews"). */
import type { Ctx } from '../context';
import type { Cursors } from '../cursors';
import { conflict, unprocessable } from '../errors';
import type { ApiRouter } from '../http';
import {
	invite,
	type InterviewInput,
	issueInterviewQuote,
	ownInterview,
	resend,
} from '../interviews';
import { interviewResultView, interviewView } from '../views';
import { allowOnly, pageParams, queryString, Validator } from '../validation';
import { noBody, schemaVersionOk } from './common';
import { externalReferenceFilter } from './reports';

const LIFECYCLES = ['invited', 'in_progress', 'completed', 'expired', 'superseded'];

/** `{reportId, candidateEmail, sendEmail?}` plus optional extra fields (quoteFingerprint). */
export function interviewInput(
	v: Validator,
	base: string,
	value: unknown,
	extra: string[],
	sendEmailRequired = false,
): InterviewInput | null {
	const o = v.object(base, value, ['reportId', 'candidateEmail', 'sendEmail', ...extra]);
	if (!o) return null;
	const p = (k: string) => (base ? `${base}.${k}` : k);
	const before = v.issues.length;
	const reportId = v.string(p('reportId'), o.reportId, { min: 1, max: 100 });
	const candidateEmail = v.email(p('candidateEmail'), o.candidateEmail);
	const sendEmail = v.boolean(p('sendEmail'), o.sendEmail, sendEmailRequired) ?? true;
	if (v.issues.length !== before) return null;
	return { reportId: reportId!, candidateEmail: candidateEmail!, sendEmail };
}

export function fingerprintField(v: Validator, field: string, value: unknown): string | undefined {
	return v.string(field, value, { pattern: /^[a-f0-9]{64}$/ });
}

export function interviewRoutes(api: ApiRouter, ctx: Ctx, cursors: Cursors): void {
	api.add({
		method: 'POST',
		path: '/api/v1/interview-quotes',
		scope: 'interviews:write',
		handler: ({ ws, body }) => {
			const v = new Validator();
			const input = interviewInput(v, '', body, []);
			v.throwIfAny();
			return { status: 200, body: { data: issueInterviewQuote(ctx, ws, input!) } };
		},
	});

	// A replay recovers only an eligible, current, pending invitation (spec "Field rules for invitation inputs").
	const inviteReplayGuard = (call: { ws: { id: string } }, receipt: { interviewId?: string }) => {
		const i = receipt.interviewId ? ctx.store.interviews[receipt.interviewId] : undefined;
		if (!i || i.lifecycle !== 'invited') {
			throw conflict(
				'INTERVIEW_NOT_ELIGIBLE',
				'The invitation of this key is no longer a current pending invitation.',
			);
		}
	};
	const interviewIdOf = (r: { body?: unknown }) => ({
		interviewId: (r.body as { data?: { interviewId?: string } })?.data?.interviewId ?? undefined,
	});

	api.add({
		method: 'POST',
		path: '/api/v1/interviews',
		scope: 'interviews:write',
		idempotent: true,
		replayGuard: inviteReplayGuard,
		receiptExtra: interviewIdOf,
		handler: ({ ws, body }) => {
			const v = new Validator();
			const input = interviewInput(v, '', body, ['quoteFingerprint']);
			const fp = fingerprintField(
				v,
				'quoteFingerprint',
				(body as Record<string, unknown> | undefined)?.quoteFingerprint,
			);
			v.throwIfAny();
			return { status: 202, body: { data: invite(ctx, ws, input!, fp!) } };
		},
	});
	api.add({
		method: 'POST',
		path: '/api/v1/interviews/{id}/reinterview',
		scope: 'interviews:write',
		idempotent: true,
		replayGuard: inviteReplayGuard,
		receiptExtra: interviewIdOf,
		handler: ({ ws, params, body }) => {
			const v = new Validator();
			const input = interviewInput(v, '', body, ['quoteFingerprint']);
			const fp = fingerprintField(
				v,
				'quoteFingerprint',
				(body as Record<string, unknown> | undefined)?.quoteFingerprint,
			);
			v.throwIfAny();
			return { status: 202, body: { data: invite(ctx, ws, input!, fp!, params.id) } };
		},
	});
	api.add({
		method: 'POST',
		path: '/api/v1/interviews/{id}/resend',
		scope: 'interviews:write',
		idempotent: true,
		handler: ({ ws, params, body }) => {
			noBody(body);
			return { status: 202, body: { data: resend(ctx, ws, params.id) } };
		},
	});
	api.add({
		method: 'GET',
		path: '/api/v1/interviews',
		scope: 'interviews:read',
		handler: ({ ws, query }) => {
			const v = new Validator();
			allowOnly(v, query, [
				'reportId',
				'lifecycle',
				'externalReferenceSource',
				'externalReferenceId',
				'limit',
				'cursor',
			]);
			const { limit, cursor } = pageParams(v, query);
			const reportId = queryString(v, query, 'reportId', { min: 1, max: 100 });
			const lifecycle = queryString(v, query, 'lifecycle');
			if (lifecycle !== undefined && !LIFECYCLES.includes(lifecycle)) v.add('lifecycle', 'enum');
			const er = externalReferenceFilter(v, query);
			v.throwIfAny();
			const filters = { reportId: reportId ?? null, lifecycle: lifecycle ?? null, er };
			const position = cursor
				? cursors.decode<[number, number]>(cursor, ws.id, 'interviews', filters).p
				: null;
			const all = Object.values(ctx.store.interviews)
				.filter((i) => i.workspaceId === ws.id)
				.filter((i) => !reportId || i.reportId === reportId)
				.filter((i) => !lifecycle || i.lifecycle === lifecycle)
				.filter((i) => {
					if (!er) return true;
					const ref = ctx.store.reports[i.reportId]?.externalReference;
					return ref?.source === er.source && ref.id === er.id;
				})
				.filter(
					(i) =>
						!position ||
						i.createdAt < position[0] ||
						(i.createdAt === position[0] && i.seq < position[1]),
				)
				.sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
			const page = all.slice(0, limit);
			const last = page[page.length - 1];
			const nextCursor =
				all.length > limit
					? cursors.encode(
							ws.id,
							'interviews',
							filters,
							[last.createdAt, last.seq],
							ctx.clock.now(),
						)
					: null;
			return { status: 200, body: { data: { items: page.map(interviewView), nextCursor } } };
		},
	});
	for (const suffix of ['', '/status']) {
		api.add({
			method: 'GET',
			path: `/api/v1/interviews/{id}${suffix}`,
			scope: 'interviews:read',
			handler: ({ ws, params }) => ({
				status: 200,
				body: { data: interviewView(ownInterview(ctx, ws, params.id)) },
			}),
		});
	}
	api.add({
		method: 'GET',
		path: '/api/v1/interviews/{id}/result',
		scope: 'interviews:read',
		handler: ({ ws, params, query }) => {
			const v = new Validator();
			allowOnly(v, query, ['schemaVersion']);
			v.throwIfAny();
			const i = ownInterview(ctx, ws, params.id);
			if (!schemaVersionOk(query.schemaVersion)) {
				throw unprocessable(
					'RESULT_VERSION_UNSUPPORTED',
					'Only result schemaVersion 1 is supported.',
				);
			}
			return { status: 200, body: { data: interviewResultView(i) } };
		},
	});
}
