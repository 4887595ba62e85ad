/**
 * Recovery checks the file, and identity is the content, not the name (docs/idempotency.md, "What makes a file the
 * same"): a report is given back for an item only when it holds the item's file; a corrected file under the user's
 * External Reference ID fails before any charge, naming the report that holds the reference; the same bytes under
 * another name are one report, and the item says so; a preparation that expired is renewed, and the node's own file
 * reference does not stay bound to the dead report. Through n8n's engine (n8n-core) against the sandbox over HTTP;
 * every run a new execution.
 */
import type { IDataObject } from 'n8n-workflow';

import { startTestSandbox, useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import type { InputItem } from '../../helpers/n8n-engine';
import {
	analyzeParams,
	apiCall,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let run = 0;
const execution = () => ({ executionId: `same-file-${Date.now()}-${++run}` });

useTestSandbox((started) => (sandbox = started));

const waited = (ws: Workspace, options: IDataObject = {}) =>
	analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30, ...options });
const reference = (id: string) => ({ externalReferenceSource: 'my-ats', externalReferenceId: id });

/** The same bytes under another file name (every download path renames). */
function renamed(item: InputItem, fileName: string): InputItem {
	const binary = item.binary?.data as IDataObject;
	return { json: item.json, binary: { data: { ...binary, fileName } as never } };
}

async function charged(ws: Workspace): Promise<{ reports: number; attempts: number }> {
	const c = await counters(ws);
	return { reports: c.reportsCreated, attempts: c.attemptsCreated };
}

const reportOf = (o: IDataObject) => String(o.reportId ?? o.id);

describe('a corrected file is a new write; recovery checks the file', () => {
	it('a re-scanned file after a failed report, with a New Attempt Label and no reference of the user: the new file is analysed, the old frozen file is not attempted again', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const scan = pdfItem({ candidate: 'Rescan', outcome: 'failed' }, 'scan.pdf');
		const [failed] = jsonOf(await runNode(ws, waited(ws), [scan], execution()));
		expect(failed.status).toBe('failed');
		const rescan = pdfItem({ candidate: 'Rescan' }, 'scan.pdf');
		const [fixed] = jsonOf(
			await runNode(ws, waited(ws, { attemptLabel: 'rescan' }), [rescan], execution()),
		);
		expect(fixed.status).toBe('completed');
		expect(reportOf(fixed)).not.toBe(reportOf(failed));
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 2 });
	});

	it('a re-scanned file after a failed report under the same External Reference ID with a New Attempt Label: fails before any charge, naming the failed report and what to do; another reference ID analyses it', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const scan = pdfItem({ candidate: 'Rescan Ref', outcome: 'failed' }, 'scan.pdf');
		const [failed] = jsonOf(
			await runNode(ws, waited(ws, reference('app-31')), [scan], execution()),
		);
		expect(failed.status).toBe('failed');
		const rescan = pdfItem({ candidate: 'Rescan Ref' }, 'scan.pdf');
		const [refused] = jsonOf(
			await runNode(ws, waited(ws, { ...reference('app-31'), attemptLabel: 'rescan' }), [rescan], {
				...execution(),
				continueOnFail: true,
			}),
		);
		const said = JSON.stringify(refused);
		expect(said).toContain(`held by report ${reportOf(failed)}`);
		expect(said).toContain('another External Reference ID');
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
		const [fixed] = jsonOf(
			await runNode(ws, waited(ws, reference('app-31-2')), [rescan], execution()),
		);
		expect(fixed.status).toBe('completed');
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 2 });
	});

	it('an updated resume under the same application ID, without a label: never answered with the old report; fails before any charge, naming it', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [old] = jsonOf(
			await runNode(
				ws,
				waited(ws, reference('app-32')),
				[pdfItem({ candidate: 'Updated Resume' }, 'cv.pdf')],
				execution(),
			),
		);
		expect(old.status).toBe('completed');
		const updated = pdfItem({ candidate: 'Updated Resume', score: 9 }, 'cv.pdf');
		const result = await runNode(ws, waited(ws, reference('app-32')), [updated], execution());
		expect(result.error?.message).toContain(`held by report ${reportOf(old)}`);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
	});

	it('the same file under the same External Reference ID run again: its report back, nothing charged', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = pdfItem({ candidate: 'Same Ref' }, 'same.pdf');
		const [first] = jsonOf(await runNode(ws, waited(ws, reference('app-33')), [file], execution()));
		const [again] = jsonOf(await runNode(ws, waited(ws, reference('app-33')), [file], execution()));
		expect(reportOf(again)).toBe(reportOf(first));
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
	});
});

