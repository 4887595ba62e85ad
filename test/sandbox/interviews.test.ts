/**
 * Interviews: quote -> invite -> controls -> result_ready, the four independent axes, resend,
 * reinterview, private-link delivery, expiry, and every invitation input rule.
 */
import { waitFor, type TestSandbox } from '../helpers/sandbox';
import {
	completedReport,
	created,
	expectError,
	expectInvalid,
	interviewQuote,
	interviewState,
	invited,
	key,
	newWs,
	start,
	uploaded,
	waitStatus,
	useSandboxWs,
	type Ws,
} from './setup';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

const ready = (w: Ws, id: string) =>
	waitFor(async () => ((await interviewState(w, id)).preparation === 'ready' ? true : undefined));

async function rejectsInvite(w: Ws, body: unknown, status: number, reason?: string) {
	const before = created(await w.counters());
	const res = await w.call('POST', '/api/v1/interviews', { idempotencyKey: key(), body });
	expectError(res, status, reason);
	expect(created(await w.counters())).toEqual(before);
	return res;
}

describe('happy path', () => {
	test('quote -> invite -> started -> completed -> result_ready, with events in that order', async () => {
		const reportId = await completedReport(ws);
		const q = await ws.call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: 'grace@example.com' },
		});
		expect(q.status).toBe(200);
		expect(q.body.data).toEqual({
			reportId,
			creditUnits: expect.any(Number),
			creditScale: expect.any(Number),
			fingerprint: expect.stringMatching(/^[a-f0-9]{64}$/),
			interviewSystemVersion: expect.any(String),
		});
		const before = await ws.counters();
		const inv = await ws.call('POST', '/api/v1/interviews', {
			idempotencyKey: key(),
			body: {
				reportId,
				candidateEmail: 'grace@example.com',
				quoteFingerprint: q.body.data.fingerprint,
			},
		});
		expect(inv.status).toBe(202);
		const id = inv.body.data.interviewId;
		expect(inv.body.data).toEqual({
			interviewId: expect.stringMatching(/^int_/),
			reportId,
			invitationToken: null,
			statusUrl: `/api/v1/interviews/${id}/status`,
			emailDelivery: 'queued',
		});
		const fresh = await interviewState(ws, id);
		expect(fresh).toMatchObject({
			id,
			reportId,
			lifecycle: 'invited',
			evaluation: 'not_started',
			startedAt: null,
			completedAt: null,
			resultRevision: null,
		});
		await ready(ws, id);
		const mail = await waitFor(async () =>
			(await sb.control.mail(ws.workspaceId)).items.find(
				(m) => m.interviewId === id && m.state === 'sent',
			),
		);
		expect(mail.to).toBe('grace@example.com');
		expect((await ws.counters()).emailsSent).toBe(before.emailsSent + 1);
		expect((await ws.counters()).interviewsCreated).toBe(before.interviewsCreated + 1);
		expect((await interviewState(ws, id)).emailDelivery).toBe('sent');

		await sb.control.interviewEvent(id, 'interview.started');
		expect(await interviewState(ws, id)).toMatchObject({
			lifecycle: 'in_progress',
			startedAt: expect.any(String),
		});
		await sb.control.interviewEvent(id, 'interview.completed');
		const done = await interviewState(ws, id);
		expect(done).toMatchObject({ lifecycle: 'completed', completedAt: expect.any(String) });
		expect(done.evaluation).not.toBe('ready'); // completion does not prove the evaluation is ready
		expect((await ws.call('GET', `/api/v1/interviews/${id}/result`)).body.data.result).toBeNull();
		await sb.control.interviewEvent(id, 'interview.result_ready');
		const res = await ws.call('GET', `/api/v1/interviews/${id}/result`);
		expect(res.status).toBe(200);
		expect(res.body.data).toMatchObject({
			id,
			schemaVersion: 1,
			evaluation: 'ready',
			resultRevision: expect.stringMatching(/^[a-f0-9]{64}$/),
		});
		const r = res.body.data.result;
		for (const f of ['decision', 'recommendation', 'limitations', 'summary'])
			expect(typeof r[f]).toBe('string');
		expect(Object.keys(r.scores).sort()).toEqual([
			'communication',
			'coreSkill',
			'problemSolving',
			'readiness',
			'roleFit',
		]);
		expect(Object.keys(r.requirements[0]).sort()).toEqual([
			'confidence',
			'coverage',
			'evidence',
			'finding',
			'gaps',
			'requirement',
			'score',
			'status',
		]);
		expect(r).not.toHaveProperty('transcript');
		const events = await ws.call('GET', `/api/v1/events?interviewId=${id}`);
		expect(events.body.data.items.map((e: { type: string }) => e.type)).toEqual([
			'interview.invited',
			'interview.started',
			'interview.completed',
			'interview.result_ready',
		]);
		expect(events.body.data.items[3].data).toEqual({
			interviewId: id,
			reportId,
			lifecycle: 'completed',
			preparation: 'ready',
			evaluation: 'ready',
			emailDelivery: 'sent',
		});
		const status = await ws.call('GET', `/api/v1/interviews/${id}/status`);
		expect(status.body.data).toEqual(await interviewState(ws, id));
	});

	test('sendEmail false returns a private invitationToken and sends no email', async () => {
		const reportId = await completedReport(ws);
		const before = await ws.counters();
		const inv = await invited(ws, reportId, 'link@example.com', false);
		expect(inv.invitationToken).toEqual(expect.any(String));
		expect(inv.emailDelivery).toBe('not_requested');
		expect(
			(await sb.control.mail(ws.workspaceId)).items.filter(
				(m) => m.interviewId === inv.interviewId,
			),
		).toEqual([]);
		expect((await ws.counters()).emailsSent).toBe(before.emailsSent);
		expect((await fetch(`${sb.baseUrl}/_sandbox/invitations/${inv.invitationToken}`)).status).toBe(
			200,
		);
	});

	test('interview list filters by reportId and lifecycle, newest first', async () => {
		const w = await newWs(sb);
		const r1 = await completedReport(w);
		const r2 = await completedReport(w);
		const a = await invited(w, r1);
		const b = await invited(w, r2);
		const all = await w.call('GET', '/api/v1/interviews');
		expect(all.body.data.items.map((i: { id: string }) => i.id)).toEqual([
			b.interviewId,
			a.interviewId,
		]);
		const one = await w.call('GET', `/api/v1/interviews?reportId=${r1}&lifecycle=invited`);
		expect(one.body.data.items.map((i: { id: string }) => i.id)).toEqual([a.interviewId]);
		expectInvalid(await w.call('GET', '/api/v1/interviews?lifecycle=done'), 'lifecycle', 'enum');
		expectInvalid(
			await w.call('GET', '/api/v1/interviews?externalReferenceId=x'),
			'externalReferenceSource',
			'both_or_neither',
		);
		const page = await w.call('GET', '/api/v1/interviews?limit=1');
		expect(page.body.data.items.map((i: { id: string }) => i.id)).toEqual([b.interviewId]);
		const next = await w.call(
			'GET',
			`/api/v1/interviews?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
		);
		expect(next.body.data).toEqual({
			items: [expect.objectContaining({ id: a.interviewId })],
			nextCursor: null,
		});
		expectError(
			await w.call(
				'GET',
				`/api/v1/interviews?limit=1&lifecycle=invited&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
			),
			400,
			'INVALID_CURSOR',
		);
	});
});

