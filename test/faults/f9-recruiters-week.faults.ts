/**
 * F9: a recruiter's week, in a real n8n (our tarball installed as a community package; 2.x, and 1.x where the
 * fault suite's configuration selects it). One sandbox workspace, one recruiter, the same workflows run day after
 * day on an input that changes a little, as recruiters work (docs/idempotency.md):
 *
 *   Analyze  Manual Trigger → Input (Code: the folder's resumes) → Analyze Many (On Error: continue)
 *   1  a folder of 10 resumes analysed;            2  5 added, run again;          3  the same 15 in another order;
 *   4  a bad file among them, then that file fixed; 5  the allowance exhausted in the middle of a batch (2 left for
 *      4 new files), topped up, run again;
 *   Interview  Input → Invite → Reinterview, run twice (6); Input → Invite with the application ID as Idempotency Key
 *      to a mistyped address, the address corrected and Invite run again, then Input → Reinterview to the corrected
 *      address (7).
 *
 * Measured after each run: the sandbox counters (reports, analysis attempts, interviews) and its mail sink, against
 * what the step asks for (one report and one analysis per distinct file and job, exactly the interviews and emails
 * asked for), and the output of our node: every item that is not refused names its resource (report and attempt,
 * or interview), which the sandbox holds. The steps share their workspace and run in order; each asserts its own
 * new writes, the last one the week's totals.
 */
