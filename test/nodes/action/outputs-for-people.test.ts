/**
 * What a recruiter gets from the analysis operations, through n8n's engine against the sandbox: the simplified
 * item (the default), errors that say which
 * file and how to let the others through, and hints that match the output.
 */
import {
	NodeHelpers,
	type IDataObject,
	type INodeParameters,
	type INodeProperties,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';

import { DOCX_MIME, PDF_MIME, makeDocx, makePdf } from '../../fixtures/resumes';
import type { TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	counters,
	hintsOf,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	totalRequests,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;

useSandboxWorkspace((started) => ({ sandbox, ws } = started));

/** The recruiter's fields, in the order the simplified item shows them first. */
const FIRST_FIELDS = [
	'candidateName',
	'currentRole',
	'score',
	'scoreMinimum',
	'scoreMaximum',
	'summary',
	'recommendation',
	'status',
	'needsReview',
	'reportId',
	'fileName',
];

const analyzeMany = (options: IDataObject = {}, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'analysis',
	operation: 'analyzeMany',
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId: ws.jobDescriptionId,
	options: options as INodeParameters,
	...extra,
});

/** A Word document (a ZIP) saved with a .pdf name and type, as found in a folder of resumes. */
const docxNamedPdf = (fileName: string) => ({
	json: {},
	binary: { data: { data: makeDocx({ candidate: 'Mia Docx' }), mimeType: PDF_MIME, fileName } },
});

describe('Simplified output (the default)', () => {
	it('Analyze Many outputs the recruiter fields flat and first; a Filter on score works with no setup; review is flagged', async () => {
		const result = await runNode(ws, analyzeMany(), [
			pdfItem({ candidate: 'Ada High', score: 8 }, 'ada-high.pdf'),
			pdfItem({ candidate: 'Bob Low', score: 4 }, 'bob-low.pdf'),
			pdfItem({ candidate: 'Cy Review', outcome: 'requires_action' }, 'cy-review.pdf'),
		]);
		const out = jsonOf(result);
		expect(out).toHaveLength(3);
		for (const item of out)
			expect(Object.keys(item).slice(0, FIRST_FIELDS.length)).toEqual(FIRST_FIELDS);
		expect(out[0]).toEqual(
			expect.objectContaining({
				candidateName: 'Ada High',
				currentRole: expect.any(String),
				score: 8,
				scoreMinimum: 0,
				scoreMaximum: 10,
				summary: expect.any(String),
				recommendation: expect.any(String),
				status: 'completed',
				needsReview: false,
				reportId: expect.stringMatching(/^rpt_/),
				fileName: 'ada-high.pdf',
				limitations: expect.any(String),
				analysisState: 'succeeded',
			}),
		);
		expect(out[1]).toEqual(
			expect.objectContaining({
				candidateName: 'Bob Low',
				score: 4,
				status: 'completed',
				fileName: 'bob-low.pdf',
			}),
		);
		// The batch item succeeded (the analysis was admitted and finished), but the report needs a human review:
		// the item says so in `status` and `needsReview`, its score is null (unmeasured), never 0.
		expect(out[2]).toEqual(
			expect.objectContaining({
				status: 'requires_action',
				needsReview: true,
				score: null,
				analysisState: 'succeeded',
				fileName: 'cy-review.pdf',
			}),
		);
		// What a Filter node "score >= 7" keeps.
		expect(
			out
				.filter((item) => typeof item.score === 'number' && item.score >= 7)
				.map((item) => item.candidateName),
		).toEqual(['Ada High']);
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		const hints = hintsOf(result).join('\n');
		expect(hints).toContain('human review');
		// The output carries `limitations`, so the hint may point at it.
		expect(hints).toContain('Read "limitations"');
	});

	it('Start Many outputs simplified items; the file name comes from the input item (as Upload Many outputs it)', async () => {
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
				[
					pdfItem({ candidate: 'Dee Start', score: 9 }, 'dee.pdf'),
					pdfItem({ candidate: 'Eve Start', score: 6 }, 'eve.pdf'),
				],
			),
		);
		const out = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'startMany', reportId: '={{ $json.reportId }}' },
				uploads.map((json) => ({ json })),
			),
		);
		expect(
			out.map((item) => [
				item.candidateName,
				item.score,
				item.status,
				item.fileName,
				item.reportId,
			]),
		).toEqual([
			['Dee Start', 9, 'completed', 'dee.pdf', uploads[0].reportId],
			['Eve Start', 6, 'completed', 'eve.pdf', uploads[1].reportId],
		]);
		for (const item of out)
			expect(Object.keys(item).slice(0, FIRST_FIELDS.length)).toEqual(FIRST_FIELDS);
	});

	it('Analyze Resume and Start output the simplified item once they have waited; without waiting, what was started', async () => {
		const waited = jsonOf(
			await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [
				pdfItem({ candidate: 'Fay Wait', score: 7 }, 'fay.pdf'),
			]),
		);
		expect(Object.keys(waited[0]).slice(0, FIRST_FIELDS.length)).toEqual(FIRST_FIELDS);
		expect(waited[0]).toEqual(
			expect.objectContaining({
				candidateName: 'Fay Wait',
				score: 7,
				scoreMaximum: 10,
				status: 'completed',
				needsReview: false,
				fileName: 'fay.pdf',
				timedOut: false,
			}),
		);

		const started = jsonOf(
			await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Gus NoWait' }, 'gus.pdf')]),
		)[0];
		expect(started.attemptId).toMatch(/^att_/);
		expect(started.score).toBeUndefined();

		const uploaded = jsonOf(
			await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'uploadResume',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'existing',
					jobDescriptionId: ws.jobDescriptionId,
				},
				[pdfItem({ candidate: 'Hal Start', score: 5 }, 'hal.pdf')],
			),
		)[0];
		const start = jsonOf(
			await runNode(
				ws,
				{
					resource: 'analysis',
					operation: 'start',
					reportId: '={{ $json.reportId }}',
					options: { waitForCompletion: true, waitTimeout: 30 },
				},
				[{ json: uploaded }],
			),
		)[0];
		expect(start).toEqual(
			expect.objectContaining({
				candidateName: 'Hal Start',
				score: 5,
				status: 'completed',
				fileName: 'hal.pdf',
				reportId: uploaded.reportId,
			}),
		);
	});

	it('Analyze Many run again on the same files: the simplified items come back with their scores, recovered, nothing charged again', async () => {
		const files = [
			pdfItem({ candidate: 'Rex Again', score: 8 }, 'rex.pdf'),
			pdfItem({ candidate: 'Sue Again', score: 6 }, 'sue.pdf'),
		];
		const first = jsonOf(await runNode(ws, analyzeMany(), files));
		const before = await counters(ws);
		const rerun = await runNode(ws, analyzeMany(), files);
		const second = jsonOf(rerun);
		const after = await counters(ws);
		expect(hintsOf(rerun).join('\n')).toContain('"recovered": true were done before');
		expect(
			second.map((item) => [item.candidateName, item.score, item.status, item.reportId]),
		).toEqual(first.map((item) => [item.candidateName, item.score, item.status, item.reportId]));
		for (const item of second) expect(item.recovered).toBe(true);
		expect([
			after.reportsCreated - before.reportsCreated,
			after.attemptsCreated - before.attemptsCreated,
		]).toEqual([0, 0]);
	});

	it('Analyze Resume without Wait for Completion: the items have no score yet, and the hint says so (a Filter on score would drop them all)', async () => {
		const started = await runNode(ws, analyzeParams(ws), [
			pdfItem({ candidate: 'No Wait', score: 8 }, 'no-wait.pdf'),
		]);
		const [item] = jsonOf(started);
		expect(item.reportId).toMatch(/^rpt_/);
		expect(item.score).toBeUndefined();
		expect(hintsOf(started).join('\n')).toContain(
			'These items have no score yet: without Options > Wait for Completion',
		);
		const waited = await runNode(ws, analyzeParams(ws, { waitForCompletion: true }), [
			pdfItem({ candidate: 'Waited', score: 8 }, 'waited.pdf'),
		]);
		expect(jsonOf(waited)[0].score).toBe(8);
		expect(hintsOf(waited).join('\n')).not.toContain('have no score yet');
	});

	it('Analysis > Start without Wait for Completion: no score yet, and the hint says so', async () => {
		const uploaded = await runNode(
			ws,
			{ ...analyzeParams(ws), operation: 'uploadResume', resource: 'upload' },
			[pdfItem({ candidate: 'Start No Wait', score: 7 }, 'start-no-wait.pdf')],
		);
		const reportId = String(jsonOf(uploaded)[0].reportId);
		const started = await runNode(ws, { resource: 'analysis', operation: 'start', reportId });
		const [item] = jsonOf(started);
		expect(item.attemptId).toMatch(/^att_/);
		expect(item.score).toBeUndefined();
		expect(hintsOf(started).join('\n')).toContain('These items have no score yet');
	});

	it('a key without reports:read: Analyze Many does not fail after the analyses ran; the items say what is known and a notice why', async () => {
		const { apiKey } = await sandbox.control.createKey(ws.workspaceId, {
			scopes: ['analyses:write'],
		});
		const result = await runNode({ ...ws, apiKey }, analyzeMany(), [
			pdfItem({ candidate: 'No Scope', score: 8 }, 'no-scope.pdf'),
		]);
		const [item] = jsonOf(result);
		expect(item).toEqual(
			expect.objectContaining({
				reportId: expect.stringMatching(/^rpt_/),
				fileName: 'no-scope.pdf',
				score: null,
				status: null,
				analysisState: 'succeeded',
			}),
		);
		expect(item.attemptId).toMatch(/^att_/);
		expect(hintsOf(result).join('\n')).toContain('lacks the reports:read scope');
	});

	it('Simplify off gives the API objects; the summary hint then says where the limitations are instead of asking to read them', async () => {
		const result = await runNode(ws, analyzeMany({ includeReport: true }, { simplify: false }), [
			pdfItem({ candidate: 'Ivy Raw', outcome: 'requires_action' }, 'ivy.pdf'),
		]);
		const [item] = jsonOf(result);
		expect(item.state).toBe('succeeded');
		expect((item.report as IDataObject).status).toBe('requires_action');
		expect('limitations' in item).toBe(false);
		const hints = hintsOf(result).join('\n');
		expect(hints).toContain('in the report result (Report > Get Result)');
		expect(hints).not.toContain('Read "limitations"');
	});
});

