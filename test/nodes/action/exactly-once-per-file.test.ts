/**
 * Exactly once per file, whatever the batch: the same file for the same job is one report, whether it came through
 * Analyze Resume, Analyze Many or Upload Many, alone or in any chunk, in any order, beside any other files; an item
 * whose write is the same as another item's or an earlier run's says so; New Attempt Label on Analyze Resume is a
 * new attempt on the same report (docs/idempotency.md). Through n8n's engine (n8n-core) against the sandbox over
 * HTTP; every run is a new execution, as a re-run of the workflow is. The recovery checks and the items a replayed
 * batch refused are in recovery-verifies.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startTestSandbox, useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import type { InputItem } from '../../helpers/n8n-engine';
import {
	analyzeParams,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	waitForReportStatus,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let run = 0;
/** A fresh execution id: what a re-run of the workflow gets. */
const execution = () => ({ executionId: `per-file-${Date.now()}-${++run}` });

useTestSandbox((started) => (sandbox = started));

/** Resumes `<tag>-<i>.pdf` for i in [from, from + n): the same i is the same file (bytes and name) on every call. */
const files = (tag: string, n: number, from = 0): InputItem[] =>
	Array.from({ length: n }, (_, k) =>
		pdfItem({ candidate: `${tag} ${from + k}` }, `${tag}-${from + k}.pdf`, {
			applicationId: `${tag}-app-${from + k}`,
		}),
	);

/** A file that is not a PDF although it says so: refused before anything is sent. */
const badFile = (fileName: string): InputItem => ({
	json: {},
	binary: {
		data: { data: Buffer.from('not a pdf at all'), mimeType: 'application/pdf', fileName },
	},
});

const fileParams = (ws: Workspace, options: IDataObject = {}) => ({
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId: ws.jobDescriptionId,
	options: options as INodeParameters,
});
const analyzeMany = (ws: Workspace, options: IDataObject = {}): INodeParameters => ({
	resource: 'analysis',
	operation: 'analyzeMany',
	simplify: false,
	...fileParams(ws, options),
});
const uploadMany = (ws: Workspace): INodeParameters => ({
	resource: 'upload',
	operation: 'uploadMany',
	...fileParams(ws),
});

/** Reports and analyses (attempts) charged in the workspace so far. */
async function charged(ws: Workspace): Promise<{ reports: number; attempts: number }> {
	const c = await counters(ws);
	return { reports: c.reportsCreated, attempts: c.attemptsCreated };
}

/** The resource an analysis item names: report and attempt. */
const resourceOf = (o: IDataObject) => ({ reportId: o.reportId ?? o.id, attemptId: o.attemptId });

function expectAnalyzed(o: IDataObject): void {
	expect(o.error).toBeUndefined();
	expect(String(o.reportId ?? o.id)).toMatch(/^rpt_/);
	expect(String(o.attemptId)).toMatch(/^att_/);
}

/** The report each file name was output with (every item must name one). */
function reportByFile(out: IDataObject[], input: InputItem[]): Map<string, unknown> {
	return new Map(out.map((o, i) => [String(input[i].binary?.data.fileName), o.reportId ?? o.id]));
}

