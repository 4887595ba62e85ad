/**
 * F1 and F2: charged writes under injected faults, run through n8n's engine (n8n-core) against the
 * sandbox over real HTTP.
 *
 * F1: Analyze Resume over 200 resumes while the sandbox answers 20% of /api/v1 requests 503 before processing,
 *     commits 10% and then drops the connection, and answers 5% 429 with Retry-After. Items the node could not
 *     finish within its transport retries come out as error items (On Error: Continue) and are run again, as a
 *     workflow's error branch would, with the same per-application Idempotency Key. Measured: all 200 analyzed,
 *     no duplicate report or attempt (sandbox counters), none lost, and the retries the run needed.
 * F2: Invite for 50 of those reports under the same faults: exactly one email per candidate in the mail sink.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { FigureBook } from './figures';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	type Counters,
	type Workspace,
} from '../nodes/action/helpers';

const RESUMES = 200;
const INVITES = 50;
const MAX_PASSES = 4;
const FAULT_SEED = 20260701;
const FAULTS = {
	seed: FAULT_SEED,
	rules: [
		{ path: '/api/v1', status: 503, rate: 0.2, mode: 'before' as const },
		{ path: '/api/v1', rate: 0.1, mode: 'commit-then-drop' as const },
		{ path: '/api/v1', status: 429, rate: 0.05, retryAfterSeconds: 1, mode: 'before' as const },
	],
};

const book = new FigureBook(
	'F1-F2',
	'Charged writes under 503, commit-then-drop and 429 (F1, F2)',
	'n8n-core engine + sandbox',
);
let sandbox: TestSandbox;
let ws: Workspace;
/** reportId of each application, filled by F1 and used by F2. */
const reportByApplication = new Map<string, string>();

beforeAll(async () => {
	sandbox = await startTestSandbox({ recordResponses: true });
	ws = await newWorkspace(sandbox.baseUrl);
	// Low capacity limits: the node must wait out ACTIVE_ANALYSIS_LIMIT and PENDING_UPLOAD_LIMIT itself,
	// so these runs pass through the bounded waiting, not through a lifted cap.
	await sandbox.control.patchWorkspace(ws.workspaceId, {
		activeAnalysisLimit: 10,
		pendingUploadLimit: 30,
	});
	book.set('faults', FAULTS as unknown as IDataObject as never);
	book.note(
		'F1 and F2 run with the workspace limits set low: 10 active analyses, 30 pending preparations; the node waits out capacity refusals.',
	);
	book.note(
		'Faults apply to every /api/v1 request (path prefix), not to the storage PUT. Items still failing after the node\'s own four attempts come out as error items (On Error: Continue) and are run again with the same per-application Idempotency Key (a workflow\'s retry branch); "passes" counts those runs.',
	);
});
afterEach(async () => {
	await sandbox.control.clearFaults();
});
afterAll(async () => {
	book.save();
	await sandbox?.close();
});

const delta = (a: Counters, b: Counters, k: keyof Counters) => Number(b[k]) - Number(a[k]);
const route = (c: Counters, r: string) => c.requests?.[r] ?? 0;

/** Injected answers recorded by the sandbox (status and message of its fault hook) since index `from`. */
function injected(from: number, status: number): number {
	return sandbox.responses
		.slice(from)
		.filter(
			(r) =>
				r.status === status &&
				String(
					(r.body as IDataObject | null)?.error &&
						((r.body as { error: IDataObject }).error.message ?? ''),
				).startsWith('Injected fault'),
		).length;
}
const apiResponses = (from: number) =>
	sandbox.responses.slice(from).filter((r) => r.url.startsWith('/api/v1')).length;

function errorsOf(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.filter((i) => i.json.error !== undefined);
}

async function statusOf(reportId: string): Promise<string | undefined> {
	const { body } = await apiCall(ws, 'GET', `/api/v1/reports/${reportId}/status`);
	return (body.data as IDataObject | undefined)?.status as string | undefined;
}

