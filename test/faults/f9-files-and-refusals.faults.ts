/**
 * F9 (files and refusals): what a recruiter's files and allowance do over days, in a real n8n (our tarball installed
 * as a community package; 2.x, and 1.x where the fault suite's configuration selects it). One sandbox workspace;
 * each step one run of a workflow (docs/idempotency.md, "What makes a file the same", "Recovery checks the file",
 * "What a re-run does with refused items"):
 *
 *   1  two resumes analysed (Analyze Many), then the same two downloaded again under other names: nothing new;
 *   2  a scan that fails (unreadable) under the application ID; the re-scan under the same ID fails before any
 *      charge naming the failed report; the re-scan without a reference of the user's is analysed;
 *   3  the analysis allowance exhausted for a whole batch, topped up, run again; the same for Invite Many, with a
 *      price change between the runs;
 *   4  files prepared (Upload Many) and left 25 hours (past the 24-hour preparation lifetime and the strict
 *      profile's receipt lifetime): Analyze Many renews each preparation once; run again: nothing new.
 *
 * Measured after each run: the sandbox counters (reports, analysis attempts, interviews), its mail sink, and the
 * output of our node: every item that is not refused names its resource (report and attempt, or interview), which
 * the sandbox holds.
 */
import { FigureBook } from './figures';
import { caseWorkspace, formatWrites, type CaseWorkspace, type InputItem } from './f8-harness';
import {
	analyses,
	analysisResource,
	byId,
	interviewResource,
	listAll,
	NONE,
	recruiterCredential,
	RecruiterSteps,
	step as f9Step,
	STEP_TIMEOUT,
	type StepSpec,
} from './f9-harness';
import { makePdf } from '../fixtures/resumes';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-files' : `F9-files-n8n${line}`,
	`Files and refusals over days, in a real n8n (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);

let env: RealN8n;
let w: CaseWorkspace;
let steps: RecruiterSteps;

/** A resume: the same bytes every time for the same candidate and outcome, under the name given. */
const resume = (
	candidate: string,
	fileName: string,
	outcome: 'completed' | 'failed' = 'completed',
): InputItem => ({
	json: { fileName, applicationId: `app-${candidate}` },
	pdf: makePdf({ candidate: `F9 files ${candidate}`, outcome, score: 6 }),
});

const ANALYZE = 'Analyze Many';
const uploadResource = (o: Record<string, unknown>) =>
	typeof o.reportId === 'string' ? `${o.reportId}:${String(o.attemptId ?? null)}` : '';
/** One run of the workflow `kind` on `items`, measured, recorded and asserted as `spec` (f9-harness.ts step). */
const step = async (spec: StepSpec, kind: string, items: InputItem[]) =>
	await f9Step(steps, spec, kind, items);
/** Reports of the whole-refusal step, by item, for Invite Many. */
let refusedReports: string[] = [];

beforeAll(async () => {
	book.note(
		'One workspace; each row is one run of a workflow. "new writes" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) after the run minus before; "asked" is what the step asks for. "items with resource" counts output items naming a report:attempt or interview the sandbox holds; refused items (errorCode, no resource) and failed items (error) are counted apart.',
	);
	env = await bootRealN8n('faults-f9-files');
	w = await caseWorkspace(env.sandbox.baseUrl);
	const credential = await recruiterCredential(env, w, 'F9 files recruiter');
	steps = new RecruiterSteps({ env, w, credential, book, name: 'F9 files' });
	const files = {
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: byId(w.ws.jobDescriptionId),
	};
	const analyzeMany = {
		resource: 'analysis',
		operation: 'analyzeMany',
		...files,
		spendingLimit: 0,
		options: {},
	};
	const create = async (
		kind: string,
		name: string,
		node: string,
		parameters: Record<string, unknown>,
		resourceOf = analysisResource,
	) =>
		await steps.create(
			kind,
			name,
			[{ name: node, parameters, onError: 'continueRegularOutput' }],
			resourceOf,
		);
	await create('analyze', 'analyze', ANALYZE, analyzeMany);
	await create('byApplication', 'by-application', ANALYZE, {
		...analyzeMany,
		options: {
			externalReferenceSource: 'my-ats',
			externalReferenceId: '={{ $json.applicationId }}',
		},
	});
	await create(
		'upload',
		'upload',
		'Upload Many',
		{
			resource: 'upload',
			operation: 'uploadMany',
			...files,
			options: {},
		},
		uploadResource,
	);
	await create(
		'invite',
		'invite',
		'Invite Many',
		{
			resource: 'interview',
			operation: 'inviteMany',
			spendingLimit: 0,
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
			options: {},
		},
		interviewResource,
	);
}, 420_000);

afterAll(async () => {
	book.table('steps', steps?.rows ?? []);
	book.set('totals (sandbox)', w ? formatWrites(await w.writes()) : 'not measured');
	book.set('totals (asked)', formatWrites(steps?.expectedTotal ?? NONE));
	book.save();
	await env?.close();
}, 120_000);

/** A person changes the allowance, seconds after the run (a replayed batch is told by its creation time). */
const later = async () => await new Promise((resolve) => setTimeout(resolve, 2000));

describe('F9: files and refusals over days', () => {
	const two = [resume('a', 'resume.pdf'), resume('b', 'cv.pdf')];

	it(
		'1a two resumes analysed: 2 reports, 2 analyses',
		async () => {
			await step(
				{ id: '1a', what: 'two resumes analysed', asks: analyses(2), resources: 2 },
				'analyze',
				two,
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'1b the same two files downloaded again as "resume (1).pdf" and "download.pdf": nothing new, each item says sameFileAsBefore',
		async () => {
			const renamed = two.map((item, i) => ({
				...item,
				json: { ...item.json, fileName: ['resume (1).pdf', 'download.pdf'][i] },
			}));
			const { output } = await step(
				{ id: '1b', what: 'the same two files under other names', asks: NONE, resources: 2 },
				'analyze',
				renamed,
			);
			expect(output.map((o) => o.sameFileAsBefore)).toEqual([true, true]);
		},
		STEP_TIMEOUT,
	);

	const scan = resume('c', 'scan.pdf', 'failed');
	const rescan = resume('c', 'scan.pdf');
	let failedReport = '';

	it(
		'2a a scan the service cannot read, under the application ID: 1 report, 1 (failed) analysis',
		async () => {
			const { output } = await step(
				{ id: '2a', what: 'an unreadable scan', asks: analyses(1), resources: 1 },
				'byApplication',
				[scan],
			);
			failedReport = String(output[0]?.reportId);
		},
		STEP_TIMEOUT,
	);

	it(
		'2b the re-scan under the same application ID: nothing charged, the item names the failed report and says to use another reference ID',
		async () => {
			const { output } = await step(
				{ id: '2b', what: 'the re-scan, same application ID', asks: NONE, resources: 0, failed: 1 },
				'byApplication',
				[rescan],
			);
			expect(JSON.stringify(output[0])).toContain(`held by report ${failedReport}`);
		},
		STEP_TIMEOUT,
	);

	it(
		"2c the re-scan without a reference of the user's: the file it carries now is analysed (1 report, 1 analysis)",
		async () => {
			await step(
				{
					id: '2c',
					what: "the re-scan, the node's file reference",
					asks: analyses(1),
					resources: 1,
				},
				'analyze',
				[rescan],
			);
		},
		STEP_TIMEOUT,
	);

	const three = ['d', 'e', 'f'].map((c) => resume(c, `resume-${c}.pdf`));

	it(
		'3a three new files with no analysis allowance left: 3 reports, every analysis refused',
		async () => {
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 0 });
			const { output } = await step(
				{
					id: '3a',
					what: 'a whole batch refused for the allowance',
					asks: { reports: 3, attempts: 0, interviews: 0, emails: 0 },
					resources: 0,
					refused: 3,
				},
				'analyze',
				three,
			);
			refusedReports = output.map((o) => String(o.reportId));
		},
		STEP_TIMEOUT,
	);

	it(
		'3b the allowance topped up, run again: the 3 analysed on their reports',
		async () => {
			await later();
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 1000 });
			const { output } = await step(
				{
					id: '3b',
					what: 'allowance topped up, run again',
					asks: { reports: 0, attempts: 3, interviews: 0, emails: 0 },
					resources: 3,
				},
				'analyze',
				three,
			);
			expect(output.map((o) => o.reportId)).toEqual(refusedReports);
		},
		STEP_TIMEOUT,
	);

	const candidates = () =>
		refusedReports.map((reportId, i) => ({
			json: { reportId, email: `f9-files-${i}@example.com` },
		}));

	it(
		'3c Invite Many with no interview allowance left: every invitation refused, nothing sent',
		async () => {
			await waitForReports(refusedReports);
			await w.control.patchWorkspace(w.ws.workspaceId, { interviewAllowance: 0 });
			await step(
				{
					id: '3c',
					what: 'a whole invitation batch refused',
					asks: NONE,
					resources: 0,
					refused: 3,
				},
				'invite',
				candidates(),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'3d the interview allowance topped up and the price changed, run again: 3 interviews, 3 emails',
		async () => {
			await later();
			await w.control.patchWorkspace(w.ws.workspaceId, {
				interviewAllowance: 1000,
				priceVersion: 2,
			});
			await step(
				{
					id: '3d',
					what: 'topped up, price changed, run again',
					asks: { reports: 0, attempts: 0, interviews: 3, emails: 3 },
					resources: 3,
				},
				'invite',
				candidates(),
			);
		},
		STEP_TIMEOUT,
	);

	const aged = ['g', 'h'].map((c) => resume(c, `aged-${c}.pdf`));

	it(
		'4a two files prepared (Upload Many), never analysed: 2 reports',
		async () => {
			await step(
				{
					id: '4a',
					what: 'two files prepared',
					asks: { reports: 2, attempts: 0, interviews: 0, emails: 0 },
					resources: 2,
				},
				'upload',
				aged,
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4b 25 hours later (past the preparation lifetime): Analyze Many renews each preparation once and analyses it',
		async () => {
			await w.control.advanceClock(25 * 3600 * 1000);
			const { output } = await step(
				{ id: '4b', what: 'analysed 25 hours later', asks: analyses(2), resources: 2 },
				'analyze',
				aged,
			);
			expect(output.every((o) => typeof o.replacesExpiredReportId === 'string')).toBe(true);
		},
		STEP_TIMEOUT,
	);

	it(
		'4c the receipts forgotten, run again: nothing new (the renewals are found through the file reference)',
		async () => {
			await w.control.forgetReceipts(w.ws.workspaceId);
			await step(
				{ id: '4c', what: 'receipts forgotten, run again', asks: NONE, resources: 2 },
				'analyze',
				aged,
			);
		},
		STEP_TIMEOUT,
	);
});

/** Waits until the reports' analyses have finished (an invitation needs a completed analysis). */
async function waitForReports(reportIds: string[]): Promise<void> {
	const until = Date.now() + 60_000;
	for (;;) {
		const reports = await listAll(w, '/api/v1/reports');
		const done = reportIds.every((id) =>
			reports.some((r) => r.id === id && r.status === 'completed'),
		);
		if (done) return;
		if (Date.now() > until) throw new Error('analyses not finished');
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}