describe('a batch keys each file, not the chunk: a changed list charges only what is new', () => {
	it('Analyze Many on 3 files, then again with one file added: 4 analyses in total, the first 3 recovered', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const first = jsonOf(await runNode(ws, analyzeMany(ws), files('grow', 3), execution()));
		first.forEach(expectAnalyzed);
		const second = jsonOf(await runNode(ws, analyzeMany(ws), files('grow', 4), execution()));
		second.forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 4, attempts: 4 });
		expect(second.slice(0, 3).map(resourceOf)).toEqual(first.map(resourceOf));
		for (const o of second.slice(0, 3)) expect(o.recovered).toBe(true);
		expect(second[3].recovered).not.toBe(true);
		expect(first.map((o) => o.reportId)).not.toContain(second[3].reportId);
	});

	it('Analyze Many on the same 3 files in another order: 3 analyses, each file keeps its report', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const input = files('order', 3);
		const first = jsonOf(await runNode(ws, analyzeMany(ws), input, execution()));
		const reordered = [input[2], input[0], input[1]];
		const second = jsonOf(await runNode(ws, analyzeMany(ws), reordered, execution()));
		second.forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 3, attempts: 3 });
		expect(reportByFile(second, reordered)).toEqual(reportByFile(first, input));
		for (const o of second) expect(o.recovered).toBe(true);
	});

	it('Analyze Many with one bad file (Continue On Fail), the file fixed and run again: only the fixed file is analysed anew', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const input = files('fixed', 3);
		const first = jsonOf(
			await runNode(ws, analyzeMany(ws), [input[0], badFile('fixed-1.pdf'), input[2]], {
				...execution(),
				continueOnFail: true,
			}),
		);
		expect(first[1].error).toEqual(expect.any(String));
		expectAnalyzed(first[0]);
		expectAnalyzed(first[2]);
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 2 });
		const second = jsonOf(
			await runNode(ws, analyzeMany(ws), input, { ...execution(), continueOnFail: true }),
		);
		second.forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 3, attempts: 3 });
		expect([second[0], second[2]].map(resourceOf)).toEqual([first[0], first[2]].map(resourceOf));
		expect(second[1].recovered).not.toBe(true);
	});

	it('Analyze Many with two items of the same file and job: 1 analysis, the later item says it is the same write as the earlier (sameWriteAs, counted from 1)', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [other] = files('twice-other', 1);
		const [same] = files('twice', 1);
		const out = jsonOf(await runNode(ws, analyzeMany(ws), [other, same, same], execution()));
		out.forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 2 });
		expect(resourceOf(out[2])).toEqual(resourceOf(out[1]));
		expect(out[2].sameWriteAs).toBe(2);
		expect(out[0].sameWriteAs).toBeUndefined();
		expect(out[1].sameWriteAs).toBeUndefined();
	});

	it('Analyze Resume, then Analyze Many, then Upload Many on overlapping files: one report per distinct file and job', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const input = files('across', 3);
		const [single] = jsonOf(await runNode(ws, analyzeParams(ws), [input[0]], execution()));
		expectAnalyzed(single);
		const many = jsonOf(await runNode(ws, analyzeMany(ws), input.slice(0, 2), execution()));
		many.forEach(expectAnalyzed);
		expect(resourceOf(many[0])).toEqual(resourceOf(single));
		expect(many[0].recovered).toBe(true);
		const uploaded = jsonOf(await runNode(ws, uploadMany(ws), input, execution()));
		expect(uploaded.map((o) => o.reportId)).toEqual([
			single.reportId,
			many[1].reportId,
			expect.stringMatching(/^rpt_/),
		]);
		expect([single.reportId, many[1].reportId]).not.toContain(uploaded[2].reportId);
		// Upload Many analyses nothing: the third file is uploaded, not analysed.
		expect(await charged(ws)).toEqual({ reports: 3, attempts: 2 });
	});

	it('Upload Many on 2 files, then again with one added: 3 reports, the first two given back', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const first = jsonOf(await runNode(ws, uploadMany(ws), files('up-grow', 2), execution()));
		const second = jsonOf(await runNode(ws, uploadMany(ws), files('up-grow', 3), execution()));
		expect(second.slice(0, 2).map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		expect(second[2].reportId).toMatch(/^rpt_/);
		expect(await charged(ws)).toEqual({ reports: 3, attempts: 0 });
	});
});

