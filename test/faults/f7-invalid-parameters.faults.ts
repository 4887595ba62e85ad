/**
 * F7: invalid parameter values across the operations. Each one must stop the node with a
 * NodeOperationError whose message names the field (as the node shows it) and the rule it broke, and the sandbox
 * must receive nothing: no API request (its per-route counters) and no storage PUT. n8n-core engine + sandbox.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { FigureBook } from './figures';
import { DOCX_MIME, PDF_MIME, makeDocx, makePdf } from '../fixtures/resumes';
import type { InputItem } from '../helpers/n8n-engine';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import {
	counters,
	newWorkspace,
	pdfItem,
	runNode,
	totalRequests,
	type Workspace,
} from '../nodes/action/helpers';

const book = new FigureBook(
	'F7',
	'Invalid parameter values: refused before any request (F7)',
	'n8n-core engine + sandbox counters',
);
let sandbox: TestSandbox;
let ws: Workspace;

beforeAll(async () => {
	sandbox = await startTestSandbox();
	ws = await newWorkspace(sandbox.baseUrl);
});
afterAll(async () => {
	book.save();
	await sandbox?.close();
});

const HEX64 = 'b'.repeat(64);
/** An empty value through an expression (a literal empty required field stops n8n before the node runs). */
const EMPTY = '={{ "" }}';

const analyze = (extra: IDataObject = {}, options: IDataObject = {}): INodeParameters =>
	({
		resource: 'analysis',
		operation: 'analyzeResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: 'jd_x',
		...extra,
		options,
	}) as INodeParameters;
const uploadResume = (extra: IDataObject = {}, options: IDataObject = {}): INodeParameters =>
	({
		...analyze(extra, options),
		resource: 'upload',
		operation: 'uploadResume',
	}) as INodeParameters;
const prepare = (extra: IDataObject = {}, options: IDataObject = {}): INodeParameters =>
	({
		resource: 'upload',
		operation: 'prepare',
		fileName: 'cv.pdf',
		fileSize: 2048,
		mimeType: PDF_MIME,
		jobDescriptionSource: 'existing',
		jobDescriptionId: 'jd_x',
		...extra,
		options,
	}) as INodeParameters;
const invite = (extra: IDataObject = {}): INodeParameters =>
	({
		resource: 'interview',
		operation: 'invite',
		reportId: 'rpt_1',
		candidateEmail: 'ada@example.com',
		...extra,
	}) as INodeParameters;
const file = (data: Buffer, mimeType: string, fileName: string): InputItem => ({
	json: {},
	binary: { data: { data, mimeType, fileName } },
});

interface Case {
	operation: string;
	value: string;
	field: string;
	rule: RegExp;
	parameters: () => INodeParameters;
	items?: () => InputItem[];
}