describe('F1: 200 resumes analyzed under injected faults', () => {
	it('every application ends with exactly one report and one attempt; retries used, none lost or duplicated', async () => {
		const applications = Array.from(
			{ length: RESUMES },
			(_, i) => `app-${String(i).padStart(3, '0')}`,
		);
		const before = await counters(ws);
		const responsesBefore = sandbox.responses.length;
		await sandbox.control.setFaults(FAULTS);
		const started = Date.now();

		let pending = applications;
		const passes: IDataObject[] = [];
		const errorSamples: string[] = [];
		const outputs = new Map<string, IDataObject>();
		for (let pass = 1; pass <= MAX_PASSES && pending.length > 0; pass++) {
			const passStart = Date.now();
			const result = await runNode(
				ws,
				analyzeParams(ws, {
					idempotencyKey: '={{ "f1-" + $json.applicationId }}',
					concurrency: 10,
				}),
				pending.map((applicationId) =>
					pdfItem({ candidate: `Candidate ${applicationId}` }, `${applicationId}.pdf`, {
						applicationId,
					}),
				),
				{ continueOnFail: true },
			);
			const out = result.output[0] ?? [];
			expect(out).toHaveLength(pending.length);
			const failedApplications: string[] = [];
			out.forEach((item, position) => {
				const paired = item.pairedItem as { item: number };
				expect(paired.item).toBe(position);
				const applicationId = pending[position];
				if (item.json.error !== undefined) {
					failedApplications.push(applicationId);
					if (errorSamples.length < 8)
						errorSamples.push(
							`${String(item.json.error)} ${String(item.json.description ?? '')}`.slice(0, 240),
						);
				} else outputs.set(applicationId, item.json);
			});
			passes.push({
				pass,
				items: pending.length,
				succeeded: pending.length - failedApplications.length,
				errorItems: errorsOf(out).length,
				ms: Date.now() - passStart,
			});
			pending = failedApplications;
		}
		const elapsedMs = Date.now() - started;
		await sandbox.control.clearFaults();

		// All 200 reached the service: one reportId and one attemptId per application, all distinct.
		const reportIds = [...outputs.values()].map((o) => String(o.reportId));
		const attemptIds = [...outputs.values()].map((o) => String(o.attemptId));
		for (const [applicationId, o] of outputs)
			reportByApplication.set(applicationId, String(o.reportId));

		// The analyses finish (read back without faults): none lost.
		const deadline = Date.now() + 120_000;
		const statuses = new Map<string, string | undefined>();
		for (const id of reportIds) {
			for (;;) {
				const s = await statusOf(id);
				if ((s && s !== 'queued' && s !== 'processing') || Date.now() > deadline) {
					statuses.set(id, s);
					break;
				}
				await sleep(50);
			}
		}
		const completed = [...statuses.values()].filter((s) => s === 'completed').length;

		// Every report the workspace holds (the service's list): exactly the 200, no orphan from a lost answer.
		let listed = 0;
		let cursor: string | null = null;
		do {
			const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
			const { body } = await apiCall(ws, 'GET', `/api/v1/reports?limit=100${q}`);
			const data = body.data as { items: IDataObject[]; nextCursor: string | null };
			listed += data.items.length;
			cursor = data.nextCursor;
		} while (cursor);

		const after = await counters(ws);
		const sent = apiResponses(responsesBefore);
		const figures = {
			resumes: RESUMES,
			passes,
			elapsedMs,
			itemsWithOutput: outputs.size,
			distinctReportIds: new Set(reportIds).size,
			distinctAttemptIds: new Set(attemptIds).size,
			reportsCreated: delta(before, after, 'reportsCreated'),
			preparationsCreated: delta(before, after, 'preparationsCreated'),
			attemptsCreated: delta(before, after, 'attemptsCreated'),
			reportsListed: listed,
			analysesCompleted: completed,
			storagePuts: delta(before, after, 'storagePuts'),
			storageAuthorizationHeaders: after.storageAuthorizationHeaders,
			apiRequestsSent: sent,
			apiRequestsMinimum: RESUMES * 3,
			injected503: injected(responsesBefore, 503),
			injected429: injected(responsesBefore, 429),
			idempotentReplays: delta(before, after, 'idempotentReplays'),
			processedPrepares:
				route(after, 'POST /api/v1/uploads') - route(before, 'POST /api/v1/uploads'),
			processedQuotes:
				route(after, 'POST /api/v1/analysis-quotes') -
				route(before, 'POST /api/v1/analysis-quotes'),
			processedStarts:
				route(after, 'POST /api/v1/analyses') - route(before, 'POST /api/v1/analyses'),
			errorSamples,
		};
		for (const [k, v] of Object.entries(figures)) book.set(k, v as never);

		book.check('every application analyzed (completed)', completed, completed === RESUMES);
		book.check(
			'reports created = 200 (0 duplicates)',
			figures.reportsCreated,
			figures.reportsCreated === RESUMES,
		);
		book.check(
			'attempts created = 200 (0 duplicates)',
			figures.attemptsCreated,
			figures.attemptsCreated === RESUMES,
		);
		book.check('reports listed by the API = 200 (0 orphans)', listed, listed === RESUMES);
		book.check(
			'0 lost: every application has an output with its report',
			outputs.size,
			outputs.size === RESUMES,
		);
		book.check('retries used: more requests sent than the 600 needed', sent, sent > RESUMES * 3);
		book.check(
			'storage PUTs carried no Authorization header',
			after.storageAuthorizationHeaders,
			after.storageAuthorizationHeaders === 0,
		);

		expect(pending).toEqual([]);
		expect(outputs.size).toBe(RESUMES);
		expect(new Set(reportIds).size).toBe(RESUMES);
		expect(new Set(attemptIds).size).toBe(RESUMES);
		for (const id of reportIds) expect(id).toMatch(/^rpt_/);
		for (const id of attemptIds) expect(id).toMatch(/^att_/);
		expect(figures.reportsCreated).toBe(RESUMES);
		expect(figures.preparationsCreated).toBe(RESUMES);
		expect(figures.attemptsCreated).toBe(RESUMES);
		expect(listed).toBe(RESUMES);
		expect(completed).toBe(RESUMES);
		// The faults did reach the node and were retried: injected answers were seen and replays served.
		expect(figures.injected503).toBeGreaterThan(0);
		expect(figures.injected429).toBeGreaterThan(0);
		expect(figures.idempotentReplays).toBeGreaterThan(0);
		expect(sent).toBeGreaterThan(RESUMES * 3);
		expect(after.storageAuthorizationHeaders).toBe(0);
	}, 480_000);
});