describe('merges are visible', () => {
	it('two applicants with byte-identical files and no external reference in one run: one report, and the second item says sameWriteAs 1', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [file] = files('identical', 1);
		const applicants = [
			{ ...file, json: { applicant: 'first applicant' } },
			{ ...file, json: { applicant: 'second applicant' } },
		];
		const out = jsonOf(await runNode(ws, analyzeParams(ws), applicants, execution()));
		out.forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
		expect(resourceOf(out[1])).toEqual(resourceOf(out[0]));
		expect(out[1].sameWriteAs).toBe(1);
		expect(out[0].sameWriteAs).toBeUndefined();
	});

	const revisedCases: Array<[string, (ws: Workspace) => INodeParameters]> = [
		[
			'Analyze Resume with Wait for Completion',
			(ws) => analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
		],
		['Analyze Resume without waiting', (ws) => analyzeParams(ws)],
		['Analyze Many (Simplify)', (ws) => ({ ...analyzeMany(ws), simplify: true })],
	];
	for (const [name, params] of revisedCases) {
		it(`a saved job revised between runs of ${name}: the re-run gives the same report back and says the job was revised since (jobRevisedSinceReport)`, async () => {
			const ws = await newWorkspace(sandbox.baseUrl);
			const input = files('revised', 1);
			const [first] = jsonOf(await runNode(ws, params(ws), input, execution()));
			expectAnalyzed(first);
			expect(first.jobRevisedSinceReport).not.toBe(true);
			expect(await waitForReportStatus(ws, String(first.reportId ?? first.id))).toBe('completed');
			await sandbox.control.reviseJob(ws.jobDescriptionId, {
				description: 'The role now asks for on-call duty.',
			});
			const [again] = jsonOf(await runNode(ws, params(ws), input, execution()));
			expect(resourceOf(again)).toEqual(resourceOf(first));
			expect(again.jobRevisedSinceReport).toBe(true);
			expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
		});
	}
});

describe('New Attempt Label on Analyze Resume', () => {
	const waited = (ws: Workspace, options: IDataObject = {}) =>
		analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30, ...options });

	it('after a failed report: a new attempt on the same report (not a new report), and the same label again gives that attempt back', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = [pdfItem({ candidate: 'Label Failed', outcome: 'failed' }, 'label-failed.pdf')];
		const [failed] = jsonOf(await runNode(ws, waited(ws), file, execution()));
		expect(failed.status).toBe('failed');
		const [labelled] = jsonOf(
			await runNode(ws, waited(ws, { attemptLabel: 'second-try' }), file, execution()),
		);
		expect(labelled.reportId ?? labelled.id).toBe(failed.reportId ?? failed.id);
		expect(String(labelled.attemptId)).toMatch(/^att_/);
		expect(labelled.attemptId).not.toBe(failed.attemptId);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 2 });
		const [repeat] = jsonOf(
			await runNode(ws, waited(ws, { attemptLabel: 'second-try' }), file, execution()),
		);
		expect(resourceOf(repeat)).toEqual(resourceOf(labelled));
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 2 });
	});

	it('on a completed report: no second charge and no new report; the item names the report', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = [pdfItem({ candidate: 'Label Completed' }, 'label-completed.pdf')];
		const [done] = jsonOf(await runNode(ws, waited(ws), file, execution()));
		expect(done.status).toBe('completed');
		const reportId = String(done.reportId ?? done.id);
		const [item] = jsonOf(
			await runNode(ws, waited(ws, { attemptLabel: 'second-try' }), file, {
				...execution(),
				continueOnFail: true,
			}),
		);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
		// Either the completed report back, or an error that names it (as Start with a label refuses a completed report).
		expect(JSON.stringify(item)).toContain(reportId);
		expect(item.error === undefined ? resourceOf(item) : 'an error naming it').toEqual(
			item.error === undefined ? resourceOf(done) : 'an error naming it',
		);
	});
});