const cases: Case[] = [
	// File name (spec UploadInput.fileName: 1..200, .pdf/.docx, no / \ or control characters)
	{
		operation: 'analysis.analyzeResume',
		value: 'binary named resume.txt',
		field: 'File Name',
		rule: /must end in \.pdf or \.docx/,
		parameters: () => analyze(),
		items: () => [file(makePdf(), PDF_MIME, 'resume.txt')],
	},
	{
		operation: 'analysis.analyzeResume',
		value: 'file name override "cv.PDF.exe"',
		field: 'File Name',
		rule: /must end in \.pdf or \.docx/,
		parameters: () => analyze({}, { fileName: 'cv.PDF.exe' }),
		items: () => [pdfItem()],
	},
	{
		operation: 'upload.prepare',
		value: 'file name "a/b.pdf"',
		field: 'File Name',
		rule: /must not contain \/ or \\/,
		parameters: () => prepare({ fileName: 'a/b.pdf' }),
	},
	{
		operation: 'upload.prepare',
		value: 'file name "a\\b.docx"',
		field: 'File Name',
		rule: /must not contain \/ or \\/,
		parameters: () => prepare({ fileName: 'a\\b.docx', mimeType: DOCX_MIME }),
	},
	{
		operation: 'upload.prepare',
		value: 'file name with a newline',
		field: 'File Name',
		rule: /control characters/,
		parameters: () => prepare({ fileName: 'cv\n.pdf' }),
	},
	{
		operation: 'upload.prepare',
		value: 'file name of 201 characters',
		field: 'File Name',
		rule: /at most 200 characters/,
		parameters: () => prepare({ fileName: `${'n'.repeat(197)}.pdf` }),
	},
	{
		operation: 'upload.prepare',
		value: 'empty file name',
		field: 'File Name',
		rule: /must not be empty|is required/,
		parameters: () => prepare({ fileName: EMPTY }),
	},
	// File size (1..10485760 bytes, whole number)
	{
		operation: 'upload.prepare',
		value: 'file size 0',
		field: 'File Size',
		rule: /at least 1 byte/,
		parameters: () => prepare({ fileSize: 0 }),
	},
	{
		operation: 'upload.prepare',
		value: 'file size -5',
		field: 'File Size',
		rule: /at least 1 byte/,
		parameters: () => prepare({ fileSize: -5 }),
	},
	{
		operation: 'upload.prepare',
		value: 'file size 10485761',
		field: 'File Size',
		rule: /at most 10485760 bytes/,
		parameters: () => prepare({ fileSize: 10_485_761 }),
	},
	{
		operation: 'upload.prepare',
		value: 'file size 1.5',
		field: 'File Size',
		rule: /whole number of bytes/,
		parameters: () => prepare({ fileSize: 1.5 }),
	},
	{
		operation: 'upload.uploadResume',
		value: 'binary of 10485761 bytes',
		field: 'File Size',
		rule: /at most 10485760 bytes/,
		parameters: () => uploadResume(),
		items: () => [file(makePdf({ sizeBytes: 10_485_761 }), PDF_MIME, 'big.pdf')],
	},
	// MIME type and content agreement
	{
		operation: 'upload.prepare',
		value: 'MIME text/plain',
		field: 'MIME Type',
		rule: /must be application\/pdf or/,
		parameters: () => prepare({ mimeType: 'text/plain' }),
	},
	{
		operation: 'upload.prepare',
		value: '.pdf declared as DOCX',
		field: 'MIME Type',
		rule: /must agree with the file extension/,
		parameters: () => prepare({ mimeType: DOCX_MIME }),
	},
	{
		operation: 'analysis.analyzeResume',
		value: 'binary .docx typed application/pdf',
		field: 'MIME Type',
		rule: /must agree with the file extension/,
		parameters: () => analyze(),
		items: () => [file(makeDocx(), PDF_MIME, 'cv.docx')],
	},
	{
		operation: 'analysis.analyzeResume',
		value: 'PDF bytes named .docx and typed DOCX',
		field: 'Input Binary Field',
		rule: /DOCX|ZIP|content/i,
		parameters: () => analyze(),
		items: () => [file(makePdf(), DOCX_MIME, 'cv.docx')],
	},
	// Job description (inline text or saved job)
	{
		operation: 'analysis.analyzeResume',
		value: 'inline job text of spaces',
		field: 'Job Description Text',
		rule: /must not be empty/,
		parameters: () => analyze({ jobDescriptionSource: 'text', jobDescriptionText: '   ' }),
		items: () => [pdfItem()],
	},
	{
		operation: 'upload.uploadResume',
		value: 'saved job ID of 101 characters',
		field: 'Saved Job ID',
		rule: /at most 100 characters/,
		parameters: () => uploadResume({ jobDescriptionId: 'j'.repeat(101) }),
		items: () => [pdfItem()],
	},
	{
		operation: 'upload.prepare',
		value: 'expected revision "v2"',
		field: 'Expected Revision',
		rule: /64 hexadecimal characters/,
		parameters: () => prepare({}, { expectedRevision: 'v2' }),
	},
	// External reference (source slug 1..64, id 1..128, both or neither)
	{
		operation: 'upload.prepare',
		value: 'reference source "ATS_1"',
		field: 'External Reference Source',
		rule: /lowercase slug/,
		parameters: () => prepare({}, { externalReferenceSource: 'ATS_1', externalReferenceId: 'a-1' }),
	},
	{
		operation: 'analysis.analyzeResume',
		value: 'reference source of 65 characters',
		field: 'External Reference Source',
		rule: /at most 64 characters/,
		parameters: () =>
			analyze({}, { externalReferenceSource: 's'.repeat(65), externalReferenceId: 'a-1' }),
		items: () => [pdfItem()],
	},
	{
		operation: 'analysis.analyzeResume',
		value: 'reference ID without source',
		field: 'External Reference Source',
		rule: /both or neither/,
		parameters: () => analyze({}, { externalReferenceId: 'a-1' }),
		items: () => [pdfItem()],
	},
	{
		operation: 'report.getMany',
		value: 'filter reference ID of 129 characters',
		field: 'External Reference ID',
		rule: /at most 128 characters/,
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { externalReferenceSource: 'ats', externalReferenceId: 'x'.repeat(129) },
		}),
	},
	// Idempotency key (1..128, ^[A-Za-z0-9._:-]+$)
	{
		operation: 'analysis.start',
		value: 'idempotency key "key with spaces"',
		field: 'Idempotency Key',
		rule: /characters|letters/,
		parameters: () => ({
			resource: 'analysis',
			operation: 'start',
			reportId: 'rpt_1',
			options: { idempotencyKey: 'key with spaces' },
		}),
	},
	{
		operation: 'interview.invite',
		value: 'idempotency key of 129 characters',
		field: 'Idempotency Key',
		rule: /at most 128 characters/,
		parameters: () => invite({ options: { idempotencyKey: 'k'.repeat(129) } }),
	},
	{
		operation: 'interview.reinterview',
		value: 'idempotency key "é-accent"',
		field: 'Idempotency Key',
		rule: /characters|letters/,
		parameters: () => ({
			resource: 'interview',
			operation: 'reinterview',
			interviewId: 'int_1',
			reportId: 'rpt_1',
			candidateEmail: 'ada@example.com',
			options: { idempotencyKey: 'é-accent' },
		}),
	},
	// Path IDs (1..100)
	{
		operation: 'report.getResult',
		value: 'report ID of 101 characters',
		field: 'Report ID',
		rule: /at most 100 characters/,
		parameters: () => ({ resource: 'report', operation: 'getResult', reportId: 'r'.repeat(101) }),
	},
	{
		operation: 'upload.cancel',
		value: 'empty report ID',
		field: 'Report ID',
		rule: /must not be empty/,
		parameters: () => ({ resource: 'upload', operation: 'cancel', reportId: EMPTY }),
	},
	{
		operation: 'upload.refreshUrl',
		value: 'report ID of 101 characters',
		field: 'Report ID',
		rule: /at most 100 characters/,
		parameters: () => ({ resource: 'upload', operation: 'refreshUrl', reportId: 'r'.repeat(101) }),
	},
	{
		operation: 'interview.getStatus',
		value: 'empty interview ID',
		field: 'Interview ID',
		rule: /must not be empty/,
		parameters: () => ({ resource: 'interview', operation: 'getStatus', interviewId: EMPTY }),
	},
	{
		operation: 'interview.resend',
		value: 'interview ID of 101 characters',
		field: 'Interview ID',
		rule: /at most 100 characters/,
		parameters: () => ({
			resource: 'interview',
			operation: 'resend',
			interviewId: 'i'.repeat(101),
		}),
	},
	{
		operation: 'upload.getBatch',
		value: 'batch ID of 101 characters',
		field: 'Batch ID',
		rule: /at most 100 characters/,
		parameters: () => ({ resource: 'upload', operation: 'getBatch', batchId: 'b'.repeat(101) }),
	},
	{
		operation: 'jobDescription.get',
		value: 'job description ID of 101 characters',
		field: 'Job Description ID',
		rule: /at most 100 characters/,
		parameters: () => ({
			resource: 'jobDescription',
			operation: 'get',
			jobDescriptionId: 'j'.repeat(101),
		}),
	},
	// Quote fingerprints (^[a-f0-9]{64}$) and emails
	{
		operation: 'analysis.start',
		value: 'fingerprint of 63 hex characters',
		field: 'Quote Fingerprint',
		rule: /64 lowercase hexadecimal/,
		parameters: () => ({
			resource: 'analysis',
			operation: 'start',
			reportId: 'rpt_1',
			quoteAutomatically: false,
			quoteFingerprint: HEX64.slice(1),
		}),
	},
	{
		operation: 'interview.reinterview',
		value: 'fingerprint with a "g"',
		field: 'Quote Fingerprint',
		rule: /64 lowercase hexadecimal/,
		parameters: () => ({
			resource: 'interview',
			operation: 'reinterview',
			interviewId: 'int_1',
			reportId: 'rpt_1',
			candidateEmail: 'ada@example.com',
			quoteAutomatically: false,
			quoteFingerprint: `g${HEX64.slice(1)}`,
		}),
	},
	{
		operation: 'interview.invite',
		value: 'email "ada@"',
		field: 'Candidate Email',
		rule: /email address/,
		parameters: () => invite({ candidateEmail: 'ada@' }),
	},
	{
		operation: 'interview.invite',
		value: 'email "ada lovelace@example.com"',
		field: 'Candidate Email',
		rule: /email address/,
		parameters: () => invite({ candidateEmail: 'ada lovelace@example.com' }),
	},
	{
		operation: 'interview.getQuote',
		value: 'email ".ada@example.com"',
		field: 'Candidate Email',
		rule: /must not start with a dot/,
		parameters: () => ({
			resource: 'interview',
			operation: 'getQuote',
			reportId: 'rpt_1',
			candidateEmail: '.ada@example.com',
		}),
	},
	{
		operation: 'interview.getQuotes',
		value: 'email "a..b@example.com"',
		field: 'Candidate Email',
		rule: /consecutive dots/,
		parameters: () => ({
			resource: 'interview',
			operation: 'getQuotes',
			reportId: 'rpt_1',
			candidateEmail: 'a..b@example.com',
		}),
	},
	// Lists, dates, cursors, feed filters, schema versions
	{
		operation: 'interview.getMany',
		value: 'limit -3',
		field: 'Limit',
		rule: /at least 1/,
		parameters: () => ({
			resource: 'interview',
			operation: 'getMany',
			returnAll: false,
			limit: -3,
		}),
	},
	{
		operation: 'jobDescription.getMany',
		value: 'limit 0',
		field: 'Limit',
		rule: /at least 1/,
		parameters: () => ({
			resource: 'jobDescription',
			operation: 'getMany',
			returnAll: false,
			limit: 0,
		}),
	},
	{
		operation: 'report.getMany',
		value: 'created before "2026-13-45"',
		field: 'Created Before',
		rule: /ISO 8601|calendar/,
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { createdBefore: '2026-13-45' },
		}),
	},
	{
		operation: 'report.getMany',
		value: 'created after "last monday"',
		field: 'Created After',
		rule: /ISO 8601 date-time/,
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { createdAfter: 'last monday' },
		}),
	},
	{
		operation: 'report.getMany',
		value: 'created before equal to created after',
		field: 'Created Before',
		rule: /later than Created After/,
		parameters: () => ({
			resource: 'report',
			operation: 'getMany',
			filters: { createdAfter: '2026-01-01T00:00:00Z', createdBefore: '2026-01-01T00:00:00Z' },
		}),
	},
	{
		operation: 'event.getMany',
		value: 'event type "report.created"',
		field: 'Event Type',
		rule: /must be one of the event types/,
		parameters: () => ({
			resource: 'event',
			operation: 'getMany',
			filters: { type: 'report.created' },
		}),
	},
	{
		operation: 'event.getMany',
		value: 'cursor of 2049 characters',
		field: 'Cursor',
		rule: /at most 2048 characters/,
		parameters: () => ({
			resource: 'event',
			operation: 'getMany',
			options: { cursor: 'c'.repeat(2049) },
		}),
	},
	{
		operation: 'interview.getMany',
		value: 'lifecycle "pending"',
		field: 'Lifecycle',
		rule: /must be one of invited/,
		parameters: () => ({
			resource: 'interview',
			operation: 'getMany',
			filters: { lifecycle: 'pending' },
		}),
	},
	{
		operation: 'report.getResult',
		value: 'schema version "1.0"',
		field: 'Schema Version',
		rule: /must be "1"/,
		parameters: () => ({
			resource: 'report',
			operation: 'getResult',
			reportId: 'rpt_1',
			options: { schemaVersion: '1.0' },
		}),
	},
	// Batch forms check every item (chunks of 20) before the envelope is sent
	{
		operation: 'upload.uploadMany',
		value: 'a file named .rtf',
		field: 'File Name',
		rule: /must end in \.pdf or \.docx/,
		parameters: () => ({ ...uploadResume(), operation: 'uploadMany' }),
		items: () => [file(makePdf(), PDF_MIME, 'cv.rtf')],
	},
	{
		operation: 'analysis.startMany',
		value: 'empty report ID',
		field: 'Report ID',
		rule: /must not be empty/,
		parameters: () => ({ resource: 'analysis', operation: 'startMany', reportId: EMPTY }),
	},
	{
		operation: 'interview.inviteMany',
		value: 'email "x@y"',
		field: 'Candidate Email',
		rule: /email address/,
		parameters: () => ({
			resource: 'interview',
			operation: 'inviteMany',
			reportId: 'rpt_1',
			candidateEmail: 'x@y',
		}),
	},
];

