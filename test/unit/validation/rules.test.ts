/**
 * One test per input rule of the spec (its sections UploadInput, Conventions, Endpoints, Limits, Interviews, Batch
 * rules), named after the rule. Each checks the boundary on both sides and the message that names the rule.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { INode, IExecuteFunctions } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod';

import {
	analysisBatchSchema,
	createdRangeSchema,
	cursorSchema,
	DOCX_MIME_TYPE,
	emailSchema,
	eventTypeSchema,
	externalReferenceFilterSchema,
	externalReferenceSchema,
	fileNameSchema,
	fileSizeSchema,
	fingerprintSchema,
	idempotencyKeySchema,
	idSchema,
	interviewBatchSchema,
	interviewInputSchema,
	jobDescriptionInputSchema,
	labelForPath,
	limitSchema,
	MAX_BATCH_BODY_BYTES,
	PDF_MIME_TYPE,
	resumeFileSchema,
	schemaVersionSchema,
	uploadBatchSchema,
	uploadInputSchema,
	validateCreatedRange,
	validateExternalReferenceFilter,
	validateId,
	validateInput,
	validateSchemaVersion,
} from '../../../nodes/RecruitingAnalysis/validation';
import {
	contentMatchesMimeType,
	inferResumeMimeType,
	validateResumeFile,
} from '../../../nodes/RecruitingAnalysis/actions/upload/resumeUpload';

const node: INode = {
	id: 'node-1',
	name: 'Recruiting Analysis',
	type: 'n8n-nodes-recruiting-analysis.recruitingAnalysis',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
// validateInput only needs the node to attribute its error; the node-level tests run it inside n8n's engine.
const context = { getNode: () => node } as unknown as IExecuteFunctions;

// The first broken rule as validateInput reports it: the field's label and the rule's message.
function firstFailure(schema: ZodType<unknown, ZodTypeDef, unknown>, value: unknown) {
	const result = schema.safeParse(value);
	if (result.success) return undefined;
	const issue = result.error.issues[0];
	const path = issue.path
		.map((segment, index) =>
			typeof segment === 'number' ? `[${segment}]` : index ? `.${segment}` : segment,
		)
		.join('');
	return { label: labelForPath(issue.path), rule: issue.message, path };
}

function rule(schema: ZodType<unknown, ZodTypeDef, unknown>, value: unknown): string | undefined {
	return firstFailure(schema, value)?.rule;
}

const FINGERPRINT = 'a'.repeat(64);

describe('UploadInput.fileName', () => {
	test('fileName length 1 to 200', () => {
		expect(rule(fileNameSchema, 'a.pdf')).toBeUndefined();
		expect(rule(fileNameSchema, `${'a'.repeat(196)}.pdf`)).toBeUndefined(); // 200
		expect(rule(fileNameSchema, `${'a'.repeat(197)}.pdf`)).toBe('must be at most 200 characters'); // 201
		expect(rule(fileNameSchema, '')).toBe('must not be empty');
	});
	test('fileName must end in .pdf or .docx', () => {
		expect(rule(fileNameSchema, 'cv.PDF')).toBeUndefined();
		expect(rule(fileNameSchema, 'cv.docx')).toBeUndefined();
		expect(rule(fileNameSchema, 'cv.doc')).toBe('must end in .pdf or .docx');
		expect(rule(fileNameSchema, 'cv.pdf.txt')).toBe('must end in .pdf or .docx');
	});
	test('fileName must not contain / or \\', () => {
		expect(rule(fileNameSchema, 'dir/cv.pdf')).toMatch(/must not contain \/ or \\/);
		expect(rule(fileNameSchema, 'C:\\cv.pdf')).toMatch(/must not contain \/ or \\/);
	});
	test('fileName must not contain control characters', () => {
		expect(rule(fileNameSchema, 'cv\u0000.pdf')).toBe('must not contain control characters');
		expect(rule(fileNameSchema, 'cv\n.pdf')).toBe('must not contain control characters');
		expect(rule(fileNameSchema, 'cv\u007f.pdf')).toBe('must not contain control characters');
		expect(rule(fileNameSchema, 'Lebenslauf Müller.pdf')).toBeUndefined();
	});
});

describe('UploadInput.fileSize', () => {
	test('fileSize exact byte length 1 to 10485760', () => {
		expect(rule(fileSizeSchema, 1)).toBeUndefined();
		expect(rule(fileSizeSchema, 10_485_760)).toBeUndefined();
		expect(rule(fileSizeSchema, 10_485_761)).toMatch(/at most 10485760 bytes/);
		expect(rule(fileSizeSchema, 0)).toMatch(/at least 1 byte/);
	});
	test('fileSize is a whole number of bytes (not megabytes)', () => {
		expect(rule(fileSizeSchema, 1.5)).toBe('must be a whole number of bytes');
		expect(rule(fileSizeSchema, '100')).toBe('must be a number of bytes');
	});
});

describe('UploadInput.mimeType', () => {
	test('mimeType is application/pdf or the DOCX type', () => {
		expect(
			rule(resumeFileSchema, { fileName: 'a.pdf', fileSize: 5, mimeType: 'application/msword' }),
		).toMatch(/must be application\/pdf or application\/vnd\.openxmlformats/);
	});
	test('extension and declared type must agree', () => {
		const failure = firstFailure(resumeFileSchema, {
			fileName: 'a.pdf',
			fileSize: 5,
			mimeType: DOCX_MIME_TYPE,
		});
		expect(failure).toEqual({
			label: 'MIME Type',
			path: 'mimeType',
			rule: `must agree with the file extension (.pdf needs ${PDF_MIME_TYPE})`,
		});
		expect(
			rule(resumeFileSchema, { fileName: 'a.docx', fileSize: 5, mimeType: DOCX_MIME_TYPE }),
		).toBeUndefined();
	});
	test('generic binary MIME types are inferred from the extension', () => {
		expect(inferResumeMimeType('cv.docx', 'application/octet-stream')).toBe(DOCX_MIME_TYPE);
		expect(inferResumeMimeType('cv.docx', 'application/zip')).toBe(DOCX_MIME_TYPE);
		expect(inferResumeMimeType('cv.pdf', '')).toBe(PDF_MIME_TYPE);
		expect(inferResumeMimeType('cv.pdf', 'application/pdf; charset=binary')).toBe(PDF_MIME_TYPE);
		// A specific but wrong type is kept, so the agreement rule can reject it.
		expect(inferResumeMimeType('cv.pdf', 'image/png')).toBe('image/png');
	});
	test('content must agree with the type (PDF magic, DOCX is a ZIP)', () => {
		expect(contentMatchesMimeType(Buffer.from('%PDF-1.4\n'), PDF_MIME_TYPE)).toBe(true);
		expect(
			contentMatchesMimeType(Buffer.from('PK\u0003\u0004rest', 'latin1'), DOCX_MIME_TYPE),
		).toBe(true);
		expect(contentMatchesMimeType(Buffer.from('<html>'), PDF_MIME_TYPE)).toBe(false);
		expect(contentMatchesMimeType(Buffer.from('%PDF-1.4'), DOCX_MIME_TYPE)).toBe(false);
	});
});

describe('candidateEmail', () => {
	test('email format', () => {
		expect(rule(emailSchema, 'ada@example.com')).toBeUndefined();
		expect(rule(emailSchema, "o'neil+jobs@mail.example.co.uk")).toBeUndefined();
		expect(rule(emailSchema, 'ada@example')).toBe('must be an email address like name@example.com');
		expect(rule(emailSchema, 'ada.example.com')).toBe(
			'must be an email address like name@example.com',
		);
		expect(rule(emailSchema, 'ada@-example.com')).toBe(
			'must be an email address like name@example.com',
		);
	});
	test('email has no leading dot', () => {
		expect(rule(emailSchema, '.ada@example.com')).toBe('must not start with a dot');
	});
	test('email has no consecutive dots', () => {
		expect(rule(emailSchema, 'ada..l@example.com')).toBe('must not contain consecutive dots');
		expect(rule(emailSchema, 'ada@example..com')).toBe('must not contain consecutive dots');
	});
});

describe('identifiers, keys, paging', () => {
	test('path id length 1 to 100', () => {
		expect(rule(idSchema, 'r')).toBeUndefined();
		expect(rule(idSchema, 'r'.repeat(100))).toBeUndefined();
		expect(rule(idSchema, 'r'.repeat(101))).toBe('must be at most 100 characters');
		expect(rule(idSchema, '')).toBe('must not be empty');
	});
	test('Idempotency-Key length 1 to 128', () => {
		expect(rule(idempotencyKeySchema, 'k'.repeat(128))).toBeUndefined();
		expect(rule(idempotencyKeySchema, 'k'.repeat(129))).toBe('must be at most 128 characters');
		expect(rule(idempotencyKeySchema, '')).toBe('must not be empty');
	});
	test('Idempotency-Key pattern ^[A-Za-z0-9._:-]+$', () => {
		expect(rule(idempotencyKeySchema, 'Ab9._:-')).toBeUndefined();
		expect(rule(idempotencyKeySchema, 'has space')).toBe(
			'may only contain letters, digits and . _ : -',
		);
		expect(rule(idempotencyKeySchema, 'slash/')).toBe(
			'may only contain letters, digits and . _ : -',
		);
	});
	test('cursor length 1 to 2048', () => {
		expect(rule(cursorSchema, 'c'.repeat(2048))).toBeUndefined();
		expect(rule(cursorSchema, 'c'.repeat(2049))).toBe('must be at most 2048 characters');
		expect(rule(cursorSchema, '')).toBe('must not be empty');
	});
	test('limit 1 to 100', () => {
		expect(rule(limitSchema, 1)).toBeUndefined();
		expect(rule(limitSchema, 100)).toBeUndefined();
		expect(rule(limitSchema, 101)).toBe('must be at most 100');
		expect(rule(limitSchema, 0)).toBe('must be at least 1');
		expect(rule(limitSchema, 2.5)).toBe('must be a whole number');
	});
	test('quote fingerprint ^[a-f0-9]{64}$', () => {
		expect(rule(fingerprintSchema, FINGERPRINT)).toBeUndefined();
		expect(rule(fingerprintSchema, 'A'.repeat(64))).toMatch(/64 lowercase hexadecimal/);
		expect(rule(fingerprintSchema, 'a'.repeat(63))).toMatch(/64 lowercase hexadecimal/);
		expect(rule(fingerprintSchema, 'g'.repeat(64))).toMatch(/64 lowercase hexadecimal/);
	});
	test('schemaVersion is "1"', () => {
		expect(rule(schemaVersionSchema, '1')).toBeUndefined();
		expect(rule(schemaVersionSchema, '2')).toBe(
			'must be "1" (the only supported result schema version)',
		);
	});
	test('event type filter accepts the listed event types', () => {
		expect(rule(eventTypeSchema, 'report.completed')).toBeUndefined();
		expect(rule(eventTypeSchema, 'report.exploded')).toMatch(/must be one of the event types/);
	});
});

describe('external reference', () => {
	test('external reference source slug ^[a-z0-9]+(?:-[a-z0-9]+)*$, length 1 to 64', () => {
		expect(rule(externalReferenceSchema, { source: 'green-house2', id: 'A-1' })).toBeUndefined();
		expect(rule(externalReferenceSchema, { source: 'Greenhouse', id: 'A-1' })).toMatch(
			/lowercase slug/,
		);
		expect(rule(externalReferenceSchema, { source: 'a--b', id: 'A-1' })).toMatch(/lowercase slug/);
		expect(rule(externalReferenceSchema, { source: '-a', id: 'A-1' })).toMatch(/lowercase slug/);
		expect(rule(externalReferenceSchema, { source: 'a'.repeat(64), id: 'x' })).toBeUndefined();
		expect(rule(externalReferenceSchema, { source: 'a'.repeat(65), id: 'x' })).toBe(
			'must be at most 64 characters',
		);
	});
	test('external reference id length 1 to 128 (case-sensitive, kept as given)', () => {
		expect(rule(externalReferenceSchema, { source: 'ats', id: 'x'.repeat(128) })).toBeUndefined();
		expect(rule(externalReferenceSchema, { source: 'ats', id: 'x'.repeat(129) })).toBe(
			'must be at most 128 characters',
		);
		expect(rule(externalReferenceSchema, { source: 'ats', id: '' })).toBe('must not be empty');
	});
	test('external reference filter: both or neither', () => {
		expect(rule(externalReferenceFilterSchema, {})).toBeUndefined();
		expect(
			rule(externalReferenceFilterSchema, {
				externalReferenceSource: 'ats',
				externalReferenceId: '1',
			}),
		).toBeUndefined();
		expect(
			firstFailure(externalReferenceFilterSchema, { externalReferenceSource: 'ats' }),
		).toMatchObject({
			label: 'External Reference ID',
			rule: 'must be set together with the other external reference field (both or neither)',
		});
		expect(firstFailure(externalReferenceFilterSchema, { externalReferenceId: '1' })?.label).toBe(
			'External Reference Source',
		);
	});
});

describe('createdAfter / createdBefore', () => {
	test('createdAfter and createdBefore are ISO 8601 date-times with timezone', () => {
		expect(rule(createdRangeSchema, { createdAfter: '2026-01-01T00:00:00Z' })).toBeUndefined();
		expect(
			rule(createdRangeSchema, { createdAfter: '2026-01-01T00:00:00.123+02:00' }),
		).toBeUndefined();
		expect(rule(createdRangeSchema, { createdAfter: '2026-01-01T00:00:00' })).toMatch(
			/with a timezone/,
		);
		expect(rule(createdRangeSchema, { createdBefore: 'yesterday' })).toMatch(/with a timezone/);
	});
	test('createdBefore must be later than createdAfter', () => {
		const same = { createdAfter: '2026-01-02T00:00:00Z', createdBefore: '2026-01-02T00:00:00Z' };
		expect(firstFailure(createdRangeSchema, same)).toMatchObject({
			label: 'Created Before',
			rule: 'must be later than Created After',
		});
		expect(
			rule(createdRangeSchema, { ...same, createdBefore: '2026-01-02T00:00:00.001Z' }),
		).toBeUndefined();
	});
});

describe('job description input', () => {
	test('job description is inline text or a saved job {kind: existing, id, expectedRevision?}', () => {
		expect(
			rule(jobDescriptionInputSchema, { kind: 'text', text: 'Senior engineer' }),
		).toBeUndefined();
		expect(rule(jobDescriptionInputSchema, { kind: 'existing', id: 'jd_1' })).toBeUndefined();
		expect(rule(jobDescriptionInputSchema, { kind: 'text', text: '   ' })).toMatch(
			/must not be empty/,
		);
		expect(rule(jobDescriptionInputSchema, { kind: 'other' })).toBe(
			'must be inline text or a saved job',
		);
	});
	test('expectedRevision is 64 hexadecimal characters', () => {
		expect(
			rule(jobDescriptionInputSchema, {
				kind: 'existing',
				id: 'jd_1',
				expectedRevision: 'f'.repeat(64),
			}),
		).toBeUndefined();
		expect(
			rule(jobDescriptionInputSchema, { kind: 'existing', id: 'jd_1', expectedRevision: 'rev-2' }),
		).toMatch(/64 hexadecimal/);
	});
	test('upload input requires a job description', () => {
		expect(
			firstFailure(uploadInputSchema, { fileName: 'a.pdf', fileSize: 10, mimeType: PDF_MIME_TYPE })
				?.label,
		).toBe('Job Description');
	});
});

describe('batch rules', () => {
	const analysisItem = (key: string) => ({
		itemKey: key,
		input: { reportId: `rpt_${key}`, quoteFingerprint: FINGERPRINT },
	});

	test('batch holds 1 to 20 items', () => {
		expect(rule(analysisBatchSchema, { items: [analysisItem('a')] })).toBeUndefined();
		const twenty = Array.from({ length: 20 }, (_, i) => analysisItem(String(i)));
		expect(rule(analysisBatchSchema, { items: twenty })).toBeUndefined();
		expect(rule(analysisBatchSchema, { items: [...twenty, analysisItem('x')] })).toBe(
			'must hold at most 20 entries per batch',
		);
		expect(rule(analysisBatchSchema, { items: [] })).toBe('must hold at least 1 entry');
	});
	test('batch itemKey values are unique', () => {
		const failure = firstFailure(analysisBatchSchema, {
			items: [analysisItem('a'), analysisItem('b'), analysisItem('a')],
		});
		expect(failure).toMatchObject({ label: 'Item Key (entry 3)', path: 'items[2].itemKey' });
		expect(failure?.rule).toMatch(/must be unique within the batch/);
	});
	test('batch request JSON is at most 256 KiB', () => {
		const text = 'x'.repeat(14_000);
		const items = Array.from({ length: 20 }, (_, i) => ({
			itemKey: `k${i}`,
			input: {
				fileName: 'a.pdf',
				fileSize: 10,
				mimeType: PDF_MIME_TYPE,
				jobDescription: { kind: 'text', text },
			},
		}));
		expect(rule(uploadBatchSchema, { items })).toMatch(
			new RegExp(`at most ${MAX_BATCH_BODY_BYTES} bytes`),
		);
		const smaller = items.map((item) => ({
			...item,
			input: { ...item.input, jobDescription: { kind: 'text', text: 'short' } },
		}));
		expect(rule(uploadBatchSchema, { items: smaller })).toBeUndefined();
	});
	test('upload batch items need a job description when the batch has none', () => {
		const items = [
			{ itemKey: 'a', input: { fileName: 'a.pdf', fileSize: 10, mimeType: PDF_MIME_TYPE } },
		];
		expect(firstFailure(uploadBatchSchema, { items })?.path).toBe('items[0].input.jobDescription');
		expect(
			rule(uploadBatchSchema, { items, jobDescription: { kind: 'existing', id: 'jd_1' } }),
		).toBeUndefined();
	});
	test('batch item fields follow the single-item rules (path names the entry)', () => {
		const items = [
			{ itemKey: 'a', input: { fileName: 'a.exe', fileSize: 10, mimeType: PDF_MIME_TYPE } },
		];
		expect(
			firstFailure(uploadBatchSchema, { items, jobDescription: { kind: 'existing', id: 'jd_1' } }),
		).toEqual({
			label: 'File Name (entry 1)',
			path: 'items[0].input.fileName',
			rule: 'must end in .pdf or .docx',
		});
	});
	test('interview batches support only sendEmail true', () => {
		const item = {
			itemKey: 'a',
			input: {
				reportId: 'rpt_1',
				candidateEmail: 'a@example.com',
				sendEmail: false,
				quoteFingerprint: FINGERPRINT,
			},
		};
		expect(rule(interviewBatchSchema, { items: [item] })).toBe(
			'must be true (batches only send email)',
		);
	});
});

describe('validateInput → NodeOperationError naming field and rule', () => {
	test('the message names the field as the node shows it, and the rule; itemIndex and a description are set', () => {
		let thrown: unknown;
		try {
			validateResumeFile.call(
				context,
				{ fileName: 'resume.txt', fileSize: 10, mimeType: 'text/plain' },
				3,
			);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(NodeOperationError);
		const error = thrown as NodeOperationError;
		expect(error.message).toBe('"File Name" must end in .pdf or .docx');
		expect(error.context.itemIndex).toBe(3);
		expect(error.description).toMatch(/Change "File Name"/);
		expect(error.description).toMatch(/Nothing was sent/);
	});
	test('validateResumeFile returns the inferred MIME type', () => {
		expect(
			validateResumeFile.call(
				context,
				{ fileName: 'cv.docx', fileSize: 10, mimeType: 'application/octet-stream' },
				0,
			),
		).toEqual({ fileName: 'cv.docx', fileSize: 10, mimeType: DOCX_MIME_TYPE });
	});
	test('scalar helpers use their field label', () => {
		const invitation = { reportId: 'rpt_1', candidateEmail: 'x..y@example.com' };
		expect(() => validateInput.call(context, interviewInputSchema, invitation, 0)).toThrow(
			'"Candidate Email" must not contain consecutive dots',
		);
		expect(() => validateId.call(context, 'r'.repeat(101), 0, 'Report ID')).toThrow(
			'"Report ID" must be at most 100 characters',
		);
		expect(validateId.call(context, '  rpt_1 ', 0, 'Report ID')).toBe('rpt_1');
		expect(() => validateSchemaVersion.call(context, '2', 0)).toThrow(
			'"Schema Version" must be "1"',
		);
		expect(validateSchemaVersion.call(context, '', 0)).toBe('1');
		expect(() => validateInput.call(context, limitSchema, 0, 1, 'Limit')).toThrow(
			'"Limit" must be at least 1',
		);
	});
	test('filter helpers treat empty strings as not set', () => {
		expect(
			validateExternalReferenceFilter.call(
				context,
				{ externalReferenceSource: '', externalReferenceId: '' },
				0,
			),
		).toEqual({});
		expect(() =>
			validateExternalReferenceFilter.call(
				context,
				{ externalReferenceSource: 'ats', externalReferenceId: '' },
				0,
			),
		).toThrow('"External Reference ID" must be set together');
		expect(
			validateCreatedRange.call(
				context,
				{ createdAfter: '', createdBefore: '2026-01-01T00:00:00Z' },
				0,
			),
		).toEqual({
			createdBefore: '2026-01-01T00:00:00Z',
		});
	});
});