describe('invitation input rules', () => {
	test.each([
		['candidateEmail must be an email', 'not-an-email'],
		['candidateEmail has no leading dot', '.ada@example.com'],
		['candidateEmail has no consecutive dots', 'ada..b@example.com'],
	])('%s', async (_rule, email) => {
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', '/api/v1/interview-quotes', {
				body: { reportId: 'rpt_x', candidateEmail: email },
			}),
			'candidateEmail',
			'email',
		);
		expectInvalid(
			await ws.call('POST', '/api/v1/interviews', {
				idempotencyKey: key(),
				body: { reportId: 'rpt_x', candidateEmail: email, quoteFingerprint: 'a'.repeat(64) },
			}),
			'candidateEmail',
			'email',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('sendEmail is a boolean', async () => {
		expectInvalid(
			await ws.call('POST', '/api/v1/interview-quotes', {
				body: { reportId: 'rpt_x', candidateEmail: 'a@example.com', sendEmail: 'yes' },
			}),
			'sendEmail',
			'type_boolean',
		);
	});
	test('quoteFingerprint is required for an invitation', async () => {
		expectInvalid(
			await ws.call('POST', '/api/v1/interviews', {
				idempotencyKey: key(),
				body: { reportId: 'rpt_x', candidateEmail: 'a@example.com' },
			}),
			'quoteFingerprint',
			'required',
		);
	});
	test('a quote needs a completed usable analysis (ANALYSIS_NOT_USABLE)', async () => {
		const pending = await uploaded(ws);
		expectError(
			await ws.call('POST', '/api/v1/interview-quotes', {
				body: { reportId: pending, candidateEmail: 'a@example.com' },
			}),
			422,
			'ANALYSIS_NOT_USABLE',
		);
		const review = await uploaded(ws, { outcome: 'requires_action' });
		await start(ws, review);
		await waitStatus(ws, review, ['requires_action']);
		expectError(
			await ws.call('POST', '/api/v1/interview-quotes', {
				body: { reportId: review, candidateEmail: 'a@example.com' },
			}),
			422,
			'ANALYSIS_NOT_USABLE',
		);
	});
	test('the quote and the invitation must use the same address (QUOTE_STALE)', async () => {
		const reportId = await completedReport(ws);
		const fp = await interviewQuote(ws, reportId, 'one@example.com');
		await rejectsInvite(
			ws,
			{ reportId, candidateEmail: 'two@example.com', quoteFingerprint: fp },
			422,
			'QUOTE_STALE',
		);
	});
	test('the quote binds the delivery choice (QUOTE_STALE)', async () => {
		const reportId = await completedReport(ws);
		const fp = await interviewQuote(ws, reportId, 'one@example.com', true);
		await rejectsInvite(
			ws,
			{ reportId, candidateEmail: 'one@example.com', sendEmail: false, quoteFingerprint: fp },
			422,
			'QUOTE_STALE',
		);
	});
	test('invitations require interview allowance (INSUFFICIENT_ALLOWANCE)', async () => {
		const w = await newWs(sb, { interviewAllowance: 0 });
		const reportId = await completedReport(w);
		const fp = await interviewQuote(w, reportId);
		await rejectsInvite(
			w,
			{ reportId, candidateEmail: 'ada@example.com', quoteFingerprint: fp },
			422,
			'INSUFFICIENT_ALLOWANCE',
		);
	});
	test('a second invitation for the same report is not allowed (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const reportId = await completedReport(ws);
		await invited(ws, reportId);
		const fp = await interviewQuote(ws, reportId);
		await rejectsInvite(
			ws,
			{ reportId, candidateEmail: 'ada@example.com', quoteFingerprint: fp },
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
	});
	test('an invite replay recovers the pending invitation and creates nothing', async () => {
		const reportId = await completedReport(ws);
		const fp = await interviewQuote(ws, reportId, 'ada@example.com', false);
		const k = key();
		const body = {
			reportId,
			candidateEmail: 'ada@example.com',
			sendEmail: false,
			quoteFingerprint: fp,
		};
		const a = await ws.call('POST', '/api/v1/interviews', { idempotencyKey: k, body });
		const before = created(await ws.counters());
		const b = await ws.call('POST', '/api/v1/interviews', { idempotencyKey: k, body });
		expect(b.status).toBe(202);
		expect(b.body).toEqual(a.body);
		expect(created(await ws.counters())).toEqual(before);
	});
});

