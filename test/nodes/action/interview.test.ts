/**
 * Interview resource against the sandbox: Get Quote, Invite (email; private link with the token; given
 * fingerprint), Resend, Reinterview, Get Quotes and Invite Many (batch), Get Batch, Get, Get Many,
 * Get Status, Get Result (Simplify), and the notices the spec asks for.
 */
import type { IDataObject } from 'n8n-workflow';

import { waitFor, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	counters,
	hintsOf,
	jsonOf,
	pdfItem,
	runNode,
	sleep,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;
/** Completed reports, made through the node in one run of eight items. */
let reports: string[] = [];

useSandboxWorkspace((started) => ({ sandbox, ws } = started));
beforeAll(async () => {
	const result = await runNode(
		ws,
		analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30, concurrency: 4 }),
		Array.from({ length: 8 }, (_, i) => pdfItem({ candidate: `Interviewee ${i}` }, `cv-${i}.pdf`)),
	);
	const out = jsonOf(result);
	// The arrangement every test below relies on: eight completed analyses.
	const statuses = out.map((o) => o.status);
	if (statuses.length !== 8 || statuses.some((s) => s !== 'completed'))
		throw new Error(`arranging 8 completed analyses gave ${statuses.join(', ')}`);
	reports = out.map((o) => String(o.reportId));
});

describe('Interview > quote and invite', () => {
	it('Get Quote returns the fingerprint and the interview system version, and sends no email', async () => {
		const before = await counters(ws);
		const quote = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getQuote',
				reportId: reports[0],
				candidateEmail: 'ada@example.com',
			}),
		)[0];
		expect(quote.reportId).toBe(reports[0]);
		expect(quote.fingerprint).toMatch(/^[a-f0-9]{64}$/);
		expect(quote.interviewSystemVersion).toEqual(expect.any(String));
		const after = await counters(ws);
		expect(after.emailsSent).toBe(before.emailsSent);
		expect(after.interviewsCreated).toBe(before.interviewsCreated);
	});

	it('Invite by email (automatic quote): no token in the output, the email reaches the sink, "sent" notice', async () => {
		const result = await runNode(ws, {
			resource: 'interview',
			operation: 'invite',
			reportId: reports[0],
			candidateEmail: 'ada@example.com',
		});
		const [item] = jsonOf(result);
		expect(item.interviewId).toMatch(/^int_/);
		expect(item.reportId).toBe(reports[0]);
		expect(item.delivery).toBe('email');
		expect('invitationToken' in item).toBe(false);
		expect(JSON.stringify(item)).not.toMatch(/invitationToken|\/interview\//);
		// The hint matches the output's emailDelivery, "queued" right after the invitation (it said "sent" before).
		expect(item.emailDelivery).toBe('queued');
		expect(hintsOf(result).join('\n')).toContain(
			'"emailDelivery": "queued" means the service will email the invitation',
		);
		expect(hintsOf(result).join('\n')).not.toContain('"emailDelivery": "sent" means');
		const mail = await waitFor(async () => {
			const { items } = await sandbox.control.mail(ws.workspaceId);
			return items.find((m) => m.interviewId === item.interviewId);
		});
		expect(mail.to).toBe('ada@example.com');
	});

	it('Invite by private link returns the token and its link path, and sends no email', async () => {
		const before = await counters(ws);
		const result = await runNode(ws, {
			resource: 'interview',
			operation: 'invite',
			reportId: reports[1],
			candidateEmail: 'grace@example.com',
			delivery: 'privateLink',
		});
		const [item] = jsonOf(result);
		expect(item.delivery).toBe('privateLink');
		expect(item.invitationToken).toEqual(expect.any(String));
		expect(String(item.invitationToken).length).toBeGreaterThan(10);
		expect(item.invitationPath).toBe(
			`/interview/${encodeURIComponent(String(item.invitationToken))}`,
		);
		expect(hintsOf(result).join('\n')).toContain('private bearer credential');
		const status = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getStatus',
				interviewId: String(item.interviewId),
			}),
		)[0];
		expect(status.emailDelivery).toBe('not_requested');
		await sleep(200);
		const { items: mails } = await sandbox.control.mail(ws.workspaceId);
		expect(
			mails.filter((m) => m.to === 'grace@example.com' || m.interviewId === item.interviewId),
		).toEqual([]);
		expect((await counters(ws)).interviewsCreated - before.interviewsCreated).toBe(1);
	});

	it('Invite with a fingerprint from Get Quote (Quote Automatically off) makes no second quote', async () => {
		const quote = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getQuote',
				reportId: reports[2],
				candidateEmail: 'linus@example.com',
			}),
		)[0];
		const before = await counters(ws);
		const invited = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId: reports[2],
				candidateEmail: 'linus@example.com',
				quoteAutomatically: false,
				quoteFingerprint: String(quote.fingerprint),
			}),
		)[0];
		expect(invited.interviewId).toMatch(/^int_/);
		const after = await counters(ws);
		expect(after.requests['POST /api/v1/interview-quotes'] ?? 0).toBe(
			before.requests['POST /api/v1/interview-quotes'] ?? 0,
		);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(1);
	});

	it('a quote for a different delivery choice does not fit the invitation (the API refuses it)', async () => {
		const quote = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getQuote',
				reportId: reports[3],
				candidateEmail: 'ken@example.com',
				delivery: 'privateLink',
			}),
		)[0];
		const result = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'invite',
				reportId: reports[3],
				candidateEmail: 'ken@example.com',
				delivery: 'email',
				quoteAutomatically: false,
				quoteFingerprint: String(quote.fingerprint),
			},
			[{ json: {} }],
			{ continueOnFail: true },
		);
		const [item] = jsonOf(result);
		expect(item.httpCode).toBe(422);
		expect(item.reason).toBe('QUOTE_STALE');
	});
});

