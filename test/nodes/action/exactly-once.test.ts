/**
 * Exactly once per intent: one test per way a charged write could repeat, named after the behaviour, through
 * n8n's engine (n8n-core) against the sandbox over HTTP. A re-run on the same input, and n8n's Retry of a failed
 * execution, are a new run with a new execution id; n8n's Retry On Fail is the same run again.
 */
import type { IDataObject } from 'n8n-workflow';

import { startTestSandbox, useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	totalRequests,
	waitForReportStatus,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let run = 0;
/** A fresh execution id: what a re-run or n8n's Retry of an execution gets. */
const execution = () => ({ executionId: `exactly-once-${Date.now()}-${++run}` });

useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

const route = (c: { requests: Record<string, number> }, r: string) => c.requests[r] ?? 0;
/** Every answer of the route is dropped after the service committed it, for all four attempts of the node. */
const loseAllAnswers = async (method: string, path: string) =>
	await sandbox.control.setFaults({
		rules: [{ method, path, mode: 'commit-then-drop', count: 4 }],
	});

async function uploadedReports(ws: Workspace, n: number, tag: string): Promise<string[]> {
	const result = await runNode(
		ws,
		{
			resource: 'upload',
			operation: 'uploadResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		},
		Array.from({ length: n }, (_, i) => pdfItem({ candidate: `${tag} ${i}` }, `${tag}-${i}.pdf`)),
	);
	return jsonOf(result).map((o) => String(o.reportId));
}

describe('a key names the write, so a repeat by any path charges nothing twice', () => {
	it('Start (Quote Automatically) after a start whose answers were all lost: running again recovers the one attempt', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [reportId] = await uploadedReports(ws, 1, 'lost-start');
		await loseAllAnswers('POST', '/api/v1/analyses');
		const first = await runNode(
			ws,
			{ resource: 'analysis', operation: 'start', reportId },
			[{ json: {} }],
			execution(),
		);
		expect(first.error?.message).toContain('Could not get an answer');
		await sandbox.control.clearFaults();
		const [item] = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'start', reportId },
				[{ json: {} }],
				execution(),
			),
		);
		const after = await counters(ws);
		expect(item).toMatchObject({
			reportId,
			recovered: true,
			recoveredFrom: 'ANALYSIS_ALREADY_STARTED',
		});
		expect(item.attemptId).toMatch(/^att_/);
		expect(after.attemptsCreated).toBe(1);
	});

	it('Start Many after lost answers outputs every started analysis with its attempt, none as not_quoted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 3, 'lost-batch');
		const params = {
			resource: 'analysis',
			operation: 'startMany',
			reportId: '={{ $json.reportId }}',
			simplify: false,
		};
		const items = reportIds.map((reportId) => ({ json: { reportId } }));
		await loseAllAnswers('POST', '/api/v1/analysis-batches');
		const first = await runNode(ws, params, items, execution());
		expect(first.error?.message).toContain('Could not get an answer');
		await sandbox.control.clearFaults();
		for (const id of reportIds) await waitForReportStatus(ws, id);
		const out = jsonOf(await runNode(ws, params, items, execution()));
		const after = await counters(ws);
		expect(out.map((o) => o.reportId)).toEqual(reportIds);
		for (const o of out) {
			expect(o).toMatchObject({ state: 'succeeded', recovered: true, errorCode: null });
			expect(o.attemptId).toMatch(/^att_/);
		}
		expect(after.attemptsCreated).toBe(3);
	});

	it('Analyze Many run again on the same files: every item recovered (no ALREADY_ADMITTED failure), no second report or attempt', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const params = {
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			simplify: false,
		};
		const files = Array.from({ length: 5 }, (_, i) =>
			pdfItem({ candidate: `Again ${i}` }, `again-${i}.pdf`),
		);
		const first = jsonOf(await runNode(ws, params, files, execution()));
		const before = await counters(ws);
		const second = jsonOf(await runNode(ws, params, files, execution()));
		const after = await counters(ws);
		expect(second.map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		expect(second.map((o) => o.attemptId)).toEqual(first.map((o) => o.attemptId));
		for (const o of second) expect(o).toMatchObject({ state: 'succeeded', recovered: true });
		expect(after.reportsCreated - before.reportsCreated).toBe(0);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(0);
		expect(
			route(after, 'POST /api/v1/analysis-batches') -
				route(before, 'POST /api/v1/analysis-batches'),
		).toBe(0);
	});

	it('Invite Many run again: the re-quote changes the fingerprint, yet the invitations are recovered, one email each', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = [
			await completedReport(ws, { candidate: 'Many A' }),
			await completedReport(ws, { candidate: 'Many B' }),
		];
		const params = {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
		};
		const items = reportIds.map((reportId, i) => ({
			json: { reportId, email: `many.${i}@example.com` },
		}));
		const first = jsonOf(await runNode(ws, params, items, execution()));
		const second = jsonOf(await runNode(ws, params, items, execution()));
		await sleep(300);
		const after = await counters(ws);
		const mail = (await sandbox.control.mail(ws.workspaceId)).items;
		expect(second.map((o) => o.interviewId)).toEqual(first.map((o) => o.interviewId));
		for (const o of second)
			expect(o).toMatchObject({ recovered: true, recoveredFrom: 'IDEMPOTENCY_KEY_REUSED' });
		expect(after.interviewsCreated).toBe(2);
		expect(mail).toHaveLength(2);
	});

	it('Reinterview run again: the attempt it created is recovered, no third attempt or email', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Reinterview' });
		const [invited] = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'again@example.com',
			}),
		);
		const params = {
			resource: 'interview',
			operation: 'reinterview',
			interviewId: String(invited.interviewId),
			reportId,
			candidateEmail: 'again@example.com',
		};
		const [first] = jsonOf(await runNode(ws, params, [{ json: {} }], execution()));
		const [second] = jsonOf(await runNode(ws, params, [{ json: {} }], execution()));
		await sleep(300);
		expect(second).toMatchObject({
			interviewId: first.interviewId,
			previousInterviewId: invited.interviewId,
			recovered: true,
		});
		expect((await counters(ws)).interviewsCreated).toBe(2);
		expect((await sandbox.control.mail(ws.workspaceId)).items).toHaveLength(2);
	});

	it('Upload Many then Start Many, run again on the same files: the same reports and attempts, nothing new', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const upload = {
			resource: 'upload',
			operation: 'uploadMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		};
		const files = Array.from({ length: 4 }, (_, i) =>
			pdfItem({ candidate: `Two Step ${i}` }, `two-step-${i}.pdf`),
		);
		const startMany = {
			resource: 'analysis',
			operation: 'startMany',
			reportId: '={{ $json.reportId }}',
		};
		const runBoth = async () => {
			const uploaded = jsonOf(await runNode(ws, upload, files, execution()));
			return jsonOf(
				await runNode(
					ws,
					startMany,
					uploaded.map((o) => ({ json: { reportId: o.reportId } })),
					execution(),
				),
			);
		};
		const first = await runBoth();
		const second = await runBoth();
		expect(second.map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		expect(second.map((o) => o.attemptId)).toEqual(first.map((o) => o.attemptId));
		for (const o of second) expect(o.recovered).toBe(true);
		const after = await counters(ws);
		expect(after.reportsCreated).toBe(4);
		expect(after.attemptsCreated).toBe(4);
	});

	it('following the network-error advice on Analyze Resume (run again on the same input) makes no second report or analysis', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = [pdfItem({ candidate: 'Advice' }, 'advice.pdf')];
		await loseAllAnswers('POST', '/api/v1/analyses');
		const first = await runNode(ws, analyzeParams(ws), file, execution());
		const description = String((first.error as { description?: string } | undefined)?.description);
		expect(description).toContain('run the node again on the same input');
		await sandbox.control.clearFaults();
		const [item] = jsonOf(await runNode(ws, analyzeParams(ws), file, execution()));
		const after = await counters(ws);
		expect(item).toMatchObject({ recovered: true });
		expect(after.reportsCreated).toBe(1);
		expect(after.attemptsCreated).toBe(1);
	});

	it('a user key on Analyze Resume, after lost answers, run again with the same key: one report and one analysis', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const params = analyzeParams(ws, { idempotencyKey: '={{ "app-" + $json.applicationId }}' });
		const file = [pdfItem({ candidate: 'User Key' }, 'user-key.pdf', { applicationId: 'a-17' })];
		await loseAllAnswers('POST', '/api/v1/analyses');
		expect((await runNode(ws, params, file, execution())).error).toBeDefined();
		await sandbox.control.clearFaults();
		const [item] = jsonOf(await runNode(ws, params, file, execution()));
		const after = await counters(ws);
		expect(item.recovered).toBe(true);
		expect(after.reportsCreated).toBe(1);
		expect(after.attemptsCreated).toBe(1);
	});

	it('a fixed user key shared by two items is refused before anything is sent, naming the field', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const before = await counters(ws);
		const result = await runNode(ws, analyzeParams(ws, { idempotencyKey: 'same-for-all' }), [
			pdfItem({ candidate: 'One' }, 'one.pdf'),
			pdfItem({ candidate: 'Two' }, 'two.pdf'),
		]);
		expect(result.error?.message).toMatch(
			/^"Idempotency Key" must be different for each item \[item 2, /,
		);
		expect(totalRequests(await counters(ws)) - totalRequests(before)).toBe(0);
	});

	it('a user key of 121 characters on Analyze Resume leaves no room for its suffix: a validation error, never truncated', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const before = await counters(ws);
		const result = await runNode(ws, analyzeParams(ws, { idempotencyKey: 'k'.repeat(121) }), [
			pdfItem({ candidate: 'Long Key' }),
		]);
		expect(result.error?.message).toMatch(/^"Idempotency Key" must be at most 114 characters/);
		expect(totalRequests(await counters(ws)) - totalRequests(before)).toBe(0);
	});

	it('without Continue On Fail a bad file on item 7 stops the node before items 0 to 6 are charged', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = Array.from({ length: 8 }, (_, i) =>
			pdfItem({ candidate: `Seven ${i}` }, `seven-${i}.pdf`),
		);
		items[7] = {
			json: {},
			binary: {
				data: {
					data: Buffer.from('not a pdf at all'),
					mimeType: 'application/pdf',
					fileName: 'seven-7.pdf',
				},
			},
		};
		const result = await runNode(ws, analyzeParams(ws), items, execution());
		expect(result.error).toBeDefined();
		expect(String(result.error?.message)).not.toContain('Could not get an answer');
		const after = await counters(ws);
		expect(totalRequests(after)).toBe(0);
		expect(after.reportsCreated).toBe(0);
	});

	it("n8n's Retry of an execution that failed after its writes committed (a later node threw): same reports and attempts back", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const files = Array.from({ length: 3 }, (_, i) =>
			pdfItem({ candidate: `Retry ${i}` }, `retry-${i}.pdf`),
		);
		const first = jsonOf(await runNode(ws, analyzeParams(ws), files, execution()));
		const retried = jsonOf(await runNode(ws, analyzeParams(ws), files, execution()));
		const after = await counters(ws);
		expect(retried.map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		expect(retried.map((o) => o.attemptId)).toEqual(first.map((o) => o.attemptId));
		expect(after.reportsCreated).toBe(3);
		expect(after.attemptsCreated).toBe(3);
	});

	it("a recruiter's workflow run four times on the same files (Analyze Many, then Invite) analyzes once and invites once", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const analyze = {
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		};
		const files = Array.from({ length: 3 }, (_, i) =>
			pdfItem({ candidate: `Recruiter ${i}` }, `recruiter-${i}.pdf`),
		);
		for (let time = 0; time < 4; time++) {
			const analyzed = jsonOf(await runNode(ws, analyze, files, execution()));
			const shortlisted = analyzed.map((o, i) => ({
				json: { reportId: o.reportId, email: `short.${i}@example.com` },
			}));
			for (const o of analyzed) await waitForReportStatus(ws, String(o.reportId));
			const invited = await runNode(
				ws,
				{
					resource: 'interview',
					operation: 'invite',
					reportId: '={{ $json.reportId }}',
					candidateEmail: '={{ $json.email }}',
				},
				shortlisted,
				execution(),
			);
			expect(jsonOf(invited).every((o) => typeof o.interviewId === 'string')).toBe(true);
		}
		await sleep(300);
		const after = await counters(ws);
		expect(after.reportsCreated).toBe(3);
		expect(after.attemptsCreated).toBe(3);
		expect(after.interviewsCreated).toBe(3);
		expect((await sandbox.control.mail(ws.workspaceId)).items).toHaveLength(3);
	});
});

