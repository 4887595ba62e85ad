/**
 * Every input rule of the spec, checked by the node before any request: the node stops with a
 * NodeOperationError whose message names the field, and the sandbox receives no request at all.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DOCX_MIME, PDF_MIME, makeDocx, makePdf } from '../../fixtures/resumes';
import type { InputItem } from '../../helpers/n8n-engine';
import {
	counters,
	pdfItem,
	runNode,
	totalRequests,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let ws: Workspace;

useSandboxWorkspace((started) => ({ ws } = started));

const FINGERPRINT = 'a'.repeat(64);
/** An empty value through an expression (a literal empty required field stops n8n before the node runs). */
const EMPTY = '={{ "" }}';

function upload(extra: IDataObject = {}, options: IDataObject = {}): INodeParameters {
	return {
		resource: 'upload',
		operation: 'uploadResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
		...extra,
		options,
	} as INodeParameters;
}

function prepare(extra: IDataObject = {}): INodeParameters {
	return {
		resource: 'upload',
		operation: 'prepare',
		fileName: 'resume.pdf',
		fileSize: 1234,
		mimeType: PDF_MIME,
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
		...extra,
	} as INodeParameters;
}

function binaryItem(data: Buffer, mimeType: string, fileName: string): InputItem {
	return { json: {}, binary: { data: { data, mimeType, fileName } } };
}

interface Case {
	rule: string;
	field: string;
	parameters: () => INodeParameters;
	items?: () => InputItem[];
}