describe('Interview > lifecycle operations', () => {
	let interviewId: string;

	beforeAll(async () => {
		const invited = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId: reports[4],
				candidateEmail: 'barbara@example.com',
			}),
		)[0];
		interviewId = String(invited.interviewId);
	});

	it('Resend queues another email for a pending invitation', async () => {
		const before = await counters(ws);
		const result = await runNode(ws, { resource: 'interview', operation: 'resend', interviewId });
		const [item] = jsonOf(result);
		expect(item.interviewId).toBe(interviewId);
		expect(item.deliveryId).toMatch(/^dlv_/);
		await waitFor(async () => (await counters(ws)).emailsSent > before.emailsSent);
		expect((await counters(ws)).interviewsCreated).toBe(before.interviewsCreated);
	});

	it('Get, Get Status, Get Many show the four axes; completed is not evaluated (notice); Get Result after result_ready', async () => {
		const got = jsonOf(
			await runNode(ws, { resource: 'interview', operation: 'get', interviewId }),
		)[0];
		expect(got).toEqual(
			expect.objectContaining({
				id: interviewId,
				reportId: reports[4],
				lifecycle: 'invited',
				evaluation: 'not_started',
			}),
		);

		await sandbox.control.interviewEvent(interviewId, 'interview.started');
		await sandbox.control.interviewEvent(interviewId, 'interview.completed');
		const completed = await runNode(ws, {
			resource: 'interview',
			operation: 'getStatus',
			interviewId,
		});
		expect(jsonOf(completed)[0].lifecycle).toBe('completed');
		expect(jsonOf(completed)[0].evaluation).not.toBe('ready');
		expect(hintsOf(completed).join('\n')).toContain('does not mean the evaluation is ready');

		const pending = await runNode(ws, {
			resource: 'interview',
			operation: 'getResult',
			interviewId,
		});
		expect(jsonOf(pending)[0].result).toBeNull();
		expect(hintsOf(pending).join('\n')).toContain('unmeasured, not zero');

		await sandbox.control.interviewEvent(interviewId, 'interview.result_ready');
		const full = jsonOf(
			await runNode(ws, { resource: 'interview', operation: 'getResult', interviewId }),
		)[0];
		expect(full.schemaVersion).toBe(1);
		expect(full.evaluation).toBe('ready');
		expect((full.result as IDataObject).scores).toEqual(expect.any(Object));
		const simple = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getResult',
				interviewId,
				simplify: true,
			}),
		)[0];
		expect(Object.keys(simple).sort()).toEqual(
			[
				'candidateName',
				'decision',
				'evaluation',
				'interviewId',
				'lifecycle',
				'limitations',
				'recommendation',
				'reportId',
				'resultRevision',
				'scores',
				'summary',
			].sort(),
		);
		expect(simple.interviewId).toBe(interviewId);

		const byReport = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getMany',
				returnAll: true,
				filters: { reportId: reports[4] },
			}),
		);
		expect(byReport.map((i) => i.id)).toEqual([interviewId]);
		const completedOnes = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getMany',
				returnAll: true,
				filters: { lifecycle: 'completed' },
			}),
		);
		expect(completedOnes.map((i) => i.id)).toContain(interviewId);
		expect(completedOnes.every((i) => i.lifecycle === 'completed')).toBe(true);
		const limited = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getMany',
				returnAll: false,
				limit: 1,
			}),
		);
		expect(limited).toHaveLength(1);
	});

	// A resend of an interview that is no longer pending is refused by the service, whatever its key
	// (test/nodes/action/reminders.test.ts has what the item then says).
	it('Resend of a completed interview is a conflict (INTERVIEW_NOT_ELIGIBLE)', async () => {
		const result = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'resend',
				interviewId,
				options: { attemptLabel: 'after-completion' },
			},
			[{ json: {} }],
			{ continueOnFail: true },
		);
		const [item] = jsonOf(result);
		expect(item.httpCode).toBe(409);
		expect(item.reason).toBe('INTERVIEW_NOT_ELIGIBLE');
	});

	it('Reinterview creates a new attempt with a new ID for the same report', async () => {
		const before = await counters(ws);
		const result = await runNode(ws, {
			resource: 'interview',
			operation: 'reinterview',
			interviewId,
			reportId: reports[4],
			candidateEmail: 'barbara@example.com',
			delivery: 'privateLink',
		});
		const [item] = jsonOf(result);
		expect(item.previousInterviewId).toBe(interviewId);
		expect(item.interviewId).toMatch(/^int_/);
		expect(item.interviewId).not.toBe(interviewId);
		expect(item.invitationToken).toEqual(expect.any(String));
		const after = await counters(ws);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(1);
	});
});