describe('F2: 50 invitations under the same faults', () => {
	it('one interview and exactly one email per candidate in the mail sink', async () => {
		expect(reportByApplication.size).toBeGreaterThanOrEqual(INVITES);
		const chosen = [...reportByApplication.entries()].slice(0, INVITES);
		const emailOf = (applicationId: string) => `candidate.${applicationId}@example.com`;
		const before = await counters(ws);
		const mailBefore = (await sandbox.control.mail(ws.workspaceId)).items.length;
		const responsesBefore = sandbox.responses.length;
		await sandbox.control.setFaults(FAULTS);

		let pending = chosen;
		const passes: IDataObject[] = [];
		const invited = new Map<string, IDataObject>();
		const errorSamples: string[] = [];
		for (let pass = 1; pass <= MAX_PASSES && pending.length > 0; pass++) {
			const result = await runNode(
				ws,
				{
					resource: 'interview',
					operation: 'invite',
					spendingLimit: 0,
					reportId: '={{ $json.reportId }}',
					candidateEmail: '={{ $json.email }}',
					options: { idempotencyKey: '={{ "f2-" + $json.applicationId }}', concurrency: 10 },
				},
				pending.map(([applicationId, reportId]) => ({
					json: { applicationId, reportId, email: emailOf(applicationId) },
				})),
				{ continueOnFail: true },
			);
			const out = result.output[0] ?? [];
			expect(out).toHaveLength(pending.length);
			const failed: Array<[string, string]> = [];
			out.forEach((item, position) => {
				if (item.json.error !== undefined) {
					failed.push(pending[position]);
					errorSamples.push(
						`pass ${pass} ${pending[position][0]}: ${String(item.json.error)} ${String(item.json.description ?? '')}`.slice(
							0,
							400,
						),
					);
				} else invited.set(pending[position][0], item.json);
			});
			passes.push({ pass, items: pending.length, succeeded: pending.length - failed.length });
			pending = failed;
		}
		await sandbox.control.clearFaults();
		const sent = apiResponses(responsesBefore);

		// Emails go out asynchronously: wait until each invitation's email is sent, then a little longer for strays.
		const interviewIds = new Set([...invited.values()].map((o) => String(o.interviewId)));
		const deadline = Date.now() + 60_000;
		for (;;) {
			const mail = (await sandbox.control.mail(ws.workspaceId)).items.slice(mailBefore);
			const sentFor = new Set(mail.filter((m) => m.state === 'sent').map((m) => m.interviewId));
			if ([...interviewIds].every((id) => sentFor.has(id)) || Date.now() > deadline) break;
			await sleep(100);
		}
		await sleep(1000);
		const mail = (await sandbox.control.mail(ws.workspaceId)).items.slice(mailBefore);
		const perAddress = new Map<string, number>();
		for (const m of mail) perAddress.set(m.to, (perAddress.get(m.to) ?? 0) + 1);
		const duplicates = [...perAddress.values()].filter((n) => n > 1).length;
		const after = await counters(ws);

		const figures = {
			invitations: INVITES,
			passes,
			interviewsCreated: delta(before, after, 'interviewsCreated'),
			emailsSent: delta(before, after, 'emailsSent'),
			mailSinkMessages: mail.length,
			mailSinkAddresses: perAddress.size,
			addressesWithMoreThanOneEmail: duplicates,
			apiRequestsSent: sent,
			apiRequestsMinimum: INVITES * 2,
			injected503: injected(responsesBefore, 503),
			injected429: injected(responsesBefore, 429),
			idempotentReplays: delta(before, after, 'idempotentReplays'),
			errorSamples,
			tokensInOutput: [...invited.values()].filter(
				(o) => typeof o.invitationToken === 'string' && o.invitationToken !== '',
			).length,
		};
		for (const [k, v] of Object.entries(figures)) book.set(`F2.${k}`, v as never);
		book.check(
			'F2: interviews created = 50',
			figures.interviewsCreated,
			figures.interviewsCreated === INVITES,
		);
		book.check(
			'F2: one email per candidate (0 duplicates in the mail sink)',
			duplicates,
			duplicates === 0 && mail.length === INVITES,
		);
		book.check('F2: retries used', sent, sent > INVITES * 2);

		// Every chosen report has exactly one interview (none lost, none doubled), read back from the API.
		let reportsWithOneInterview = 0;
		for (const [, reportId] of chosen) {
			const { body } = await apiCall(ws, 'GET', `/api/v1/interviews?reportId=${reportId}`);
			if (((body.data as { items: IDataObject[] }).items ?? []).length === 1)
				reportsWithOneInterview++;
		}
		book.set('F2.reportsWithExactlyOneInterview', reportsWithOneInterview);
		book.check(
			'F2: every report has exactly one interview (0 lost, 0 duplicated)',
			reportsWithOneInterview,
			reportsWithOneInterview === INVITES,
		);
		// Every item ends invited: an invitation whose answers were all lost is recovered by the next pass with the
		// same key (F2-a below); a refusal such as IDEMPOTENCY_KEY_REUSED is an item lost, never accepted.
		book.set('F2.itemsNotInvitedAfterAllPasses', pending.length);
		book.check(
			'F2: every candidate ends with an output naming the interview (0 items left refused after the re-runs)',
			`${invited.size} invited, ${pending.length} left${pending.length ? `: ${errorSamples.at(-1) ?? ''}` : ''}`,
			pending.length === 0 && invited.size === INVITES,
		);
		expect(pending).toEqual([]);
		expect(invited.size).toBe(INVITES);
		expect(new Set([...invited.values()].map((o) => o.interviewId)).size).toBe(INVITES);
		expect(figures.interviewsCreated).toBe(INVITES);
		expect(reportsWithOneInterview).toBe(INVITES);
		expect(mail).toHaveLength(INVITES);
		expect(perAddress.size).toBe(INVITES);
		expect(duplicates).toBe(0);
		for (const [applicationId] of chosen) expect(perAddress.get(emailOf(applicationId))).toBe(1);
		expect(figures.emailsSent).toBe(INVITES);
		expect(figures.tokensInOutput).toBe(0);
		expect(sent).toBeGreaterThan(INVITES * 2);
	}, 240_000);

	it('F2-a: an invitation committed while all four answers were lost: a re-run with the same key sends no second email', async () => {
		const reportId = [...reportByApplication.values()][INVITES];
		const before = await counters(ws);
		const mailBefore = (await sandbox.control.mail(ws.workspaceId)).items.length;
		const params = {
			resource: 'interview',
			operation: 'invite',
			spendingLimit: 0,
			reportId,
			candidateEmail: 'lost.answers@example.com',
			options: { idempotencyKey: 'f2a-lost-answers' },
		};
		// Every answer of POST /interviews is dropped after the service committed it (the node tries four times).
		await sandbox.control.setFaults({
			rules: [{ method: 'POST', path: '/api/v1/interviews', mode: 'commit-then-drop', count: 4 }],
		});
		const first = (await runNode(ws, params, [{ json: {} }], { continueOnFail: true })).output[0][0]
			.json;
		await sandbox.control.clearFaults();
		const rerun = (await runNode(ws, params, [{ json: {} }], { continueOnFail: true })).output[0][0]
			.json;
		await sleep(500);
		const after = await counters(ws);
		const mail = (await sandbox.control.mail(ws.workspaceId)).items.slice(mailBefore);
		book.set('F2a.firstRun', {
			code: (first.code as string) ?? null,
			reason: (first.reason as string) ?? null,
			error: String(first.error ?? '').slice(0, 200),
		});
		book.set('F2a.rerun', {
			interviewId: (rerun.interviewId as string) ?? null,
			code: (rerun.code as string) ?? null,
			reason: (rerun.reason as string) ?? null,
			error: String(rerun.error ?? '').slice(0, 240),
		});
		book.set('F2a.interviewsCreated', delta(before, after, 'interviewsCreated'));
		book.set('F2a.emails', mail.length);
		book.check(
			'F2-a: one interview and one email despite four lost answers and a re-run',
			[delta(before, after, 'interviewsCreated'), mail.length],
			delta(before, after, 'interviewsCreated') === 1 && mail.length === 1,
		);
		book.check(
			'F2-a: the re-run with the same key recovers the invitation (expected by the first error text)',
			rerun.interviewId ? 'recovered' : `${String(rerun.code)} ${String(rerun.reason)}`,
			typeof rerun.interviewId === 'string',
		);
		// The first run reports the lost answer honestly (not a success, not a generic crash).
		expect(first.code).toBe('NETWORK_ERROR');
		expect(String(first.description)).toContain('f2a-lost-answers');
		expect(delta(before, after, 'interviewsCreated')).toBe(1);
		expect(mail).toHaveLength(1);
		// The re-run recovers the invitation the first run committed: the same interview, marked recovered.
		const { body } = await apiCall(ws, 'GET', `/api/v1/interviews?reportId=${reportId}`);
		const held = (body.data as { items: IDataObject[] }).items ?? [];
		expect(held).toHaveLength(1);
		expect(rerun.interviewId).toBe(held[0].interviewId ?? held[0].id);
		expect(rerun.recovered).toBe(true);
	});
});
