/**
 * Analysis resource against the sandbox: Analyze Resume end to end (with and without Wait for Completion,
 * each output shape), Get Quote, Start (given fingerprint, automatic quote), Get Quotes and Start Many
 * (batch endpoints), Get Batch.
 */
import type { IDataObject } from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { startTestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	hintsOf,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	waitForReportStatus,
	type Workspace,
} from './helpers';

let ws: Workspace;

useSandboxWorkspace((started) => ({ ws } = started));

/** Upload only (no analysis), through the node; returns the report id. */
async function uploadedReport(
	candidate: string,
	outcome?: 'completed' | 'requires_action' | 'failed',
): Promise<string> {
	const result = await runNode(
		ws,
		{
			resource: 'upload',
			operation: 'uploadResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: ws.jobDescriptionId,
		},
		[pdfItem({ candidate, outcome })],
	);
	const [item] = jsonOf(result);
	expect(item.uploaded).toBe(true);
	return String(item.reportId);
}

describe('Analysis > Analyze Resume', () => {
	it('prepares, uploads, quotes and starts in one step (no wait): one report, one attempt', async () => {
		const before = await counters(ws);
		const result = await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'One Step' })]);
		const [item] = jsonOf(result);
		expect(item.reportId).toMatch(/^rpt_/);
		expect(item.attemptId).toMatch(/^att_/);
		expect(item.uploaded).toBe(true);
		expect(item.statusUrl).toBe(`/api/v1/reports/${item.reportId}/status`);
		expect(item.quote).toEqual(
			expect.objectContaining({ creditUnits: expect.any(Number), creditScale: expect.any(Number) }),
		);
		// The signed storage URL is private: it is used, never output.
		expect(JSON.stringify(item)).not.toContain('/_storage/');
		const after = await counters(ws);
		expect(after.reportsCreated - before.reportsCreated).toBe(1);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
		expect(after.storagePuts - before.storagePuts).toBe(1);
		expect(after.storageAuthorizationHeaders).toBe(0);
		expect(await waitForReportStatus(ws, String(item.reportId))).toBe('completed');
	});

	it('Wait for Completion outputs the report summary once completed', async () => {
		const result = await runNode(
			ws,
			{ ...analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), simplify: false },
			[pdfItem({ candidate: 'Summary Wait', score: 8 })],
		);
		const [item] = jsonOf(result);
		expect(item.status).toBe('completed');
		expect(item.timedOut).toBe(false);
		expect(item.id).toMatch(/^rpt_/);
		expect(item.attemptId).toMatch(/^att_/);
		expect((item.result as IDataObject).score).toBe(8);
		expect(item.jobDescription).toEqual(expect.objectContaining({ id: ws.jobDescriptionId }));
	});

	it('Wait for Completion can output the detailed result', async () => {
		const result = await runNode(
			ws,
			{
				...analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30, waitOutput: 'result' }),
				simplify: false,
			},
			[pdfItem({ candidate: 'Result Wait', score: 6 })],
		);
		const [item] = jsonOf(result);
		expect(item.schemaVersion).toBe(1);
		expect(item.status).toBe('completed');
		const detail = item.result as IDataObject;
		expect(detail.score).toBe(6);
		expect(detail.scoreScale).toEqual({ minimum: 0, maximum: 10 });
		expect(Array.isArray(detail.rubric)).toBe(true);
	});

	it('Wait for Completion can output the simplified result (score, scale, summary, recommendation, limitations)', async () => {
		const result = await runNode(
			ws,
			{
				...analyzeParams(ws, {
					waitForCompletion: true,
					waitTimeout: 30,
					waitOutput: 'simplifiedResult',
				}),
				simplify: false,
			},
			[pdfItem({ candidate: 'Simple Wait', score: 7 })],
		);
		const [item] = jsonOf(result);
		expect(Object.keys(item).sort()).toEqual(
			[
				'attemptId',
				'creditsUsed',
				'humanReviewRecommendation',
				'limitations',
				'reportId',
				'resultRevision',
				'score',
				'scoreScale',
				'status',
				'summary',
				'timedOut',
			].sort(),
		);
		expect(item.score).toBe(7);
		expect(item.scoreScale).toEqual({ minimum: 0, maximum: 10 });
		expect(typeof item.summary).toBe('string');
		expect(typeof item.limitations).toBe('string');
	});

	it('requires_action is output with the human review notice (do not resubmit)', async () => {
		const result = await runNode(
			ws,
			analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
			[pdfItem({ candidate: 'Review Me', outcome: 'requires_action' })],
		);
		const [item] = jsonOf(result);
		expect(item.status).toBe('requires_action');
		expect(hintsOf(result).join('\n')).toContain('human review');
	});

	it('a failed analysis is output with its code and the deliberate-new-attempt notice', async () => {
		const result = await runNode(
			ws,
			analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
			[pdfItem({ candidate: 'Fail Me', outcome: 'failed' })],
		);
		const [item] = jsonOf(result);
		expect(item.status).toBe('failed');
		expect(item.code).toEqual(expect.any(String));
		expect(hintsOf(result).join('\n')).toContain('New Attempt Label');
	});

	it('with its defaults Analyze Resume waits and outputs the score (Wait for Completion is a top-level field, on)', async () => {
		const { waitForCompletion: _omitted, ...defaults } = analyzeParams(ws);
		void _omitted;
		const [item] = jsonOf(
			await runNode(ws, defaults, [pdfItem({ candidate: 'Default Wait', score: 7 })]),
		);
		expect(item).toEqual(
			expect.objectContaining({ candidateName: 'Default Wait', score: 7, status: 'completed' }),
		);
		const field = new RecruitingAnalysis().description.properties.filter(
			(p) =>
				p.name === 'waitForCompletion' &&
				p.displayOptions?.show?.operation?.includes('analyzeResume'),
		);
		expect(field.map((p) => ({ type: p.type, default: p.default }))).toEqual([
			{ type: 'boolean', default: true },
		]);
	});

	it('works with an inline job description text and a DOCX resume, and keeps the external reference', async () => {
		const result = await runNode(
			ws,
			{
				resource: 'analysis',
				operation: 'analyzeResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'text',
				jobDescriptionText: 'Senior TypeScript engineer for data pipelines.',
				waitForCompletion: false,
				options: { externalReferenceSource: 'test-ats', externalReferenceId: 'app-docx-1' },
			},
			[
				{
					json: {},
					binary: {
						data: {
							data: (await import('../../fixtures/resumes')).makeDocx({ candidate: 'Docx Person' }),
							mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
							fileName: 'cv.docx',
						},
					},
				},
			],
		);
		const [item] = jsonOf(result);
		expect(item.mimeType).toBe(
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		);
		expect(await waitForReportStatus(ws, String(item.reportId))).toBe('completed');
		const report = await apiCall(ws, 'GET', `/api/v1/reports/${item.reportId}?include=reference`);
		expect((report.body.data as IDataObject).externalReference).toEqual({
			source: 'test-ats',
			id: 'app-docx-1',
		});
	});

	it('the same Idempotency Key replays instead of creating: one report and one attempt for two runs', async () => {
		const idempotencyKey = `analyze-${Date.now()}`;
		const before = await counters(ws);
		const first = jsonOf(
			await runNode(ws, analyzeParams(ws, { idempotencyKey }), [pdfItem({ candidate: 'Twice' })]),
		);
		const second = jsonOf(
			await runNode(ws, analyzeParams(ws, { idempotencyKey }), [pdfItem({ candidate: 'Twice' })]),
		);
		expect(second[0].reportId).toBe(first[0].reportId);
		expect(second[0].attemptId).toBe(first[0].attemptId);
		const after = await counters(ws);
		expect(after.reportsCreated - before.reportsCreated).toBe(1);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
		expect(after.idempotentReplays - before.idempotentReplays).toBeGreaterThanOrEqual(1);
		expect(second[0].alreadyAdmitted).toBe(true);
	});

	it('Wait for Completion gives up at the timeout and says so (timedOut: true, last status)', async () => {
		// A sandbox whose worker takes 5 s per step: the analysis cannot finish within the 1 s limit.
		const slow = await startTestSandbox({ workerDelayMs: 5000 });
		try {
			const slowWs = await newWorkspace(slow.baseUrl);
			const started = Date.now();
			const result = await runNode(
				slowWs,
				analyzeParams(slowWs, { waitForCompletion: true, waitTimeout: 1 }),
				[pdfItem({ candidate: 'Slow One' })],
			);
			const [item] = jsonOf(result);
			expect(item.timedOut).toBe(true);
			expect(item.reportId).toMatch(/^rpt_/);
			expect(['queued', 'processing']).toContain(item.status);
			expect(Date.now() - started).toBeLessThan(4000);
		} finally {
			await slow.close();
		}
	});
});