describe('recovery and deliberate new attempts', () => {
	it('a private-link invitation recovered after lost answers says its token cannot be shown again and how to get a link', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Private Link' });
		const params = {
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: 'private@example.com',
			delivery: 'privateLink',
		};
		await loseAllAnswers('POST', '/api/v1/interviews');
		expect((await runNode(ws, params, [{ json: {} }], execution())).error).toBeDefined();
		await sandbox.control.clearFaults();
		const [item] = jsonOf(await runNode(ws, params, [{ json: {} }], execution()));
		expect(item).toMatchObject({
			reportId,
			recovered: true,
			invitationToken: null,
			delivery: 'privateLink',
		});
		expect(String(item.invitationTokenUnavailable)).toMatch(
			/cannot show it again.*Reinterview.*Private Link/,
		);
		expect((await counters(ws)).interviewsCreated).toBe(1);
	});

	it('a failed report: running Start again gives the failed attempt back; a New Attempt Label starts exactly one new attempt', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [item] = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [
				pdfItem({ candidate: 'Fails', outcome: 'failed' }),
			]),
		);
		const reportId = String(item.reportId ?? item.id);
		expect(item.status).toBe('failed');
		const again = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'start', reportId },
				[{ json: {} }],
				execution(),
			),
		);
		expect(again[0]).toMatchObject({ recovered: true, status: 'failed' });
		expect((await counters(ws)).attemptsCreated).toBe(1);
		const labelled = {
			resource: 'analysis',
			operation: 'start',
			reportId,
			options: { attemptLabel: 'second-try' },
		};
		const second = jsonOf(await runNode(ws, labelled, [{ json: {} }], execution()));
		expect(second[0].attemptId).not.toBe(item.attemptId);
		expect((await counters(ws)).attemptsCreated).toBe(2);
		await waitForReportStatus(ws, reportId);
		const repeat = jsonOf(await runNode(ws, labelled, [{ json: {} }], execution()));
		expect(repeat[0]).toMatchObject({ recovered: true, attemptId: second[0].attemptId });
		expect((await counters(ws)).attemptsCreated).toBe(2);
	});

	it("EXTERNAL_REFERENCE_CONFLICT under the user's reference with no receipt that ties the file to it: never recovered blindly, the item names the report; another job is refused", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const params = (options: IDataObject) => ({
			resource: 'analysis',
			operation: 'analyzeResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			waitForCompletion: false,
			options: { externalReferenceSource: 'my-ats', externalReferenceId: 'app-900', ...options },
		});
		const file = [pdfItem({ candidate: 'Reference' }, 'reference.pdf')];
		const [first] = jsonOf(await runNode(ws, params({}), file, execution()));
		// Another key for the write (as when the service no longer holds the receipt): the API shows nothing of the
		// report's file, so the node cannot tell a repeat from a corrected file; it names the report, charges nothing.
		const again = await runNode(ws, params({ idempotencyKey: 'receipt-forgotten' }), file, {
			...execution(),
			continueOnFail: true,
		});
		expect(String(jsonOf(again)[0].error)).toContain(`held by report ${String(first.reportId)}`);
		const after = await counters(ws);
		expect(after.reportsCreated).toBe(1);
		expect(after.attemptsCreated).toBe(1);
		// The same reference with another (inline) job is not this write: the conflict stands.
		const other = await runNode(
			ws,
			{
				...params({ idempotencyKey: 'other-job' }),
				jobDescriptionSource: 'text',
				jobDescriptionText: 'Another role entirely',
			},
			file,
			{ ...execution(), continueOnFail: true },
		);
		expect(jsonOf(other)[0].reason).toBe('EXTERNAL_REFERENCE_CONFLICT');
	});

	it('the IDEMPOTENCY_KEY_REUSED advice (New Attempt Label for a separate write) makes one new write, once', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const params = {
			resource: 'upload',
			operation: 'uploadResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		};
		const file = [pdfItem({ candidate: 'Separate' }, 'separate.pdf')];
		const [first] = jsonOf(await runNode(ws, params, file, execution()));
		const withLabel = { ...params, options: { attemptLabel: 'copy-2' } };
		const [second] = jsonOf(await runNode(ws, withLabel, file, execution()));
		const [third] = jsonOf(await runNode(ws, withLabel, file, execution()));
		expect(second.reportId).not.toBe(first.reportId);
		expect(third.reportId).toBe(second.reportId);
		expect((await counters(ws)).reportsCreated).toBe(2);
	});
});