describe('resend and reinterview', () => {
	test('resend queues another email with a deliveryId, no new interview, no charge; a replay does not resend', async () => {
		const w = await newWs(sb, { interviewAllowance: 1 });
		const reportId = await completedReport(w);
		const inv = await invited(w, reportId);
		await waitFor(async () => (await interviewState(w, inv.interviewId)).emailDelivery === 'sent');
		const before = await w.counters();
		const k = key();
		const r = await w.call('POST', `/api/v1/interviews/${inv.interviewId}/resend`, {
			idempotencyKey: k,
		});
		expect(r.status).toBe(202);
		expect(r.body.data).toEqual({
			interviewId: inv.interviewId,
			deliveryId: expect.stringMatching(/^dlv_/),
		});
		const again = await w.call('POST', `/api/v1/interviews/${inv.interviewId}/resend`, {
			idempotencyKey: k,
		});
		expect(again.body).toEqual(r.body);
		await waitFor(async () =>
			(await sb.control.mail(w.workspaceId)).items.find(
				(m) => m.deliveryId === r.body.data.deliveryId && m.state === 'sent',
			),
		);
		const after = await w.counters();
		expect(after.emailsSent - before.emailsSent).toBe(1);
		expect(after.interviewsCreated).toBe(before.interviewsCreated);
	});
	test('resend needs an Idempotency-Key and a pending eligible invitation (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const reportId = await completedReport(ws);
		const inv = await invited(ws, reportId);
		expectInvalid(
			await ws.call('POST', `/api/v1/interviews/${inv.interviewId}/resend`),
			'Idempotency-Key',
			'required',
		);
		await ready(ws, inv.interviewId);
		await sb.control.interviewEvent(inv.interviewId, 'interview.started');
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', `/api/v1/interviews/${inv.interviewId}/resend`, {
				idempotencyKey: key(),
			}),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('reinterview creates a new id, supersedes the old attempt and refuses the old token', async () => {
		const reportId = await completedReport(ws);
		const first = await invited(ws, reportId, 'ada@example.com', false);
		const stale = await interviewQuote(ws, reportId, 'ada@example.com', false);
		expect(
			(
				await ws.call('POST', `/api/v1/interviews/${first.interviewId}/reinterview`, {
					idempotencyKey: key(),
					body: {
						reportId,
						candidateEmail: 'ada@example.com',
						sendEmail: false,
						quoteFingerprint: 'f'.repeat(64),
					},
				})
			).status,
		).toBe(422);
		const r = await ws.call('POST', `/api/v1/interviews/${first.interviewId}/reinterview`, {
			idempotencyKey: key(),
			body: {
				reportId,
				candidateEmail: 'ada@example.com',
				sendEmail: false,
				quoteFingerprint: stale,
			},
		});
		expect(r.status).toBe(202);
		expect(r.body.data.interviewId).not.toBe(first.interviewId);
		expect(r.body.data.invitationToken).not.toBe(first.invitationToken);
		expect((await interviewState(ws, first.interviewId)).lifecycle).toBe('superseded');
		expect(
			(await fetch(`${sb.baseUrl}/_sandbox/invitations/${first.invitationToken}`)).status,
		).toBe(410);
		expect(
			(await fetch(`${sb.baseUrl}/_sandbox/invitations/${r.body.data.invitationToken}`)).status,
		).toBe(200);
		// the quote used for the reinterview is now stale for another one
		expectError(
			await ws.call('POST', `/api/v1/interviews/${r.body.data.interviewId}/reinterview`, {
				idempotencyKey: key(),
				body: {
					reportId,
					candidateEmail: 'ada@example.com',
					sendEmail: false,
					quoteFingerprint: stale,
				},
			}),
			422,
			'QUOTE_STALE',
		);
	});
	test('reinterview is refused while the previous interview is in progress (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const reportId = await completedReport(ws);
		const first = await invited(ws, reportId);
		await ready(ws, first.interviewId);
		await sb.control.interviewEvent(first.interviewId, 'interview.started');
		const fp = await interviewQuote(ws, reportId);
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', `/api/v1/interviews/${first.interviewId}/reinterview`, {
				idempotencyKey: key(),
				body: { reportId, candidateEmail: 'ada@example.com', quoteFingerprint: fp },
			}),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
});