describe('Analysis > Get Quote and Start', () => {
	it('Get Quote returns the fingerprint; Start with Quote Automatically off uses it', async () => {
		const reportId = await uploadedReport('Manual Quote');
		const quote = jsonOf(
			await runNode(ws, { resource: 'analysis', operation: 'getQuote', reportId }),
		)[0];
		expect(quote.reportId).toBe(reportId);
		expect(quote.fingerprint).toMatch(/^[a-f0-9]{64}$/);
		const before = await counters(ws);
		const started = jsonOf(
			await runNode(ws, {
				resource: 'analysis',
				operation: 'start',
				reportId,
				quoteAutomatically: false,
				quoteFingerprint: String(quote.fingerprint),
			}),
		)[0];
		expect(started.attemptId).toMatch(/^att_/);
		const after = await counters(ws);
		expect(after.requests['POST /api/v1/analysis-quotes'] ?? 0).toBe(
			before.requests['POST /api/v1/analysis-quotes'] ?? 0,
		);
	});

	it('Start with Quote Automatically quotes first, and can wait for the result', async () => {
		const reportId = await uploadedReport('Auto Quote');
		const before = await counters(ws);
		const result = await runNode(ws, {
			resource: 'analysis',
			operation: 'start',
			reportId,
			options: { waitForCompletion: true, waitTimeout: 30, waitOutput: 'simplifiedResult' },
		});
		const [item] = jsonOf(result);
		expect(item.reportId).toBe(reportId);
		expect(item.status).toBe('completed');
		expect(typeof item.score).toBe('number');
		const after = await counters(ws);
		expect(
			(after.requests['POST /api/v1/analysis-quotes'] ?? 0) -
				(before.requests['POST /api/v1/analysis-quotes'] ?? 0),
		).toBe(1);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
	});

	it('Start with Wait for Completion on two items naming one report: both end with its outcome, one attempt', async () => {
		const reportId = await uploadedReport('One Report Two Items');
		const before = await counters(ws);
		const result = await runNode(
			ws,
			{
				resource: 'analysis',
				operation: 'start',
				reportId,
				options: { waitForCompletion: true, waitTimeout: 30 },
			},
			[{ json: {} }, { json: {} }],
		);
		const items = jsonOf(result);
		expect(items.map((item) => [item.reportId, item.status, item.timedOut])).toEqual([
			[reportId, 'completed', false],
			[reportId, 'completed', false],
		]);
		const after = await counters(ws);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
	});

	// A second Start of an admitted report is the same write again; it used to fail with the API's
	// conflict, it now reads the attempt back and outputs it as recovered, without a second quote or attempt.
	it('Start on an already admitted report recovers the existing attempt (recovered: true), no second attempt', async () => {
		const reportId = await uploadedReport('Admitted');
		const [firstItem] = jsonOf(
			await runNode(ws, { resource: 'analysis', operation: 'start', reportId }),
		);
		const before = await counters(ws);
		const result = await runNode(ws, { resource: 'analysis', operation: 'start', reportId });
		const [item] = jsonOf(result);
		const after = await counters(ws);
		expect(item).toMatchObject({
			reportId,
			attemptId: firstItem.attemptId,
			recovered: true,
			recoveredFrom: 'ANALYSIS_ALREADY_STARTED',
		});
		expect(after.attemptsCreated - before.attemptsCreated).toBe(0);
		expect(
			(after.requests['POST /api/v1/analyses'] ?? 0) -
				(before.requests['POST /api/v1/analyses'] ?? 0),
		).toBe(0);
		expect(result.output[0][0].pairedItem).toEqual({ item: 0 });
	});
});