describe('Errors a recruiter can act on', () => {
	it('a DOCX named .pdf stops the run before anything is sent: the message names the file, the item from 1, the fix and On Error', async () => {
		const fresh = await newWorkspace(sandbox.baseUrl);
		const result = await runNode(
			fresh,
			{ ...analyzeMany(), jobDescriptionId: fresh.jobDescriptionId },
			[
				pdfItem({ candidate: 'One' }, 'one.pdf'),
				pdfItem({ candidate: 'Two' }, 'two.pdf'),
				docxNamedPdf('mia-docx.pdf'),
			],
		);
		const message = String(result.error?.message);
		expect(message).toContain('mia-docx.pdf is a DOCX or other ZIP file, not a PDF');
		expect(message).toContain('rename it mia-docx.docx');
		expect(message).toContain('[item 3]');
		expect(message).toContain('Settings > On Error to "Continue"');
		expect(totalRequests(await counters(fresh))).toBe(0);
	});

	it('with On Error "Continue" the bad file becomes an error item with its fileName; the other files are analyzed', async () => {
		const result = await runNode(
			ws,
			analyzeMany(),
			[
				pdfItem({ candidate: 'Jo Good', score: 7 }, 'jo.pdf'),
				docxNamedPdf('mia-docx.pdf'),
				pdfItem({ candidate: 'Kim Good', score: 9 }, 'kim.pdf'),
			],
			{ continueOnFail: true },
		);
		const out = jsonOf(result);
		expect(out[1]).toEqual(
			expect.objectContaining({
				fileName: 'mia-docx.pdf',
				error: expect.stringContaining('rename it mia-docx.docx'),
			}),
		);
		expect(String(out[1].error)).toContain('[item 2]');
		expect(String(out[1].error)).not.toContain('On Error');
		expect([out[0].score, out[2].score]).toEqual([7, 9]);
	});

	it('with On Error "Continue (using error output)" the bad file goes to the error output, the analyzed ones to the main output', async () => {
		const result = await runNode(
			ws,
			analyzeMany(),
			[pdfItem({ candidate: 'Lu Main', score: 8 }, 'lu.pdf'), docxNamedPdf('bad-docx.pdf')],
			{
				onError: 'continueErrorOutput',
			},
		);
		expect(result.error).toBeUndefined();
		const [main, errors] = result.output;
		expect(main.map((item) => item.json.fileName)).toEqual(['lu.pdf']);
		expect(main[0].json.score).toBe(8);
		// n8n's error output keeps error, message and details (and adds the input item's own fields).
		expect(errors.map((item) => (item.json.details as IDataObject).fileName)).toEqual([
			'bad-docx.pdf',
		]);
		expect(String(errors[0].json.error)).toContain('rename it bad-docx.docx');
		expect(String(errors[0].json.error)).toContain('[item 2]');
		expect(errors[0].pairedItem).toEqual({ item: 1 });
	});

	it('a PDF named .docx is recognised the other way round; a single item gets no On Error advice', async () => {
		const result = await runNode(ws, analyzeParams(ws), [
			{
				json: {},
				binary: {
					data: {
						data: makePdf({ candidate: 'Pdf Docx' }),
						mimeType: DOCX_MIME,
						fileName: 'cv.docx',
					},
				},
			},
		]);
		const message = String(result.error?.message);
		expect(message).toContain('cv.docx is a PDF, not a DOCX. Rename it cv.pdf');
		expect(message).toContain('[item 1]');
		expect(message).not.toContain('On Error');
	});

	it('an API error on one item names its file and item; the error item carries fileName and the API facts', async () => {
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
				[pdfItem({ candidate: 'Lee Api' }, 'lee.pdf')],
			),
		);
		const items = [
			{ json: { ...uploads[0] } },
			{ json: { reportId: 'rpt_missing_one', fileName: 'missing.pdf' } },
		];
		const stopped = await runNode(
			ws,
			{ resource: 'analysis', operation: 'start', reportId: '={{ $json.reportId }}' },
			items,
		);
		expect(stopped.error?.message).toContain('[item 2, missing.pdf]');
		expect(stopped.error?.message).toContain('On Error');
		const kept = jsonOf(
			await runNode(
				ws,
				{ resource: 'analysis', operation: 'getQuote', reportId: '={{ $json.reportId }}' },
				items.slice(1),
				{ continueOnFail: true },
			),
		)[0];
		expect(kept).toEqual(
			expect.objectContaining({
				fileName: 'missing.pdf',
				httpCode: 404,
				error: expect.stringContaining('[item 1, missing.pdf]'),
			}),
		);
	});
});