describe('independent axes and sandbox controls', () => {
	test('controls apply in order: completed before started is refused', async () => {
		const reportId = await completedReport(ws);
		const inv = await invited(ws, reportId);
		await ready(ws, inv.interviewId);
		await expect(sb.control.interviewEvent(inv.interviewId, 'interview.completed')).rejects.toThrow(
			/409/,
		);
		await expect(
			sb.control.interviewEvent(inv.interviewId, 'interview.result_ready'),
		).rejects.toThrow(/409/);
	});
	test('invitation_failed requires a queued email delivery; lifecycle stays invited', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { holdEmails: true });
		const reportId = await completedReport(w);
		const inv = await invited(w, reportId, 'ada@example.com', true, false);
		await sb.control.interviewEvent(inv.interviewId, 'interview.invitation_failed');
		expect(await interviewState(w, inv.interviewId)).toMatchObject({
			lifecycle: 'invited',
			emailDelivery: 'failed',
		});
		await expect(
			sb.control.interviewEvent(inv.interviewId, 'interview.invitation_failed'),
		).rejects.toThrow(/409/);
		const linkOnly = await invited(w, await completedReport(w), 'b@example.com', false, false);
		await expect(
			sb.control.interviewEvent(linkOnly.interviewId, 'interview.invitation_failed'),
		).rejects.toThrow(/409/);
	});
	test('preparation_failed keeps lifecycle invited', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { holdPreparation: true });
		const inv = await invited(w, await completedReport(w), 'ada@example.com', true, false);
		expect((await interviewState(w, inv.interviewId)).preparation).toBe('queued');
		await sb.control.interviewEvent(inv.interviewId, 'interview.preparation_failed');
		expect(await interviewState(w, inv.interviewId)).toMatchObject({
			lifecycle: 'invited',
			preparation: 'failed',
		});
	});
	test('result_failed keeps lifecycle completed', async () => {
		const inv = await invited(ws, await completedReport(ws));
		await ready(ws, inv.interviewId);
		await sb.control.interviewEvent(inv.interviewId, 'interview.started');
		await sb.control.interviewEvent(inv.interviewId, 'interview.completed');
		await sb.control.interviewEvent(inv.interviewId, 'interview.result_failed');
		expect(await interviewState(ws, inv.interviewId)).toMatchObject({
			lifecycle: 'completed',
			evaluation: 'failed',
		});
	});
	test('interview.expired control, and invitations expire on the clock', async () => {
		const w = await newWs(sb);
		const a = await invited(w, await completedReport(w));
		await sb.control.interviewEvent(a.interviewId, 'interview.expired');
		expect((await interviewState(w, a.interviewId)).lifecycle).toBe('expired');
		const b = await invited(w, await completedReport(w), 'c@example.com', false);
		const exp = (await interviewState(w, b.interviewId)).expiresAt as string;
		await sb.control.advanceClock(
			Date.parse(exp) - Date.parse((await sb.control.clock()).now) + 1000,
		);
		expect((await interviewState(w, b.interviewId)).lifecycle).toBe('expired');
		expect((await fetch(`${sb.baseUrl}/_sandbox/invitations/${b.invitationToken}`)).status).toBe(
			410,
		);
		expectError(
			await w.call('POST', `/api/v1/interviews/${a.interviewId}/resend`, { idempotencyKey: key() }),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
	});
	test('interview result schemaVersion other than 1 is RESULT_VERSION_UNSUPPORTED', async () => {
		const inv = await invited(ws, await completedReport(ws), 'v@example.com', false);
		expectError(
			await ws.call('GET', `/api/v1/interviews/${inv.interviewId}/result?schemaVersion=2`),
			422,
			'RESULT_VERSION_UNSUPPORTED',
		);
	});
});