describe('Analysis > batch operations', () => {
	it('Get Quotes quotes every input item with one batch request per 20 items', async () => {
		const reports = [
			await uploadedReport('Q1'),
			await uploadedReport('Q2'),
			await uploadedReport('Q3'),
		];
		const before = await counters(ws);
		const result = await runNode(
			ws,
			{ resource: 'analysis', operation: 'getQuotes', reportId: '={{ $json.reportId }}' },
			reports.map((reportId) => ({ json: { reportId } })),
		);
		const out = jsonOf(result);
		expect(out.map((o) => o.reportId)).toEqual(reports);
		for (const o of out) {
			expect((o.quote as IDataObject).fingerprint).toMatch(/^[a-f0-9]{64}$/);
			expect(o.errorCode).toBeNull();
		}
		expect(result.output[0].map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		const after = await counters(ws);
		expect(
			(after.requests['POST /api/v1/analysis-batch-quotes'] ?? 0) -
				(before.requests['POST /api/v1/analysis-batch-quotes'] ?? 0),
		).toBe(1);
	});

	it('Start Many runs 45 items as three analysis batches (20 + 20 + 5) and outputs one paired item each', async () => {
		// 45 prepared uploads, made through Upload Many (three upload batches).
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
					pdfItem({ candidate: `Batch Person ${i}` }, `batch-${i}.pdf`),
				),
			),
		);
		expect(uploads.every((u) => u.uploaded === true)).toBe(true);

		const before = await counters(ws);
		const result = await runNode(
			ws,
			{
				resource: 'analysis',
				operation: 'startMany',
				reportId: '={{ $json.reportId }}',
				simplify: false,
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
			expect(o.attemptId).toMatch(/^att_/);
			expect(o.batchId).toMatch(/^bat_/);
		});
		expect(new Set(out.map((o) => o.batchId)).size).toBe(3);
		const after = await counters(ws);
		const delta = (route: string) => (after.requests[route] ?? 0) - (before.requests[route] ?? 0);
		expect(delta('POST /api/v1/analysis-batches')).toBe(3);
		expect(delta('POST /api/v1/analysis-batch-quotes')).toBe(3);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(45);

		// Include Report Summary: the summaries are final once the batch has completed.
		const withReports = jsonOf(
			await runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'startMany',
					reportId: '={{ $json.reportId }}',
					options: { includeReport: true },
					simplify: false,
				},
				[await uploadedReport('Summary In Batch')].map((reportId) => ({ json: { reportId } })),
			),
		);
		expect(withReports[0].state).toBe('succeeded');
		expect((withReports[0].report as IDataObject).status).toBe('completed');
		expect((withReports[0].report as IDataObject).id).toBe(withReports[0].reportId);

		const batch = jsonOf(
			await runNode(ws, {
				resource: 'analysis',
				operation: 'getBatch',
				batchId: String(out[0].batchId),
			}),
		)[0];
		expect(batch.id).toBe(out[0].batchId);
		expect(batch.kind).toBe('analyses');
		expect(batch.status).toBe('completed');
		expect(batch.items as IDataObject[]).toHaveLength(20);
	});
});