describe("The editor shows what applies (n8n's own display rules)", () => {
	const description = new RecruitingAnalysis().description;
	const saved = (parameters: INodeParameters) =>
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			{ typeVersion: 1 },
			description,
		) as INodeParameters;
	const option = (name: string, operation: string): INodeProperties => {
		const options = description.properties.find(
			(p) => p.name === 'options' && p.displayOptions?.show?.operation?.includes(operation),
		);
		return (options?.options as INodeProperties[]).find((o) => o.name === name)!;
	};

	it.each(['analyzeResume', 'start', 'analyzeMany', 'startMany'])(
		'%s: Simplify is on for a new node',
		(operation) => {
			expect(saved({ resource: 'analysis', operation }).simplify).toBe(true);
		},
	);

	it('Output After Waiting and Include Report Summary are offered only when Simplify is off', () => {
		const shown = (name: string, operation: string, values: INodeParameters) =>
			NodeHelpers.displayParameterPath(
				{ resource: 'analysis', operation, options: {}, ...values },
				option(name, operation),
				'options',
				{ typeVersion: 1 },
				description,
			);
		const waiting = { waitForCompletion: true };
		expect(shown('waitOutput', 'analyzeResume', { ...waiting, simplify: true })).toBe(false);
		expect(shown('waitOutput', 'analyzeResume', { ...waiting, simplify: false })).toBe(true);
		// Analyze Resume's wait settings are offered only while it waits (its Wait for Completion is top-level).
		expect(
			shown('waitOutput', 'analyzeResume', { waitForCompletion: false, simplify: false }),
		).toBe(false);
		expect(shown('waitTimeout', 'analyzeResume', waiting)).toBe(true);
		expect(shown('waitTimeout', 'analyzeResume', { waitForCompletion: false })).toBe(false);
		expect(shown('includeReport', 'analyzeMany', { simplify: true })).toBe(false);
		expect(shown('includeReport', 'startMany', { simplify: false })).toBe(true);
	});
});