const results: Array<{
	operation: string;
	value: string;
	field: string;
	errorName: string | null;
	message: string;
	requests: number;
	storagePuts: number;
	ok: boolean;
}> = [];

describe('F7: invalid parameter values are refused before any request', () => {
	it('there are at least 40 cases over at least 15 operations', () => {
		expect(cases.length).toBeGreaterThanOrEqual(40);
		expect(new Set(cases.map((c) => c.operation)).size).toBeGreaterThanOrEqual(15);
	});

	it.each(cases.map((c) => [`${c.operation}: ${c.value}`, c] as const))('%s', async (_name, c) => {
		const before = await counters(ws);
		const result = await runNode(ws, c.parameters(), c.items?.() ?? [{ json: {} }]);
		const after = await counters(ws);
		const message = result.error?.message ?? '';
		const requests = totalRequests(after) - totalRequests(before);
		const storagePuts = after.storagePuts - before.storagePuts;
		const ok =
			result.error?.name === 'NodeOperationError' &&
			message.includes(`"${c.field}"`) &&
			c.rule.test(message) &&
			requests === 0 &&
			storagePuts === 0;
		results.push({
			operation: c.operation,
			value: c.value,
			field: c.field,
			errorName: result.error?.name ?? null,
			message,
			requests,
			storagePuts,
			ok,
		});
		expect(result.error?.name).toBe('NodeOperationError');
		expect(message).toContain(`"${c.field}"`);
		expect(message).toMatch(c.rule);
		expect(requests).toBe(0);
		expect(storagePuts).toBe(0);
	});

	afterAll(() => {
		book.set('cases', results.length);
		book.set('operations', new Set(results.map((r) => r.operation)).size);
		book.set(
			'nodeOperationErrors',
			results.filter((r) => r.errorName === 'NodeOperationError').length,
		);
		book.set(
			'requestsSent',
			results.reduce((s, r) => s + r.requests, 0),
		);
		book.set(
			'storagePuts',
			results.reduce((s, r) => s + r.storagePuts, 0),
		);
		book.set(
			'table',
			results.map((r) => ({
				operation: r.operation,
				value: r.value,
				field: r.field,
				ok: r.ok,
				message: r.message.slice(0, 160),
			})),
		);
		const passed = results.filter((r) => r.ok).length;
		book.check(
			'each invalid value: NodeOperationError naming field and rule, 0 requests',
			`${passed}/${results.length}`,
			passed === results.length && results.length >= 40,
		);
	});
});