describe('New Attempt Label on Analyze Many', () => {
	it('after a failed report: a new attempt on the same report, once, and nothing new for the other files', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const input = [
			pdfItem({ candidate: 'Many Label Failed', outcome: 'failed' }, 'many-label-failed.pdf'),
			...files('many-label', 1),
		];
		const first = jsonOf(await runNode(ws, analyzeMany(ws), input, execution()));
		first.forEach(expectAnalyzed);
		const labelled = jsonOf(
			await runNode(ws, analyzeMany(ws, { attemptLabel: 'second-try' }), input, execution()),
		);
		expect(labelled.map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		expect(String(labelled[0].attemptId)).toMatch(/^att_/);
		expect(labelled[0].attemptId).not.toBe(first[0].attemptId);
		// The completed report of the other file is not analysed again for a label.
		expect(labelled[1].attemptId).toBe(first[1].attemptId);
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 3 });
		const repeat = jsonOf(
			await runNode(ws, analyzeMany(ws, { attemptLabel: 'second-try' }), input, execution()),
		);
		expect(repeat.map(resourceOf)).toEqual(labelled.map(resourceOf));
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 3 });
	});
});

describe('after the service forgot its receipts (the receipt lifetime has passed)', () => {
	/** The service keeps receipts 24 hours (the strict profile's lifetime); the workspace's receipts are aged past it. */
	async function receiptsForgotten(ws: Workspace): Promise<void> {
		await sandbox.control.patchWorkspace(ws.workspaceId, { receiptLifetimeMs: 24 * 3600 * 1000 });
		const aged = await sandbox.control.ageReceipts(ws.workspaceId, 25 * 3600);
		expect(aged.forgotten).toBeGreaterThan(0);
		expect(aged.kept).toBe(0);
	}

	it("Analyze Many, with and without external references, and Start, run again: no second report or analysis; under the user's reference the node cannot tell the file any more and says so, naming the report", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const referenced = analyzeMany(ws, {
			externalReferenceSource: 'my-ats',
			externalReferenceId: '={{ $json.applicationId }}',
		});
		const withReference = files('forgot-ref', 2);
		const withoutReference = files('forgot-plain', 2);
		const [uploadedId] = jsonOf(
			await runNode(ws, uploadMany(ws), files('forgot-start', 1), execution()),
		).map((o) => String(o.reportId));
		const start = { resource: 'analysis', operation: 'start', reportId: uploadedId };
		const first = {
			referenced: jsonOf(await runNode(ws, referenced, withReference, execution())),
			plain: jsonOf(await runNode(ws, analyzeMany(ws), withoutReference, execution())),
			started: jsonOf(await runNode(ws, start, [{ json: {} }], execution())),
		};
		[...first.referenced, ...first.plain, ...first.started].forEach(expectAnalyzed);
		expect(await charged(ws)).toEqual({ reports: 5, attempts: 5 });
		await receiptsForgotten(ws);
		// The API shows nothing of a report's file, and no receipt ties these bytes to the user's reference any more:
		// each item fails before any charge, naming the report that holds its reference (docs/idempotency.md).
		const again = jsonOf(
			await runNode(ws, referenced, withReference, { ...execution(), continueOnFail: true }),
		);
		again.forEach((item, i) => {
			expect(String(item.error)).toContain(
				`held by report ${String(first.referenced[i].reportId)}`,
			);
		});
		expect(
			jsonOf(await runNode(ws, analyzeMany(ws), withoutReference, execution())).map(resourceOf),
		).toEqual(first.plain.map(resourceOf));
		expect(jsonOf(await runNode(ws, start, [{ json: {} }], execution())).map(resourceOf)).toEqual(
			first.started.map(resourceOf),
		);
		expect(await charged(ws)).toEqual({ reports: 5, attempts: 5 });
	});

	// The API never shows an invitation's address, so once the receipt is gone the node cannot tell a repeat from an
	// invitation to a corrected address (docs/idempotency.md): it never hands the existing interview out as this item's,
	// and nothing is charged or emailed; each item names the interview that exists.
	it('Invite, Reinterview and Invite Many, run again: no second interview or email, and each item names the interview that exists', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const analyzed = jsonOf(
			await runNode(ws, analyzeMany(ws), files('forgot-invite', 3), execution()),
		);
		for (const o of analyzed)
			expect(await waitForReportStatus(ws, String(o.reportId))).toBe('completed');
		const [a, b, c] = analyzed.map((o) => String(o.reportId));
		const invite = {
			resource: 'interview',
			operation: 'invite',
			reportId: a,
			candidateEmail: 'forgot.a@example.com',
		};
		const inviteMany = {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
		};
		const many = [b, c].map((reportId, i) => ({
			json: { reportId, email: `forgot.many.${i}@example.com` },
		}));
		const [invited] = jsonOf(await runNode(ws, invite, [{ json: {} }], execution()));
		const reinterview = {
			resource: 'interview',
			operation: 'reinterview',
			interviewId: String(invited.interviewId),
			reportId: a,
			candidateEmail: 'forgot.a@example.com',
		};
		const [again] = jsonOf(await runNode(ws, reinterview, [{ json: {} }], execution()));
		const invitedMany = jsonOf(await runNode(ws, inviteMany, many, execution()));
		const ids = [invited.interviewId, again.interviewId, ...invitedMany.map((o) => o.interviewId)];
		expect(ids.every((id) => typeof id === 'string' && id.startsWith('int_'))).toBe(true);
		await receiptsForgotten(ws);
		const rerun = [
			jsonOf(
				await runNode(ws, invite, [{ json: {} }], { ...execution(), continueOnFail: true }),
			)[0],
			jsonOf(
				await runNode(ws, reinterview, [{ json: {} }], { ...execution(), continueOnFail: true }),
			)[0],
			...jsonOf(await runNode(ws, inviteMany, many, { ...execution(), continueOnFail: true })),
		];
		expect(String(rerun[0].error)).toContain(`Report ${a} already has interview ${ids[0]}`);
		expect(String(rerun[1].error)).toContain(
			`Interview ${ids[0]} was already replaced by reinterview ${ids[1]}`,
		);
		expect(rerun.slice(2).map((o) => [o.errorCode, o.existingInterviewId])).toEqual([
			['INTERVIEW_NOT_ELIGIBLE', ids[2]],
			['INTERVIEW_NOT_ELIGIBLE', ids[3]],
		]);
		expect(rerun.every((o) => o.recovered !== true)).toBe(true);
		await sleep(300);
		expect((await counters(ws)).interviewsCreated).toBe(4);
		expect((await sandbox.control.mail(ws.workspaceId)).items).toHaveLength(4);
	});
});

describe('files prepared but never admitted, analysed a day later', () => {
	it('Analyze Many after an Upload Many of 25 hours ago renews the expired preparations in batches: each file analysed once, and once only on a repeat', async () => {
		// Its own sandbox: the clock is moved forward.
		const own = await startTestSandbox();
		try {
			const ws = await newWorkspace(own.baseUrl);
			const input = files('expired', 3);
			const uploaded = jsonOf(await runNode(ws, uploadMany(ws), input, execution()));
			expect(uploaded.every((o) => typeof o.reportId === 'string')).toBe(true);
			await own.control.advanceClock(25 * 3600 * 1000);
			const out = jsonOf(await runNode(ws, analyzeMany(ws), input, execution()));
			out.forEach(expectAnalyzed);
			expect(out.map((o) => o.replacesExpiredReportId)).toEqual(uploaded.map((o) => o.reportId));
			const again = jsonOf(await runNode(ws, analyzeMany(ws), input, execution()));
			expect(again.map(resourceOf)).toEqual(out.map(resourceOf));
			const c = await counters(ws);
			expect({ reports: c.reportsCreated, attempts: c.attemptsCreated }).toEqual({
				reports: 6,
				attempts: 3,
			});
		} finally {
			await own.close();
		}
	});
});
