/**
 * "Recovered" always means the same write, and a re-run finishes what a replayed batch refused
 * (docs/idempotency.md): a recovered resource is output as a success only when it is the write the item asked for;
 * items a batch refused without charging them are submitted again once the cause is fixed, the others never.
 * Through n8n's engine (n8n-core) against the sandbox over HTTP; every run is a new execution, as a re-run is.
 * The per-file identity of batches is in exactly-once-per-file.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import type { InputItem } from '../../helpers/n8n-engine';
import {
	apiCall,
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let run = 0;
/** A fresh execution id: what a re-run of the workflow gets. */
const execution = () => ({ executionId: `recovery-verifies-${Date.now()}-${++run}` });

useTestSandbox((started) => (sandbox = started));

/** Charged writes of the workspace: reports, analyses, interviews (counters) and emails (mail sink, once sent). */
async function writes(
	ws: Workspace,
): Promise<{ reports: number; attempts: number; interviews: number; emails: number }> {
	const until = Date.now() + 15_000;
	for (;;) {
		const { body } = await apiCall(ws, 'GET', '/api/v1/interviews?limit=100');
		const items = ((body.data as IDataObject | undefined)?.items ?? []) as IDataObject[];
		if (!items.some((i) => i.emailDelivery === 'queued')) break;
		if (Date.now() > until) throw new Error('emails still queued in the sandbox');
		await sleep(50);
	}
	const c = await counters(ws);
	const emails = (await sandbox.control.mail(ws.workspaceId)).items.length;
	return {
		reports: c.reportsCreated,
		attempts: c.attemptsCreated,
		interviews: c.interviewsCreated,
		emails,
	};
}

/** What an item says, error and description together (Continue On Fail puts both in its json). */
const said = (o: IDataObject) => `${String(o.error ?? '')} ${String(o.description ?? '')}`;