describe("a report under the user's reference that was never analysed", () => {
	const uploadResume = (ws: Workspace, id: string) => ({
		...analyzeParams(ws, reference(id)),
		resource: 'upload',
		operation: 'uploadResume',
	});

	it('a corrected file of the same size and type is put to it, so the analysis reads the file the item carries now; one of another size fails naming the report', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const [prepared] = jsonOf(
			await runNode(
				ws,
				uploadResume(ws, 'app-35'),
				[pdfItem({ candidate: 'Put Again', score: 3 }, 'cv.pdf')],
				execution(),
			),
		);
		const corrected = pdfItem({ candidate: 'Put Again', score: 7 }, 'cv.pdf');
		const [analysed] = jsonOf(
			await runNode(ws, waited(ws, reference('app-35')), [corrected], execution()),
		);
		expect(reportOf(analysed)).toBe(prepared.reportId);
		expect(analysed.status).toBe('completed');
		expect(analysed.sameFileAsBefore).toBeUndefined();
		const result = await apiCall(ws, 'GET', `/api/v1/reports/${String(prepared.reportId)}/result`);
		expect(((result.body.data as IDataObject).result as IDataObject).score).toBe(7);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });

		const [other] = jsonOf(
			await runNode(
				ws,
				uploadResume(ws, 'app-36'),
				[pdfItem({ candidate: 'Other Size' }, 'cv.pdf')],
				execution(),
			),
		);
		const longer = pdfItem({ candidate: 'Other Size, with a longer name' }, 'cv.pdf');
		const refused = await runNode(ws, waited(ws, reference('app-36')), [longer], execution());
		expect(refused.error?.message).toContain(`held by report ${String(other.reportId)}`);
		expect(String((refused.error as { description?: string })?.description)).toContain(
			'another size or type',
		);
		expect(await charged(ws)).toEqual({ reports: 2, attempts: 1 });
	});
});

describe('identity is the content, not the name', () => {
	it('the same resume downloaded again as "resume (1).pdf" and "download.pdf": one report, one charge, and the item says the file was seen before (sameFileAsBefore)', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = pdfItem({ candidate: 'Downloaded Twice' }, 'resume.pdf');
		const [first] = jsonOf(await runNode(ws, waited(ws), [file], execution()));
		expect(first.sameFileAsBefore).toBeUndefined();
		for (const name of ['resume (1).pdf', 'download.pdf']) {
			const [again] = jsonOf(await runNode(ws, waited(ws), [renamed(file, name)], execution()));
			expect(reportOf(again)).toBe(reportOf(first));
			expect(again.sameFileAsBefore).toBe(true);
		}
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
	});

	it('the same bytes under another name and the same External Reference ID: one report, the item says so', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = pdfItem({ candidate: 'Renamed Ref' }, 'cv.pdf');
		const [first] = jsonOf(await runNode(ws, waited(ws, reference('app-34')), [file], execution()));
		const [again] = jsonOf(
			await runNode(
				ws,
				waited(ws, reference('app-34')),
				[renamed(file, 'cv (1).pdf')],
				execution(),
			),
		);
		expect(reportOf(again)).toBe(reportOf(first));
		expect(again.sameFileAsBefore).toBe(true);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
	});

	it('Analyze Many with the same bytes under two names in one run, then under a third name: one report, the second item says sameWriteAs 1, the third sameFileAsBefore', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const file = pdfItem({ candidate: 'Many Names' }, 'a.pdf');
		const many = { ...analyzeParams(ws), operation: 'analyzeMany', simplify: false };
		const out = jsonOf(await runNode(ws, many, [file, renamed(file, 'b.pdf')], execution()));
		expect(reportOf(out[1])).toBe(reportOf(out[0]));
		expect(out[1].sameWriteAs).toBe(1);
		const [third] = jsonOf(await runNode(ws, many, [renamed(file, 'c.pdf')], execution()));
		expect(reportOf(third)).toBe(reportOf(out[0]));
		expect(third.sameFileAsBefore).toBe(true);
		expect(await charged(ws)).toEqual({ reports: 1, attempts: 1 });
	});
});

describe('an expired preparation is renewed, and the file reference follows it', () => {
	it('Upload Resume, then Analyze Resume 25 hours later: one new preparation analysed; run again after the receipts are forgotten: the renewal is found through its reference, nothing charged twice', async () => {
		const own = await startTestSandbox();
		try {
			const ws = await newWorkspace(own.baseUrl);
			const file = pdfItem({ candidate: 'Aged Preparation' }, 'aged.pdf');
			const upload = { ...analyzeParams(ws), resource: 'upload', operation: 'uploadResume' };
			const [uploaded] = jsonOf(await runNode(ws, upload, [file], execution()));
			await own.control.advanceClock(25 * 3600 * 1000);
			const [analysed] = jsonOf(await runNode(ws, waited(ws), [file], execution()));
			expect(analysed.status).toBe('completed');
			expect(reportOf(analysed)).not.toBe(uploaded.reportId);
			await own.control.patchWorkspace(ws.workspaceId, { receiptLifetimeMs: 3600 * 1000 });
			expect((await own.control.forgetReceipts(ws.workspaceId)).kept).toBe(0);
			const [again] = jsonOf(await runNode(ws, waited(ws), [file], execution()));
			expect(reportOf(again)).toBe(reportOf(analysed));
			expect(await charged(ws)).toEqual({ reports: 2, attempts: 1 });
		} finally {
			await own.close();
		}
	});
});