const cases: Case[] = [
	// Upload input (spec: UploadInput)
	{
		rule: 'file name must end in .pdf or .docx',
		field: 'File Name',
		parameters: () => upload(),
		items: () => [binaryItem(makePdf(), PDF_MIME, 'resume.txt')],
	},
	{
		rule: 'file name must not contain a path',
		field: 'File Name',
		parameters: () => upload({}, { fileName: '../cv/resume.pdf' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'file name must not contain a backslash',
		field: 'File Name',
		parameters: () => upload({}, { fileName: 'cv\\resume.pdf' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'file name must not contain control characters',
		field: 'File Name',
		parameters: () => upload({}, { fileName: 'res\u0007ume.pdf' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'file name is at most 200 characters',
		field: 'File Name',
		parameters: () => upload({}, { fileName: `${'a'.repeat(197)}.pdf` }),
		items: () => [pdfItem()],
	},
	{
		rule: 'file size is at least 1 byte',
		field: 'File Size',
		parameters: () => prepare({ fileSize: 0 }),
	},
	{
		rule: 'file size is a whole number of bytes',
		field: 'File Size',
		parameters: () => prepare({ fileSize: 12.5 }),
	},
	{
		rule: 'file size is at most 10485760 bytes',
		field: 'File Size',
		parameters: () => upload(),
		items: () => [binaryItem(makePdf({ sizeBytes: 10_485_761 }), PDF_MIME, 'big.pdf')],
	},
	{
		rule: 'MIME type agrees with the extension',
		field: 'MIME Type',
		parameters: () => prepare({ fileName: 'resume.docx', mimeType: PDF_MIME }),
	},
	{
		rule: 'declared binary type agrees with the extension',
		field: 'MIME Type',
		parameters: () => upload(),
		items: () => [binaryItem(makePdf(), DOCX_MIME, 'resume.pdf')],
	},
	{
		rule: 'content agrees with the declared type',
		field: 'Input Binary Field',
		parameters: () => upload(),
		items: () => [binaryItem(makeDocx(), PDF_MIME, 'resume.pdf')],
	},
	{
		rule: 'inline job text must not be empty',
		field: 'Job Description Text',
		parameters: () => upload({ jobDescriptionSource: 'text', jobDescriptionText: '   ' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'saved job ID must not be empty',
		field: 'Saved Job ID',
		parameters: () => upload({ jobDescriptionId: EMPTY }),
		items: () => [pdfItem()],
	},
	{
		rule: 'saved job ID is at most 100 characters',
		field: 'Saved Job ID',
		parameters: () => prepare({ jobDescriptionId: `jd_${'x'.repeat(100)}` }),
	},
	{
		rule: 'expected revision is 64 hexadecimal characters',
		field: 'Expected Revision',
		parameters: () => prepare({ options: { expectedRevision: 'rev-1' } }),
	},
	{
		rule: 'external reference source is a slug',
		field: 'External Reference Source',
		parameters: () =>
			upload({}, { externalReferenceSource: 'My ATS', externalReferenceId: 'app-1' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'external reference needs its ID with its source',
		field: 'External Reference ID',
		parameters: () => upload({}, { externalReferenceSource: 'my-ats' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'external reference ID is at most 128 characters',
		field: 'External Reference ID',
		parameters: () =>
			upload({}, { externalReferenceSource: 'my-ats', externalReferenceId: 'x'.repeat(129) }),
		items: () => [pdfItem()],
	},
	// Idempotency-Key (spec: 1 to 128, ^[A-Za-z0-9._:-]+$)
	{
		rule: 'idempotency key uses only the allowed characters',
		field: 'Idempotency Key',
		parameters: () => upload({}, { idempotencyKey: 'my key!' }),
		items: () => [pdfItem()],
	},
	{
		rule: 'idempotency key is at most 128 characters',
		field: 'Idempotency Key',
		parameters: () => ({
			resource: 'interview',
			operation: 'resend',
			interviewId: 'int_1',
			options: { idempotencyKey: 'k'.repeat(129) },
		}),
	},
	// Path ids (spec: 1 to 100)
	{
		rule: 'report ID must not be empty',
		field: 'Report ID',
		parameters: () => ({ resource: 'report', operation: 'get', reportId: EMPTY }),
	},
	{
		rule: 'report ID is at most 100 characters',
		field: 'Report ID',
		parameters: () => ({
			resource: 'report',
			operation: 'getStatus',
			reportId: `rpt_${'x'.repeat(100)}`,
		}),
	},
	{
		rule: 'interview ID is at most 100 characters',
		field: 'Interview ID',
		parameters: () => ({ resource: 'interview', operation: 'get', interviewId: 'i'.repeat(101) }),
	},
	{
		rule: 'batch ID must not be empty',
		field: 'Batch ID',
		parameters: () => ({ resource: 'analysis', operation: 'getBatch', batchId: EMPTY }),
	},
	{
		rule: 'job description ID must not be empty',
		field: 'Job Description ID',
		parameters: () => ({ resource: 'jobDescription', operation: 'get', jobDescriptionId: EMPTY }),
	},
	// Quotes and invitations
	{
		rule: 'quote fingerprint is 64 lowercase hexadecimal characters',
		field: 'Quote Fingerprint',
		parameters: () => ({
			resource: 'analysis',
			operation: 'start',
			reportId: 'rpt_1',
			quoteAutomatically: false,
			quoteFingerprint: 'ABC',
		}),
	},
	{
		rule: 'uppercase fingerprint is refused',
		field: 'Quote Fingerprint',
		parameters: () => ({
			resource: 'interview',
			operation: 'invite',
			reportId: 'rpt_1',
			candidateEmail: 'a@example.com',
			quoteAutomatically: false,
			quoteFingerprint: 'A'.repeat(64),
		}),
	},
	{
		rule: 'candidate email has an @ and a domain',
		field: 'Candidate Email',
		parameters: () => ({
			resource: 'interview',
			operation: 'getQuote',
			reportId: 'rpt_1',
			candidateEmail: 'not-an-email',
		}),
	},
	{
		rule: 'candidate email has no leading dot',
		field: 'Candidate Email',
		parameters: () => ({
			resource: 'interview',
			operation: 'invite',
			reportId: 'rpt_1',
			candidateEmail: '.ada@example.com',
		}),
	},
	{
		rule: 'candidate email has no consecutive dots',
		field: 'Candidate Email',
		parameters: () => ({
			resource: 'interview',
			operation: 'reinterview',
			interviewId: 'int_1',
			reportId: 'rpt_1',
			candidateEmail: 'ada..l@example.com',
		}),
	},
	// Lists and feeds
	{
		rule: 'limit is at least 1',
		field: 'Limit',
		parameters: () => ({ resource: 'report', operation: 'getMany', returnAll: false, limit: 0 }),
	},
	{
		rule: 'event page size is at most 100',
		field: 'Limit',
		parameters: () => ({ resource: 'event', operation: 'getMany', returnAll: false, limit: 101 }),
	},
	{
		rule: 'created after is an ISO date-time',
		field: 'Created After',
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { createdAfter: 'yesterday' },
		}),
	},
	{
		rule: 'created before is later than created after',
		field: 'Created Before',
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { createdAfter: '2026-02-01T00:00:00Z', createdBefore: '2026-01-01T00:00:00Z' },
		}),
	},
	{
		rule: 'external reference filter is both or neither',
		field: 'External Reference ID',
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { externalReferenceSource: 'my-ats' },
		}),
	},
	{
		rule: 'interview list filter is both or neither',
		field: 'External Reference Source',
		parameters: () => ({
			resource: 'interview',
			operation: 'getMany',
			filters: { externalReferenceId: 'app-1' },
		}),
	},
	{
		rule: 'cursor is at most 2048 characters',
		field: 'Cursor',
		parameters: () => ({
			resource: 'event',
			operation: 'getMany',
			options: { cursor: 'c'.repeat(2049) },
		}),
	},
	{
		rule: 'event type is a known type',
		field: 'Event Type',
		parameters: () => ({
			resource: 'event',
			operation: 'getMany',
			filters: { type: 'report.exploded' },
		}),
	},
	{
		rule: 'result schema version is 1',
		field: 'Schema Version',
		parameters: () => ({
			resource: 'report',
			operation: 'getResult',
			reportId: 'rpt_1',
			options: { schemaVersion: '2' },
		}),
	},
	{
		rule: 'interview result schema version is 1',
		field: 'Schema Version',
		parameters: () => ({
			resource: 'interview',
			operation: 'getResult',
			interviewId: 'int_1',
			options: { schemaVersion: '0' },
		}),
	},
	// Batch forms validate every item too
	{
		rule: 'batch upload item file name',
		field: 'File Name',
		parameters: () => ({ ...upload(), operation: 'uploadMany' }),
		items: () => [binaryItem(makePdf(), PDF_MIME, 'resume.exe')],
	},
	{
		rule: 'batch invitation email',
		field: 'Candidate Email',
		parameters: () => ({
			resource: 'interview',
			operation: 'inviteMany',
			reportId: 'rpt_1',
			candidateEmail: 'x@',
		}),
	},
	{
		rule: 'batch start fingerprint',
		field: 'Quote Fingerprint',
		parameters: () => ({
			resource: 'analysis',
			operation: 'startMany',
			reportId: 'rpt_1',
			quoteAutomatically: false,
			quoteFingerprint: FINGERPRINT.slice(1),
		}),
	},
	{
		rule: 'batch quote report ID',
		field: 'Report ID',
		parameters: () => ({ resource: 'analysis', operation: 'getQuotes', reportId: EMPTY }),
	},
];

describe('validation before any request: NodeOperationError naming the field, nothing sent', () => {
	it.each(cases.map((c) => [c.rule, c] as const))('%s', async (_rule, c) => {
		const before = await counters(ws);
		const result = await runNode(ws, c.parameters(), c.items?.() ?? [{ json: {} }]);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toContain(`"${c.field}"`);
		const after = await counters(ws);
		expect(totalRequests(after)).toBe(totalRequests(before));
		expect(after.storagePuts).toBe(before.storagePuts);
	});

	it('invalid items of a batch each fail alone with Continue On Fail (paired), and none is sent', async () => {
		// Nothing valid reaches the batch: both items are invalid, so not a single request is made.
		const before = await counters(ws);
		const result = await runNode(
			ws,
			{ resource: 'analysis', operation: 'getQuotes', reportId: '={{ $json.reportId }}' },
			[{ json: { reportId: '' } }, { json: { reportId: 'r'.repeat(101) } }],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const out = result.output[0];
		expect(out).toHaveLength(2);
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of out) expect(String(item.json.error)).toContain('"Report ID"');
		expect(totalRequests(await counters(ws))).toBe(totalRequests(before));
	});
});