async function uploadedReports(ws: Workspace, n: number, tag: string): Promise<string[]> {
	const result = await runNode(
		ws,
		{
			resource: 'upload',
			operation: 'uploadMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		},
		Array.from({ length: n }, (_, i) => pdfItem({ candidate: `${tag} ${i}` }, `${tag}-${i}.pdf`)),
		execution(),
	);
	return jsonOf(result).map((o) => String(o.reportId));
}

describe('recovery verifies that it is the same write', () => {
	it('Analysis > Start with the same user Idempotency Key on a different report: the item fails, never recovered for an analysis that never started', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [first, second] = await uploadedReports(ws, 2, 'same-key');
		const start = (reportId: string) => ({
			resource: 'analysis',
			operation: 'start',
			reportId,
			options: { idempotencyKey: 'application-77' },
		});
		const [started] = jsonOf(await runNode(ws, start(first), [{ json: {} }], execution()));
		expect(started).toMatchObject({ reportId: first, attemptId: expect.stringMatching(/^att_/) });
		const [item] = jsonOf(
			await runNode(ws, start(second), [{ json: {} }], { ...execution(), continueOnFail: true }),
		);
		expect(item.recovered).not.toBe(true);
		expect(item.error).toEqual(expect.any(String));
		expect(said(item)).toMatch(/Idempotency Key/);
		const { body } = await apiCall(ws, 'GET', `/api/v1/reports/${second}/status`);
		expect((body.data as IDataObject).attemptId ?? null).toBeNull();
		expect(await writes(ws)).toEqual({ reports: 2, attempts: 1, interviews: 0, emails: 0 });
	});

	it('Invite with a user key, then the address corrected and run again: no success for the old invitation; the error says what exists and that Reinterview reaches the corrected address', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Corrected Address' });
		const invite = (candidateEmail: string) => ({
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail,
			options: { idempotencyKey: 'application-88' },
		});
		const [first] = jsonOf(
			await runNode(ws, invite('old.address@example.com'), [{ json: {} }], execution()),
		);
		const interviewId = String(first.interviewId);
		expect(interviewId).toMatch(/^int_/);
		const [item] = jsonOf(
			await runNode(ws, invite('corrected.address@example.com'), [{ json: {} }], {
				...execution(),
				continueOnFail: true,
			}),
		);
		expect(item.recovered).not.toBe(true);
		expect(item.error).toEqual(expect.any(String));
		expect(said(item)).toMatch(new RegExp(`${interviewId}|old\\.address@example\\.com`));
		expect(said(item)).toMatch(/Reinterview/);
		expect(await writes(ws)).toEqual({ reports: 1, attempts: 1, interviews: 1, emails: 1 });
		const mail = (await sandbox.control.mail(ws.workspaceId)).items;
		expect(mail.map((m) => m.to)).toEqual(['old.address@example.com']);
	});

	it('an email invitation whose read-back finds a private-link invitation of the report: the item fails saying so, never recovered as its email invitation', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = [
			await completedReport(ws, { candidate: 'Other Delivery A' }),
			await completedReport(ws, { candidate: 'Other Delivery B' }),
		];
		// Report B already has a private-link invitation (Delivery "Private Link", another workflow).
		const [linked] = jsonOf(
			await runNode(
				ws,
				{
					resource: 'interview',
					operation: 'invite',
					reportId: reportIds[1],
					candidateEmail: 'other.b@example.com',
					delivery: 'privateLink',
				},
				[{ json: {} }],
				execution(),
			),
		);
		expect(linked).toMatchObject({ delivery: 'privateLink', emailDelivery: 'not_requested' });
		const params = {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
		};
		const items = reportIds.map((reportId, i) => ({
			json: { reportId, email: `other.${'ab'[i]}@example.com` },
		}));
		const first = jsonOf(
			await runNode(ws, params, items, { ...execution(), continueOnFail: true }),
		);
		expect(first[0]).toMatchObject({ state: 'succeeded' });
		expect(first[1]).toMatchObject({
			state: 'failed',
			errorCode: 'INTERVIEW_NOT_ELIGIBLE',
			existingInterviewId: linked.interviewId,
		});
		// The re-run's batch answers IDEMPOTENCY_KEY_REUSED: each item's invitation is read back from the report.
		const second = jsonOf(
			await runNode(ws, params, items, { ...execution(), continueOnFail: true }),
		);
		expect(second[0]).toMatchObject({ interviewId: first[0].interviewId, recovered: true });
		expect(second[1].recovered).not.toBe(true);
		expect(second[1].delivery).toBeUndefined();
		expect(String(second[1].error)).toMatch(
			/^An invitation exists .*, but it is not the one asked for/,
		);
		expect(said(second[1])).toContain(
			`Interview ${String(linked.interviewId)} exists, delivered by private link; this item asks for report ${reportIds[1]} by email.`,
		);
		expect(await writes(ws)).toEqual({ reports: 2, attempts: 2, interviews: 2, emails: 1 });
		const mail = (await sandbox.control.mail(ws.workspaceId)).items;
		expect(mail.map((m) => m.to)).toEqual(['other.a@example.com']);
	});

	it('a workflow Invite → Reinterview run twice: exactly 2 interviews and 2 emails; the second run gives both back', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Invite Then Reinterview' });
		const workflow = async () => {
			const [invited] = jsonOf(
				await runNode(
					ws,
					{
						resource: 'interview',
						operation: 'invite',
						reportId,
						candidateEmail: 'twice@example.com',
					},
					[{ json: {} }],
					execution(),
				),
			);
			const reinterview = {
				resource: 'interview',
				operation: 'reinterview',
				interviewId: String(invited.interviewId),
				reportId,
				candidateEmail: 'twice@example.com',
			};
			const [again] = jsonOf(await runNode(ws, reinterview, [{ json: {} }], execution()));
			return { invited, again };
		};
		const first = await workflow();
		expect(first.again.previousInterviewId).toBe(first.invited.interviewId);
		const second = await workflow();
		expect(second.invited.interviewId).toBe(first.invited.interviewId);
		expect(second.again.interviewId).toBe(first.again.interviewId);
		expect(await writes(ws)).toEqual({ reports: 1, attempts: 1, interviews: 2, emails: 2 });
	});
});

describe('one key per write in the workspace, whatever the endpoint (spec "Endpoints / Conventions")', () => {
	it('the application ID as Idempotency Key on every node of Upload Resume → Start → Invite: each write made once, and a re-run gives each back', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const options = { idempotencyKey: '={{ $json.applicationId }}' };
		const input = [pdfItem({ candidate: 'One Key' }, 'one-key.pdf', { applicationId: 'app-4711' })];
		const upload = {
			resource: 'upload',
			operation: 'uploadResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			options,
		};
		const start = {
			resource: 'analysis',
			operation: 'start',
			reportId: '={{ $json.reportId }}',
			options: { ...options, waitForCompletion: true, waitTimeout: 30 },
		};
		const invite = {
			resource: 'interview',
			operation: 'invite',
			reportId: '={{ $json.reportId }}',
			candidateEmail: 'one.key@example.com',
			options,
		};
		const workflow = async () => {
			const [uploaded] = jsonOf(await runNode(ws, upload, input, execution()));
			const [started] = jsonOf(
				await runNode(
					ws,
					start,
					[{ json: { reportId: uploaded.reportId, applicationId: 'app-4711' } }],
					execution(),
				),
			);
			const [invited] = jsonOf(
				await runNode(
					ws,
					invite,
					[{ json: { reportId: uploaded.reportId, applicationId: 'app-4711' } }],
					execution(),
				),
			);
			return {
				reportId: uploaded.reportId,
				attemptId: started.attemptId,
				status: started.status,
				interviewId: invited.interviewId,
			};
		};
		const first = await workflow();
		expect(first).toMatchObject({
			reportId: expect.stringMatching(/^rpt_/),
			attemptId: expect.stringMatching(/^att_/),
			status: 'completed',
			interviewId: expect.stringMatching(/^int_/),
		});
		expect(await workflow()).toEqual(first);
		expect(await writes(ws)).toEqual({ reports: 1, attempts: 1, interviews: 1, emails: 1 });
	});
});