describe('more invitation rules', () => {
	test('an interview quote for an unknown report is 404', async () => {
		expectError(
			await ws.call('POST', '/api/v1/interview-quotes', {
				body: { reportId: 'rpt_missing', candidateEmail: 'a@example.com' },
			}),
			404,
		);
	});
	test('resend takes no body', async () => {
		const inv = await invited(ws, await completedReport(ws), 'nobody@example.com');
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', `/api/v1/interviews/${inv.interviewId}/resend`, {
				idempotencyKey: key(),
				body: { candidateEmail: 'x@example.com' },
			}),
			'body',
			'no_body',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('a reinterview must name the same report (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const r1 = await completedReport(ws);
		const r2 = await completedReport(ws);
		const first = await invited(ws, r1, 'same@example.com', false);
		const fp = await interviewQuote(ws, r2, 'same@example.com', false);
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', `/api/v1/interviews/${first.interviewId}/reinterview`, {
				idempotencyKey: key(),
				body: {
					reportId: r2,
					candidateEmail: 'same@example.com',
					sendEmail: false,
					quoteFingerprint: fp,
				},
			}),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('an invite replay no longer recovers a superseded invitation (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const reportId = await completedReport(ws);
		const fp = await interviewQuote(ws, reportId, 'replay@example.com', false);
		const k = key();
		const body = {
			reportId,
			candidateEmail: 'replay@example.com',
			sendEmail: false,
			quoteFingerprint: fp,
		};
		const first = await ws.call('POST', '/api/v1/interviews', { idempotencyKey: k, body });
		const fp2 = await interviewQuote(ws, reportId, 'replay@example.com', false);
		expect(
			(
				await ws.call('POST', `/api/v1/interviews/${first.body.data.interviewId}/reinterview`, {
					idempotencyKey: key(),
					body: { ...body, quoteFingerprint: fp2 },
				})
			).status,
		).toBe(202);
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', '/api/v1/interviews', { idempotencyKey: k, body }),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('interviews:read is needed for interview reads; interviews:write for invitations', async () => {
		const { apiKey } = await sb.control.createKey(ws.workspaceId, { scopes: ['interviews:write'] });
		const res = await ws.call('GET', '/api/v1/interviews', { key: apiKey });
		expectError(res, 403, 'MISSING_SCOPE');
		expect(res.body.error.requiredScopes).toEqual(['interviews:read']);
	});
});

test('an invitation expiring on the clock publishes interview.expired to webhooks without any API request', async () => {
	const w = await newWs(sb);
	const inv = await invited(w, await completedReport(w), 'exp@example.com', false);
	const ep = await sb.control.addWebhookEndpoint(w.workspaceId, {
		url: sb.control.inboxUrl(w.workspaceId),
		eventTypes: ['interview.expired'],
	});
	await sb.control.advanceClock(3 * 24 * 3600_000 + 1000);
	const entry = await waitFor(async () => (await sb.control.inbox(w.workspaceId)).items[0]);
	expect(entry.verified).toBe(true);
	expect(JSON.parse(entry.body)).toMatchObject({
		type: 'interview.expired',
		data: { interviewId: inv.interviewId, lifecycle: 'expired' },
	});
	expect((await sb.control.deliveries(ep.id)).items).toHaveLength(1);
});