describe('Interview > batch operations', () => {
	it('Get Quotes and Invite Many use one batch request for up to 20 items, one paired output per input', async () => {
		const targets = reports.slice(5, 8);
		const items = targets.map((reportId, i) => ({
			json: { reportId, email: `batch${i}@example.com` },
		}));
		const before = await counters(ws);
		const quotes = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'getQuotes',
				reportId: '={{ $json.reportId }}',
				candidateEmail: '={{ $json.email }}',
			},
			items,
		);
		const quoted = jsonOf(quotes);
		expect(quoted.map((q) => q.reportId)).toEqual(targets);
		for (const q of quoted) expect((q.quote as IDataObject).fingerprint).toMatch(/^[a-f0-9]{64}$/);

		const invited = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.reportId }}',
				candidateEmail: '={{ $json.email }}',
			},
			items,
		);
		const out = jsonOf(invited);
		expect(out).toHaveLength(3);
		expect(invited.output[0].map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		for (const o of out) {
			expect(o.state).toBe('succeeded');
			expect(o.interviewId).toMatch(/^int_/);
		}
		const after = await counters(ws);
		const delta = (route: string) => (after.requests[route] ?? 0) - (before.requests[route] ?? 0);
		expect(delta('POST /api/v1/interview-batch-quotes')).toBe(2);
		expect(delta('POST /api/v1/interview-batches')).toBe(1);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(3);

		const batch = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getBatch',
				batchId: String(out[0].batchId),
			}),
		)[0];
		expect(batch.kind).toBe('interviews');
		expect(batch.status).toBe('completed');
	});

	it('Invite Many with 45 items: three interview batches (20 + 20 + 5), 45 interviews, one paired item each', async () => {
		const uploads = jsonOf(
			await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'uploadMany',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'existing',
					jobDescriptionId: ws.jobDescriptionId,
				},
				Array.from({ length: 45 }, (_, i) =>
					pdfItem({ candidate: `Invitee ${i}` }, `inv-${i}.pdf`),
				),
			),
		);
		const started = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'startMany', reportId: '={{ $json.reportId }}' },
				uploads.map((u) => ({ json: { reportId: u.reportId } })),
			),
		);
		// Start Many's simplified items (the default): the report's own status, the batch item's state beside it.
		expect(started.every((s) => s.status === 'completed' && s.analysisState === 'succeeded')).toBe(
			true,
		);
		const before = await counters(ws);
		const result = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.reportId }}',
				candidateEmail: '={{ "c" + $itemIndex + "@example.com" }}',
			},
			uploads.map((u) => ({ json: { reportId: u.reportId } })),
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(45);
		expect(result.output[0].map((i) => i.pairedItem)).toEqual(
			Array.from({ length: 45 }, (_, item) => ({ item })),
		);
		out.forEach((o, i) => {
			expect(o.reportId).toBe(uploads[i].reportId);
			expect(o.state).toBe('succeeded');
			expect(o.interviewId).toMatch(/^int_/);
		});
		expect(new Set(out.map((o) => o.batchId)).size).toBe(3);
		const after = await counters(ws);
		expect(
			(after.requests['POST /api/v1/interview-batches'] ?? 0) -
				(before.requests['POST /api/v1/interview-batches'] ?? 0),
		).toBe(3);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(45);
	});

	it('Invite Many reports an item the service could not quote with its errorCode, the others are invited', async () => {
		// An uploaded but not analyzed report cannot be quoted for an interview.
		const pending = jsonOf(
			await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'uploadResume',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'existing',
					jobDescriptionId: ws.jobDescriptionId,
				},
				[pdfItem({ candidate: 'Not analyzed' })],
			),
		)[0];
		const second = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [
				pdfItem({ candidate: 'Analyzed' }),
			]),
		)[0];
		const result = await runNode(
			ws,
			{
				resource: 'interview',
				operation: 'inviteMany',
				reportId: '={{ $json.reportId }}',
				candidateEmail: 'mixed@example.com',
			},
			[{ json: { reportId: pending.reportId } }, { json: { reportId: second.reportId } }],
		);
		const out = jsonOf(result);
		expect(out[0].state).toBe('not_quoted');
		expect(out[0].errorCode).toEqual(expect.any(String));
		expect(out[1].state).toBe('succeeded');
	});
});