describe('a re-run finishes what a replayed batch refused, and charges nothing twice', () => {
	/**
	 * The allowance is topped up by a person, seconds later at least. The node knows an earlier run's batch answered
	 * again from its receipt by the API's own times (engine/batch.ts isReplayedBatch: created more than a second
	 * before the second its answer's Date names, so proven for a batch over two seconds old).
	 */
	const toppedUp = async (ws: Workspace, allowance: IDataObject) => {
		await sleep(2500);
		await sandbox.control.patchWorkspace(ws.workspaceId, allowance);
	};
	const startMany: INodeParameters = {
		resource: 'analysis',
		operation: 'startMany',
		reportId: '={{ $json.reportId }}',
		simplify: false,
	};

	it('Start Many after INSUFFICIENT_ALLOWANCE, allowance topped up, run again: the refused items are submitted again (submittedAgainAfterBatch), the analysed one not charged again', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 3, 'allowance');
		const items = reportIds.map((reportId) => ({ json: { reportId } }));
		// The first report is analysed already; the allowance is then used up, so the batch of the other two is refused whole.
		const [analysed] = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'start', reportId: reportIds[0] },
				[{ json: {} }],
				execution(),
			),
		);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 0 });
		const first = jsonOf(await runNode(ws, startMany, items, execution()));
		expect(first[0]).toMatchObject({ attemptId: analysed.attemptId, recovered: true });
		expect(first.slice(1).map((o) => [o.state, o.errorCode])).toEqual([
			['failed', 'INSUFFICIENT_ALLOWANCE'],
			['failed', 'INSUFFICIENT_ALLOWANCE'],
		]);
		const batchId = String(first[1].batchId);
		expect(batchId).toMatch(/^bat_/);
		await toppedUp(ws, { analysisAllowance: 10 });
		const second = jsonOf(await runNode(ws, startMany, items, execution()));
		expect(second.map((o) => o.reportId)).toEqual(reportIds);
		expect(second[0]).toMatchObject({ attemptId: analysed.attemptId, recovered: true });
		expect(second[0].submittedAgainAfterBatch).toBeUndefined();
		for (const o of second.slice(1)) {
			expect(o).toMatchObject({
				state: 'succeeded',
				errorCode: null,
				submittedAgainAfterBatch: batchId,
			});
			expect(String(o.attemptId)).toMatch(/^att_/);
			// The refusal's advice to run again does not stay on the item the later batch admitted.
			expect(o.hint).toBeUndefined();
		}
		expect(await writes(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0, emails: 0 });
		const third = jsonOf(await runNode(ws, startMany, items, execution()));
		expect(third.map((o) => o.attemptId)).toEqual(second.map((o) => o.attemptId));
		expect(await writes(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0, emails: 0 });
	});

	it('Analyze Many of 25 files whose items 21 to 25 were refused (allowance), topped up and run again: those 5 analysed, the first 20 not charged again', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 20 });
		const params = {
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			simplify: false,
		};
		const files: InputItem[] = Array.from({ length: 25 }, (_, i) =>
			pdfItem({ candidate: `Twenty Five ${i}` }, `twenty-five-${i}.pdf`),
		);
		const first = jsonOf(await runNode(ws, params, files, execution()));
		expect(first.slice(0, 20).every((o) => o.state === 'succeeded')).toBe(true);
		expect(first.slice(20).map((o) => o.errorCode)).toEqual(
			Array(5).fill('INSUFFICIENT_ALLOWANCE'),
		);
		const refusedIn = String(first[20].batchId);
		await toppedUp(ws, { analysisAllowance: 100 });
		const second = jsonOf(await runNode(ws, params, files, execution()));
		expect(second.slice(0, 20).map((o) => o.attemptId)).toEqual(
			first.slice(0, 20).map((o) => o.attemptId),
		);
		for (const o of second.slice(20)) {
			expect(o).toMatchObject({
				state: 'succeeded',
				errorCode: null,
				submittedAgainAfterBatch: refusedIn,
			});
			expect(String(o.attemptId)).toMatch(/^att_/);
		}
		expect(second.slice(20).map((o) => o.reportId)).toEqual(first.slice(20).map((o) => o.reportId));
		expect(await writes(ws)).toEqual({ reports: 25, attempts: 25, interviews: 0, emails: 0 });
	}, 120_000);

	it("Invite Many's candidate refused for the interview allowance, invited on a re-run once the allowance is topped up; the other not invited again", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = [
			await completedReport(ws, { candidate: 'Many Refused A' }),
			await completedReport(ws, { candidate: 'Many Refused B' }),
		];
		await sandbox.control.patchWorkspace(ws.workspaceId, { interviewAllowance: 1 });
		const params = {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
		};
		const items = reportIds.map((reportId, i) => ({
			json: { reportId, email: `refused.${i}@example.com` },
		}));
		const first = jsonOf(await runNode(ws, params, items, execution()));
		expect(first.map((o) => o.errorCode)).toEqual([null, 'INSUFFICIENT_ALLOWANCE']);
		await toppedUp(ws, { interviewAllowance: 10 });
		const second = jsonOf(
			await runNode(ws, params, items, { ...execution(), continueOnFail: true }),
		);
		expect(second[0]).toMatchObject({ interviewId: first[0].interviewId, recovered: true });
		// The re-quoted batch answers IDEMPOTENCY_KEY_REUSED (the earlier batch's id is not given): the refused item goes again.
		expect(second[1]).toMatchObject({
			state: 'succeeded',
			errorCode: null,
			submittedAgainAfterRefusal: true,
		});
		expect(String(second[1].interviewId)).toMatch(/^int_/);
		expect(await writes(ws)).toEqual({ reports: 2, attempts: 2, interviews: 2, emails: 2 });
		const mail = (await sandbox.control.mail(ws.workspaceId)).items;
		expect(mail.map((m) => m.to).sort()).toEqual([
			'refused.0@example.com',
			'refused.1@example.com',
		]);
	});
	it('Start Many with a file the service cannot read (INVALID_UPLOAD): the item says a re-run does not change it, and a re-run does not submit it again', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// A preparation whose stored bytes are not the declared PDF (storage keeps any bytes; admission reads them).
		const garbage = Buffer.from('these bytes are not a PDF');
		const prepared = await apiCall(
			ws,
			'POST',
			'/api/v1/uploads',
			{
				fileName: 'unreadable.pdf',
				fileSize: garbage.length,
				mimeType: 'application/pdf',
				jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
			},
			{ 'idempotency-key': `final-refusal-${Date.now()}` },
		);
		const { reportId, upload } = prepared.body.data as {
			reportId: string;
			upload: { url: string };
		};
		expect(
			(
				await fetch(upload.url, {
					method: 'PUT',
					headers: { 'content-type': 'application/pdf' },
					body: garbage,
				})
			).status,
		).toBe(200);
		const [first] = jsonOf(await runNode(ws, startMany, [{ json: { reportId } }], execution()));
		expect(first).toMatchObject({
			state: 'failed',
			errorCode: 'INVALID_UPLOAD',
			batchId: expect.stringMatching(/^bat_/),
		});
		expect(String(first.hint)).toMatch(/Running again does not change this item/);
		await sleep(2000);
		const [second] = jsonOf(await runNode(ws, startMany, [{ json: { reportId } }], execution()));
		// The earlier run's batch is answered again; the item is not submitted in a new batch.
		expect(second).toMatchObject({
			state: 'failed',
			errorCode: 'INVALID_UPLOAD',
			batchId: first.batchId,
			hint: first.hint,
		});
		expect(second.submittedAgainAfterBatch).toBeUndefined();
		expect(await writes(ws)).toEqual({ reports: 1, attempts: 0, interviews: 0, emails: 0 });
	});

	it('Start Many whose recovery of a started report cannot read it (a key without reports:read): that item fails, named; the other item is started, charged once', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 2, 'unreadable-recovery');
		await runNode(
			ws,
			{ resource: 'analysis', operation: 'start', reportId: reportIds[0] },
			[{ json: {} }],
			execution(),
		);
		const { apiKey } = await sandbox.control.createKey(ws.workspaceId, {
			scopes: ['analyses:write'],
		});
		const out = jsonOf(
			await runNode(
				{ ...ws, apiKey },
				startMany,
				reportIds.map((reportId) => ({ json: { reportId } })),
				{ ...execution(), continueOnFail: true },
			),
		);
		expect(String(out[0].error)).toContain('reports:read scope. [item 1]');
		expect(out[0].attemptId).toBeUndefined();
		expect(out[1]).toMatchObject({ reportId: reportIds[1], state: 'succeeded' });
		expect(String(out[1].attemptId)).toMatch(/^att_/);
		expect(await writes(ws)).toEqual({ reports: 2, attempts: 2, interviews: 0, emails: 0 });
	});
});