import { FigureBook } from './figures';
import {
	caseWorkspace,
	formatWrites,
	minus,
	type CaseWorkspace,
	type InputItem,
	type Writes,
} from './f8-harness';
import {
	analyses,
	analysisResource,
	byId,
	interviewResource,
	NONE,
	recruiterCredential,
	RecruiterSteps,
	step as f9Step,
	STEP_TIMEOUT,
	type StepSpec,
} from './f9-harness';
import { makePdf } from '../fixtures/resumes';
import { nodeError, nodeOutput, type ExecutionDetail } from '../../scripts/n8n-host';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9' : `F9-n8n${line}`,
	`A recruiter's week, in a real n8n (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);

let env: RealN8n;
let w: CaseWorkspace;
/** The week's workflows and steps (the writes so far, as the steps asked for them). */
let steps: RecruiterSteps;

/** A resume of the folder: `resume-<n>.pdf`, the same bytes every time it is read. */
const resume = (n: number) => ({
	json: { fileName: `resume-${n}.pdf`, applicationId: `app-${n}` },
	pdf: makePdf({ candidate: `F9 Candidate ${n}`, outcome: 'completed', score: 6 }),
});
const folder = (numbers: number[]) => numbers.map(resume);
const range = (from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, i) => from + i);

const emailOf = (n: number, domain = 'example.com') => `f9-candidate-${n}@${domain}`;
const invite = {
	resource: 'interview',
	operation: 'invite',
	spendingLimit: 0,
	reportId: byId('={{ $json.reportId }}'),
	candidateEmail: '={{ $json.email }}',
	delivery: 'email',
	options: {},
};
/** Reinterview with its interview and report from `$json` (Invite's output, or the Input), and the address given. */
const reinterview = (candidateEmail: string) => ({
	resource: 'interview',
	operation: 'reinterview',
	spendingLimit: 0,
	interviewId: byId('={{ $json.interviewId }}'),
	reportId: byId('={{ $json.reportId }}'),
	candidateEmail,
	delivery: 'email',
	options: {},
});

const invitations = (n: number): Writes => ({ reports: 0, attempts: 0, interviews: n, emails: n });
const ANALYZE = 'Analyze Many';
/** Reports of the folder by file number, from the last Analyze Many output (for the interview steps). */
const reportOf = new Map<number, string>();
const interviews: Record<string, string> = {};

beforeAll(async () => {
	book.note(
		'One workspace for the whole week; each row is one run of a workflow. "new writes" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) after the run minus before; "asked" is what the step asks for (one report and one analysis per new distinct file and job, the interviews and emails asked for). "items with resource" counts output items naming a report:attempt or interview the sandbox holds; refused items (errorCode, no resource) are counted apart.',
	);
	env = await bootRealN8n('faults-f9');
	w = await caseWorkspace(env.sandbox.baseUrl);
	const credential = await recruiterCredential(env, w, 'F9 recruiter');
	steps = new RecruiterSteps({ env, w, credential, book, name: 'F9' });
	const analyze = {
		resource: 'analysis',
		operation: 'analyzeMany',
		spendingLimit: 0,
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: byId(w.ws.jobDescriptionId),
		options: {},
	};
	await steps.create(
		'analyze',
		'analyze',
		[{ name: ANALYZE, parameters: analyze, onError: 'continueRegularOutput' }],
		analysisResource,
	);
	await steps.create(
		'inviteThenReinterview',
		'invite-reinterview',
		[
			{ name: 'Invite', parameters: invite },
			{ name: 'Reinterview', parameters: reinterview(emailOf(1)) },
		],
		interviewResource,
	);
	const keyed = { ...invite, options: { idempotencyKey: '={{ $json.applicationId }}' } };
	await steps.create(
		'invite',
		'invite',
		[{ name: 'Invite', parameters: keyed }],
		interviewResource,
	);
	await steps.create(
		'reinterview',
		'reinterview',
		[{ name: 'Reinterview', parameters: reinterview('={{ $json.email }}') }],
		interviewResource,
	);
}, 420_000);

afterAll(async () => {
	book.table('steps', steps?.rows ?? []);
	book.set('week totals (sandbox)', w ? formatWrites(await w.writes()) : 'not measured');
	book.set('week totals (asked)', formatWrites(steps?.expectedTotal ?? NONE));
	book.save();
	await env?.close();
}, 120_000);

/** The folder's numbers in the order the step reads them, and the output items by file number. */
function remember(numbers: number[], { output }: { output: Array<Record<string, unknown>> }): void {
	numbers.forEach((n, i) => {
		if (typeof output[i]?.reportId === 'string' && typeof output[i]?.attemptId === 'string')
			reportOf.set(n, String(output[i].reportId));
	});
}

/** One run of the workflow `kind` on `items`, measured, recorded and asserted as `spec` (f9-harness.ts step). */
const step = async (spec: StepSpec, kind: string, items: InputItem[]) =>
	await f9Step(steps, spec, kind, items);

describe("F9: a recruiter's week", () => {
	it(
		'1 a folder of 10 resumes analysed (Analyze Many): 10 reports, 10 analyses',
		async () => {
			const numbers = range(1, 10);
			remember(
				numbers,
				await step(
					{ id: '1', what: '10 resumes analysed', asks: analyses(10), resources: 10 },
					'analyze',
					folder(numbers),
				),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'2 five resumes added, run again: 5 new reports and analyses, the first 10 given back',
		async () => {
			const numbers = range(1, 15);
			remember(
				numbers,
				await step(
					{ id: '2', what: '5 added, run again', asks: analyses(5), resources: 15 },
					'analyze',
					folder(numbers),
				),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'3 the same 15 files in another order: nothing new',
		async () => {
			await step(
				{ id: '3', what: 'the same 15 in another order', asks: NONE, resources: 15 },
				'analyze',
				folder(range(1, 15).reverse()),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4a a bad file among the 15 (an error item, On Error: continue): nothing new',
		async () => {
			const bad: InputItem = {
				json: { fileName: 'resume-16.pdf', applicationId: 'app-16' },
				pdf: Buffer.from('not a pdf at all, although it is named one'),
			};
			await step(
				{ id: '4a', what: 'a bad file among the 15', asks: NONE, resources: 15, failed: 1 },
				'analyze',
				[...folder(range(1, 15)), bad],
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'4b the bad file fixed, run again: only the fixed file analysed',
		async () => {
			const numbers = range(1, 16);
			remember(
				numbers,
				await step(
					{ id: '4b', what: 'the bad file fixed, run again', asks: analyses(1), resources: 16 },
					'analyze',
					folder(numbers),
				),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'5a the allowance exhausted in the middle of a batch (2 analyses left for 4 new files): 4 reports, 2 analyses, 2 items refused',
		async () => {
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 2 });
			await step(
				{
					id: '5a',
					what: '4 new files, 2 analyses of allowance left',
					asks: { reports: 4, attempts: 2, interviews: 0, emails: 0 },
					resources: 18,
					refused: 2,
				},
				'analyze',
				folder(range(1, 20)),
			);
		},
		STEP_TIMEOUT,
	);

	it(
		'5b the allowance topped up, run again: the 2 refused analysed, nothing charged twice',
		async () => {
			const numbers = range(1, 20);
			await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 1000 });
			remember(
				numbers,
				await step(
					{
						id: '5b',
						what: 'allowance topped up, run again',
						asks: { reports: 0, attempts: 2, interviews: 0, emails: 0 },
						resources: 20,
					},
					'analyze',
					folder(numbers),
				),
			);
		},
		STEP_TIMEOUT,
	);

	const inviteThenReinterview = () => [
		{ json: { reportId: reportOf.get(1) ?? 'no report of resume-1', email: emailOf(1) } },
	];
	const runs: Record<string, ExecutionDetail> = {};

	it(
		'6a Invite then Reinterview: 2 interviews, 2 emails',
		async () => {
			const first = await step(
				{ id: '6a', what: 'Invite → Reinterview', asks: invitations(2), resources: 1 },
				'inviteThenReinterview',
				inviteThenReinterview(),
			);
			runs.first = first.execution;
		},
		STEP_TIMEOUT,
	);

	it(
		'6b the workflow Invite → Reinterview run again: nothing new, both interviews given back',
		async () => {
			const second = await step(
				{ id: '6b', what: 'Invite → Reinterview run again', asks: NONE, resources: 1 },
				'inviteThenReinterview',
				inviteThenReinterview(),
			);
			for (const node of ['Invite', 'Reinterview']) {
				expect({
					node,
					ids: nodeOutput(second.execution.data, node).map(interviewResource),
				}).toEqual({ node, ids: nodeOutput(runs.first.data, node).map(interviewResource) });
			}
		},
		STEP_TIMEOUT,
	);

	const typo = () => ({
		reportId: reportOf.get(2) ?? 'no report of resume-2',
		email: emailOf(2, 'exmaple.com'),
		applicationId: 'app-2',
	});
	const corrected = () => ({ ...typo(), email: emailOf(2) });

	it(
		'7a Invite with the application ID as Idempotency Key, to a mistyped address: 1 interview, 1 email',
		async () => {
			const { output } = await step(
				{ id: '7a', what: 'Invite to a mistyped address', asks: invitations(1), resources: 1 },
				'invite',
				[{ json: typo() }],
			);
			interviews.typo = interviewResource(output[0] ?? {});
		},
		STEP_TIMEOUT,
	);

	it(
		'7b the address corrected, Invite run again: the run fails naming Reinterview, never the old invitation as a success',
		async () => {
			const refused = await step(
				{
					id: '7b',
					what: 'the address corrected, Invite run again',
					asks: NONE,
					resources: 0,
					executionFails: true,
				},
				'invite',
				[{ json: corrected() }],
			);
			const error = nodeError(refused.execution.data, 'Invite');
			expect(`${error?.message ?? ''} ${error?.description ?? ''}`).toMatch(/Reinterview/);
		},
		STEP_TIMEOUT,
	);

	it(
		'7c Reinterview to the corrected address: 1 interview, 1 email to the corrected address',
		async () => {
			await step(
				{
					id: '7c',
					what: 'Reinterview to the corrected address',
					asks: invitations(1),
					resources: 1,
				},
				'reinterview',
				[{ json: { ...corrected(), interviewId: interviews.typo ?? 'no interview of step 7a' } }],
			);
			const mail = await w.mail();
			expect({
				corrected: mail.filter((m) => m.to === corrected().email).length,
				typo: mail.filter((m) => m.to === typo().email).length,
			}).toEqual({ corrected: 1, typo: 1 });
		},
		STEP_TIMEOUT,
	);

	it("the week's totals: one report and one analysis per distinct file and job (20), the interviews and emails asked for (4)", async () => {
		const week = await w.writes();
		const asked: Writes = { reports: 20, attempts: 20, interviews: 4, emails: 4 };
		const ok = book.check(
			"the week's writes: 20 reports, 20 analyses, 4 interviews, 4 emails",
			formatWrites(week),
			Object.values(minus(week, asked)).every((n) => n === 0),
		);
		expect({ week, ok }).toEqual({ week: asked, ok: true });
	});
});