describe('a replayed preparation that has expired', () => {
	it('Upload Resume run again after 25 hours makes one new preparation (replacesExpiredReportId), and the same one on every repeat', async () => {
		// Its own sandbox: the clock is moved forward.
		const own = await startTestSandbox();
		try {
			const ws = await newWorkspace(own.baseUrl);
			const params = {
				resource: 'upload',
				operation: 'uploadResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			};
			const file = [pdfItem({ candidate: 'Expired' }, 'expired.pdf')];
			// The preparation commits, every PUT of the file fails: the run stops with a report and no file.
			await own.control.setFaults({
				rules: [{ method: 'PUT', path: '/_storage', status: 500, rate: 1, mode: 'before' }],
			});
			expect((await runNode(ws, params, file, execution())).error).toBeDefined();
			await own.control.clearFaults();
			await own.control.advanceClock(25 * 3600 * 1000);
			const [renewed] = jsonOf(await runNode(ws, params, file, execution()));
			expect(renewed.uploaded).toBe(true);
			expect(renewed.replacesExpiredReportId).toMatch(/^rpt_/);
			expect(renewed.reportId).not.toBe(renewed.replacesExpiredReportId);
			const [again] = jsonOf(await runNode(ws, params, file, execution()));
			expect(again.reportId).toBe(renewed.reportId);
			expect((await counters(ws)).reportsCreated).toBe(2);
		} finally {
			await own.close();
		}
	});
});

describe('capacity and the bounded batch pipeline', () => {
	it('ACTIVE_ANALYSIS_LIMIT is waited out (capacityWaitSeconds in the output) instead of failing the run', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { activeAnalysisLimit: 1 });
		const files = Array.from({ length: 3 }, (_, i) =>
			pdfItem({ candidate: `Capacity ${i}` }, `capacity-${i}.pdf`),
		);
		const out = jsonOf(
			await runNode(ws, analyzeParams(ws, { concurrency: 3 }), files, execution()),
		);
		expect(out.every((o) => typeof o.attemptId === 'string')).toBe(true);
		expect(out.some((o) => typeof o.capacityWaitSeconds === 'number')).toBe(true);
		expect((await counters(ws)).attemptsCreated).toBe(3);
	});

	it('batch items refused for a stale quote are quoted again and submitted once more in a later batch', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = await uploadedReports(ws, 30, 'stale-batch');
		const before = await counters(ws);
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analysis-batches',
					mode: 'latency',
					rate: 1,
					latencyMs: 400,
				},
			],
		});
		const running = runNode(
			ws,
			{
				resource: 'analysis',
				operation: 'startMany',
				reportId: '={{ $json.reportId }}',
				simplify: false,
			},
			reportIds.map((reportId) => ({ json: { reportId } })),
			execution(),
		);
		// Once both chunks are quoted, the price changes: every quote made so far is stale when its batch is admitted.
		for (;;) {
			const c = await counters(ws);
			if (
				route(c, 'POST /api/v1/analysis-batch-quotes') -
					route(before, 'POST /api/v1/analysis-batch-quotes') >=
				2
			)
				break;
			await sleep(5);
		}
		await sandbox.control.patchWorkspace(ws.workspaceId, { priceVersion: 2 });
		const out = jsonOf(await running);
		const after = await counters(ws);
		expect(out.every((o) => o.state === 'succeeded' && typeof o.attemptId === 'string')).toBe(true);
		expect(out.filter((o) => o.submittedAgain === 1).length).toBeGreaterThan(0);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(30);
		expect(
			route(after, 'POST /api/v1/analysis-batches') -
				route(before, 'POST /api/v1/analysis-batches'),
		).toBeGreaterThan(2);
	});

	it('Analyze Many of 80 files works at most one chunk ahead of the analysis batch being submitted (10 active analyses)', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		// The pending-preparation limit stays high here so that it cannot be what holds the pipeline back.
		await sandbox.control.patchWorkspace(ws.workspaceId, {
			activeAnalysisLimit: 10,
			pendingUploadLimit: 100,
		});
		const params = {
			resource: 'analysis',
			operation: 'analyzeMany',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
			simplify: false,
		};
		const files = Array.from({ length: 80 }, (_, i) =>
			pdfItem({ candidate: `Bounded ${i}` }, `bounded-${i}.pdf`),
		);
		const samples: Array<{ uploads: number; quotes: number; analyses: number; pending: number }> =
			[];
		let done = false;
		const sampler = (async () => {
			while (!done) {
				const c = await counters(ws);
				samples.push({
					uploads: route(c, 'POST /api/v1/upload-batches'),
					quotes: route(c, 'POST /api/v1/analysis-batch-quotes'),
					analyses: route(c, 'POST /api/v1/analysis-batches'),
					pending: c.reportsCreated - c.attemptsCreated,
				});
				await sleep(10);
			}
		})();
		let out: IDataObject[];
		try {
			out = jsonOf(await runNode(ws, params, files, execution()));
		} finally {
			done = true;
			await sampler;
		}
		expect(out.every((o) => o.state === 'succeeded' && typeof o.attemptId === 'string')).toBe(true);
		const after = await counters(ws);
		expect(after.reportsCreated).toBe(80);
		expect(after.attemptsCreated).toBe(80);
		// Uploaded and quoted: the chunk being submitted and at most one more, never the four chunks at once.
		expect(Math.max(...samples.map((s) => s.uploads - s.analyses))).toBeLessThanOrEqual(2);
		expect(Math.max(...samples.map((s) => s.quotes - s.analyses))).toBeLessThanOrEqual(2);
		expect(Math.max(...samples.map((s) => s.pending))).toBeLessThanOrEqual(40);
		const { body } = await apiCall(ws, 'GET', '/api/v1/reports?limit=100');
		expect((body.data as IDataObject).items as IDataObject[]).toHaveLength(80);
	}, 120_000);
});
