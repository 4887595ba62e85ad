/**
 * Input rules of the Recruiting Analysis Customer API (api-spec.md: "Resources and their fields", "Endpoints",
 * "Limits"), checked before any request so a bad input never reaches the service.
 *
 * Every schema carries the rule in its message ("must end in .pdf or .docx"); `validateInput` turns the first
 * failed rule into a `NodeOperationError` naming the field as the user sees it in the node ("File Name").
 */
import { z } from 'zod';
import type { ZodType, ZodTypeDef } from 'zod';
import { NodeOperationError } from 'n8n-workflow';
import { EVENT_TYPES } from '../events/eventTypes';
import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export type ValidationContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions;

// ---------------------------------------------------------------------------------------------------------------
// Constants from the spec
// ---------------------------------------------------------------------------------------------------------------

export const PDF_MIME_TYPE = 'application/pdf';
export const DOCX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const RESUME_MIME_TYPES = [PDF_MIME_TYPE, DOCX_MIME_TYPE] as const;
export type ResumeMimeType = (typeof RESUME_MIME_TYPES)[number];

export const MAX_FILE_SIZE_BYTES = 10_485_760;
export const MAX_FILE_NAME_LENGTH = 200;
export const MAX_ID_LENGTH = 100;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const MAX_CURSOR_LENGTH = 2048;
export const MAX_PAGE_SIZE = 100;
export const FINGERPRINT_PATTERN = /^[a-f0-9]{64}$/;
export const REVISION_PATTERN = /^[A-Fa-f0-9]{64}$/;
export const EXTERNAL_REFERENCE_SOURCE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_EXTERNAL_REFERENCE_SOURCE_LENGTH = 64;
export const MAX_EXTERNAL_REFERENCE_ID_LENGTH = 128;
export const MIN_BATCH_ITEMS = 1;
export const MAX_BATCH_ITEMS = 20;
export const MAX_BATCH_BODY_BYTES = 256 * 1024;
export const SUPPORTED_SCHEMA_VERSION = '1';

// The one list of event types (api-spec "Events"), shared with both triggers.
export { EVENT_TYPES };

export const INTERVIEW_LIFECYCLES = ['invited', 'in_progress', 'completed', 'expired', 'superseded'] as const;

/** Labels of the fields as the node shows them, keyed by the API's field name (the last path segment). */
export const FIELD_LABELS: Record<string, string> = {
	fileName: 'File Name',
	fileSize: 'File Size',
	mimeType: 'MIME Type',
	candidateEmail: 'Candidate Email',
	sendEmail: 'Send Email',
	reportId: 'Report ID',
	interviewId: 'Interview ID',
	jobDescriptionId: 'Job Description ID',
	batchId: 'Batch ID',
	id: 'ID',
	idempotencyKey: 'Idempotency Key',
	cursor: 'Cursor',
	limit: 'Limit',
	quoteFingerprint: 'Quote Fingerprint',
	fingerprint: 'Quote Fingerprint',
	externalReference: 'External Reference',
	externalReferenceSource: 'External Reference Source',
	externalReferenceId: 'External Reference ID',
	source: 'External Reference Source',
	createdAfter: 'Created After',
	createdBefore: 'Created Before',
	items: 'Items',
	itemKey: 'Item Key',
	jobDescription: 'Job Description',
	text: 'Job Description Text',
	expectedRevision: 'Expected Revision',
	kind: 'Job Description Source',
	schemaVersion: 'Schema Version',
	type: 'Event Type',
	lifecycle: 'Lifecycle',
	include: 'Include',
};

// ---------------------------------------------------------------------------------------------------------------
// Scalar rules
// ---------------------------------------------------------------------------------------------------------------

// eslint-friendly control character test without a regex literal holding control characters.
function hasControlCharacter(value: string): boolean {
	for (let i = 0; i < value.length; i++) {
		const c = value.charCodeAt(i);
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
	}
	return false;
}

function extensionOf(fileName: string): '.pdf' | '.docx' | undefined {
	const lower = fileName.toLowerCase();
	if (lower.endsWith('.pdf')) return '.pdf';
	if (lower.endsWith('.docx')) return '.docx';
	return undefined;
}

const requiredString = (rule: string) =>
	z.string({ required_error: 'is required', invalid_type_error: `must be text (${rule})` });

/** Length in characters as the spec counts it: Unicode code points, not UTF-16 units (an emoji is one). */
export const characterCount = (value: string): number => [...value].length;

/** A string of `min` to `max` characters (code points); zod's own `.min/.max` would count UTF-16 units. */
const charactersBetween = (schema: z.ZodString, min: number, max: number) =>
	schema
		.refine((v) => characterCount(v) >= min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
		.refine((v) => characterCount(v) <= max, `must be at most ${max} characters`);

export const fileNameSchema = charactersBetween(requiredString('1 to 200 characters'), 1, MAX_FILE_NAME_LENGTH)
	.refine((v) => !v.includes('/') && !v.includes('\\'), 'must not contain / or \\ (a path is not a file name)')
	.refine((v) => !hasControlCharacter(v), 'must not contain control characters')
	.refine((v) => extensionOf(v) !== undefined, 'must end in .pdf or .docx');

export const fileSizeSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number of bytes' })
	.int('must be a whole number of bytes')
	.min(1, 'must be at least 1 byte (the file is empty)')
	.max(MAX_FILE_SIZE_BYTES, `must be at most ${MAX_FILE_SIZE_BYTES} bytes (10 MiB)`);

export const mimeTypeSchema = z.enum(RESUME_MIME_TYPES, {
	errorMap: () => ({ message: `must be ${PDF_MIME_TYPE} or ${DOCX_MIME_TYPE}` }),
});

export const MIME_BY_EXTENSION: Record<'.pdf' | '.docx', ResumeMimeType> = {
	'.pdf': PDF_MIME_TYPE,
	'.docx': DOCX_MIME_TYPE,
};

/** File name, exact byte size and MIME type, with the extension and the declared type agreeing. */
/** The spec: extension and declared type must agree (used by the resume file and the upload input). */
function mimeAgreesWithExtension(file: { fileName: string; mimeType: string }, ctx: z.RefinementCtx): void {
	const ext = extensionOf(file.fileName);
	if (ext && MIME_BY_EXTENSION[ext] !== file.mimeType) {
		ctx.addIssue({
			code: z.ZodIssueCode.custom,
			path: ['mimeType'],
			message: `must agree with the file extension (${ext} needs ${MIME_BY_EXTENSION[ext]})`,
		});
	}
}

export const resumeFileSchema = z
	.object({ fileName: fileNameSchema, fileSize: fileSizeSchema, mimeType: mimeTypeSchema })
	.superRefine(mimeAgreesWithExtension);
export type ResumeFile = z.infer<typeof resumeFileSchema>;

/**
 * Email as the spec requires (email format, no leading dot, no consecutive dots). Local part: the usual
 * atext characters with single dots between them; domain: at least two labels of letters, digits and inner
 * hyphens, the last one alphabetic.
 */
export const EMAIL_PATTERN =
	/^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const emailSchema = charactersBetween(requiredString('an email address').trim(), 1, 254)
	.refine((v) => !v.startsWith('.'), 'must not start with a dot')
	.refine((v) => !v.includes('..'), 'must not contain consecutive dots')
	.refine((v) => EMAIL_PATTERN.test(v), 'must be an email address like name@example.com');

export const idSchema = charactersBetween(requiredString('1 to 100 characters'), 1, MAX_ID_LENGTH);

export const idempotencyKeySchema = charactersBetween(requiredString('1 to 128 characters'), 1, MAX_IDEMPOTENCY_KEY_LENGTH).refine(
	(v) => IDEMPOTENCY_KEY_PATTERN.test(v),
	'may only contain letters, digits and . _ : -',
);

export const cursorSchema = charactersBetween(requiredString('1 to 2048 characters'), 1, MAX_CURSOR_LENGTH);

export const limitSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number' })
	.int('must be a whole number')
	.min(1, 'must be at least 1')
	.max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`);

export const fingerprintSchema = requiredString('64 lowercase hexadecimal characters').regex(
	FINGERPRINT_PATTERN,
	'must be 64 lowercase hexadecimal characters (copy it unchanged from the quote)',
);

export const revisionSchema = requiredString('64 hexadecimal characters').regex(
	REVISION_PATTERN,
	'must be 64 hexadecimal characters (the job description revision)',
);

export const externalReferenceSourceSchema = charactersBetween(
	requiredString('a source slug'),
	1,
	MAX_EXTERNAL_REFERENCE_SOURCE_LENGTH,
).refine(
	(v) => EXTERNAL_REFERENCE_SOURCE_PATTERN.test(v),
	'must be a lowercase slug of letters and digits separated by single hyphens (e.g. "greenhouse")',
);

export const externalReferenceIdSchema = charactersBetween(requiredString('1 to 128 characters'), 1, MAX_EXTERNAL_REFERENCE_ID_LENGTH);

export const externalReferenceSchema = z.object({
	source: externalReferenceSourceSchema,
	id: externalReferenceIdSchema,
});
export type ExternalReference = z.infer<typeof externalReferenceSchema>;

/** As a list filter: both or neither (spec: "externalReferenceSource, externalReferenceId (both or neither)"). */
export const externalReferenceFilterSchema = z
	.object({
		externalReferenceSource: externalReferenceSourceSchema.optional(),
		externalReferenceId: externalReferenceIdSchema.optional(),
	})
	.superRefine((v, ctx) => {
		const hasSource = v.externalReferenceSource !== undefined;
		const hasId = v.externalReferenceId !== undefined;
		if (hasSource !== hasId) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: [hasSource ? 'externalReferenceId' : 'externalReferenceSource'],
				message: 'must be set together with the other external reference field (both or neither)',
			});
		}
	});

/** ISO 8601 date-time with a timezone (Z or ±hh:mm). */
export const ISO_DATE_TIME_PATTERN =
	/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export const dateTimeSchema = requiredString('an ISO 8601 date-time')
	.regex(ISO_DATE_TIME_PATTERN, 'must be an ISO 8601 date-time with a timezone, e.g. 2026-01-31T09:00:00Z')
	.refine((v) => !Number.isNaN(Date.parse(v)), 'must be a real calendar date-time');

/** createdAfter and createdBefore are exclusive bounds; createdBefore must be later than createdAfter. */
export const createdRangeSchema = z
	.object({ createdAfter: dateTimeSchema.optional(), createdBefore: dateTimeSchema.optional() })
	.superRefine((v, ctx) => {
		if (v.createdAfter && v.createdBefore && Date.parse(v.createdBefore) <= Date.parse(v.createdAfter)) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['createdBefore'],
				message: 'must be later than Created After',
			});
		}
	});

export const schemaVersionSchema = z.literal(SUPPORTED_SCHEMA_VERSION, {
	errorMap: () => ({ message: 'must be "1" (the only supported result schema version)' }),
});

export const eventTypeSchema = z.enum(EVENT_TYPES, {
	errorMap: () => ({ message: `must be one of the event types: ${EVENT_TYPES.join(', ')}` }),
});

export const interviewLifecycleSchema = z.enum(INTERVIEW_LIFECYCLES, {
	errorMap: () => ({ message: `must be one of ${INTERVIEW_LIFECYCLES.join(', ')}` }),
});

export const sendEmailSchema = z.boolean({ invalid_type_error: 'must be true or false' });

// ---------------------------------------------------------------------------------------------------------------
// Composite request bodies
// ---------------------------------------------------------------------------------------------------------------

export const jobDescriptionInputSchema = z.discriminatedUnion(
	'kind',
	[
		z.object({
			kind: z.literal('text'),
			text: requiredString('the job description text')
				.trim()
				.min(1, 'must not be empty (paste the job description or choose a saved job)'),
		}),
		z.object({
			kind: z.literal('existing'),
			id: idSchema,
			expectedRevision: revisionSchema.optional(),
		}),
	],
	{ errorMap: () => ({ message: 'must be inline text or a saved job' }) },
);
export type JobDescriptionInput = z.infer<typeof jobDescriptionInputSchema>;

export const uploadInputSchema = z
	.object({
		fileName: fileNameSchema,
		fileSize: fileSizeSchema,
		mimeType: mimeTypeSchema,
		externalReference: externalReferenceSchema.optional(),
		jobDescription: jobDescriptionInputSchema,
	})
	.superRefine(mimeAgreesWithExtension);
export type UploadInput = z.infer<typeof uploadInputSchema>;

export const interviewInputSchema = z.object({
	reportId: idSchema,
	candidateEmail: emailSchema,
	sendEmail: sendEmailSchema.optional(),
});

export const interviewInviteSchema = interviewInputSchema.extend({ quoteFingerprint: fingerprintSchema });

export const itemKeySchema = requiredString('a non-empty key').min(1, 'must not be empty');

function uniqueItemKeys(items: Array<{ itemKey: string }>, ctx: z.RefinementCtx): void {
	const seen = new Map<string, number>();
	items.forEach((item, index) => {
		const first = seen.get(item.itemKey);
		if (first !== undefined) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['items', index, 'itemKey'],
				message: `must be unique within the batch ("${item.itemKey}" is also used by entry ${first + 1})`,
			});
		} else {
			seen.set(item.itemKey, index);
		}
	});
}

/** UTF-8 byte length of the JSON a body serialises to. */
export function jsonByteLength(value: unknown): number {
	return new TextEncoder().encode(JSON.stringify(value)).length;
}

/**
 * Batch envelope rules shared by the three kinds (spec "Batch rules"): 1 to 20 items, unique itemKey, request
 * JSON at most 256 KiB.
 */
export function batchSchema<I extends ZodType<unknown, ZodTypeDef, unknown>>(input: I, extra: z.ZodRawShape = {}) {
	return z
		.object({
			...extra,
			items: z
				.array(z.object({ itemKey: itemKeySchema, input }), {
					required_error: 'is required',
					invalid_type_error: 'must be a list',
				})
				.min(MIN_BATCH_ITEMS, `must hold at least ${MIN_BATCH_ITEMS} entry`)
				.max(MAX_BATCH_ITEMS, `must hold at most ${MAX_BATCH_ITEMS} entries per batch`),
		})
		.superRefine((body, ctx) => {
			uniqueItemKeys(body.items as Array<{ itemKey: string }>, ctx);
			const bytes = jsonByteLength(body);
			if (bytes > MAX_BATCH_BODY_BYTES) {
				ctx.addIssue({
					code: z.ZodIssueCode.custom,
					path: ['items'],
					message: `must serialise to at most ${MAX_BATCH_BODY_BYTES} bytes (256 KiB) of JSON; this batch is ${bytes} bytes`,
				});
			}
		});
}

export const uploadBatchSchema = batchSchema(
	z
		.object({
			fileName: fileNameSchema,
			fileSize: fileSizeSchema,
			mimeType: mimeTypeSchema,
			externalReference: externalReferenceSchema.optional(),
			jobDescription: jobDescriptionInputSchema.optional(),
		})
		.superRefine((file, ctx) => {
			const ext = extensionOf(file.fileName);
			if (ext && MIME_BY_EXTENSION[ext] !== file.mimeType) {
				ctx.addIssue({
					code: z.ZodIssueCode.custom,
					path: ['mimeType'],
					message: `must agree with the file extension (${ext} needs ${MIME_BY_EXTENSION[ext]})`,
				});
			}
		}),
	{ jobDescription: jobDescriptionInputSchema.optional() },
).superRefine((body, ctx) => {
	const batchJob = (body as { jobDescription?: unknown }).jobDescription;
	(body.items as Array<{ input: { jobDescription?: unknown } }>).forEach((item, index) => {
		if (batchJob === undefined && item.input.jobDescription === undefined) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['items', index, 'input', 'jobDescription'],
				message: 'is required when the batch has no job description',
			});
		}
	});
});

export const analysisBatchQuoteSchema = batchSchema(z.object({ reportId: idSchema }));
export const analysisBatchSchema = batchSchema(z.object({ reportId: idSchema, quoteFingerprint: fingerprintSchema }));
export const interviewBatchQuoteSchema = batchSchema(
	z.object({
		reportId: idSchema,
		candidateEmail: emailSchema,
		sendEmail: z.literal(true, { errorMap: () => ({ message: 'must be true (batches only send email)' }) }),
	}),
);
export const interviewBatchSchema = batchSchema(
	z.object({
		reportId: idSchema,
		candidateEmail: emailSchema,
		sendEmail: z.literal(true, { errorMap: () => ({ message: 'must be true (batches only send email)' }) }),
		quoteFingerprint: fingerprintSchema,
	}),
);

// ---------------------------------------------------------------------------------------------------------------
// Turning a failed rule into a NodeOperationError
// ---------------------------------------------------------------------------------------------------------------

/** 'items[3].input.fileName' style path, as the API reports it in `details[].field`. */
export function formatPath(path: Array<string | number>): string {
	let out = '';
	for (const segment of path) {
		if (typeof segment === 'number') out += `[${segment}]`;
		else out += out ? `.${segment}` : segment;
	}
	return out;
}

/** The label the user sees for a path, e.g. ['items', 3, 'input', 'fileName'] -> 'File Name (entry 4)'. */
export function labelForPath(path: Array<string | number>, fieldLabel?: string): string {
	const named = path.filter((s): s is string => typeof s === 'string');
	const last = named[named.length - 1];
	let label = last !== undefined ? FIELD_LABELS[last] ?? last : fieldLabel ?? 'Value';
	if (last === undefined && fieldLabel) label = fieldLabel;
	const firstIndex = path.find((s): s is number => typeof s === 'number');
	if (firstIndex !== undefined) label = `${label} (entry ${firstIndex + 1})`;
	return label;
}

export interface ValidationFailure {
	label: string;
	rule: string;
	path: string;
}

/** First failed rule of a value, or undefined when it passes. Pure (no n8n types); used by the tests too. */
export function firstFailure<T>(
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	fieldLabel?: string,
): ValidationFailure | undefined {
	const result = schema.safeParse(value);
	if (result.success) return undefined;
	const issue = result.error.issues[0];
	return {
		label: labelForPath(issue.path, fieldLabel),
		rule: issue.message,
		path: formatPath(issue.path),
	};
}

/**
 * Parse `value` with `schema`; on failure throw a NodeOperationError whose message names the field and the
 * rule ('"File Name" must end in .pdf or .docx'), attributed to `itemIndex`.
 */
export function validateInput<T>(
	this: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	return check(this, schema, value, itemIndex, fieldLabel);
}

function check<T>(
	context: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const issues = result.error.issues;
	const first = issues[0];
	const label = labelForPath(first.path, fieldLabel);
	const others = issues
		.slice(1, 5)
		.map((i) => `"${labelForPath(i.path, fieldLabel)}" ${i.message}`)
		.join('; ');
	const description =
		`Change "${label}" so that it ${describeRule(first.message)}, then run the node again. ` +
		'Nothing was sent to the Recruiting Analysis API.' +
		(others ? ` Other problems on this item: ${others}.` : '');
	throw new NodeOperationError(context.getNode(), `"${label}" ${first.message}`, { itemIndex, description });
}

function describeRule(rule: string): string {
	// 'must end in .pdf or .docx' -> 'ends in .pdf or .docx' reads awkwardly; keep the rule verbatim instead.
	return `meets the rule: ${rule}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Named helpers the node calls
// ---------------------------------------------------------------------------------------------------------------

/** MIME types n8n (or a browser, or a mail client) gives when it does not know better. */
export const GENERIC_MIME_TYPES = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
	'application/unknown',
	'application/download',
	'application/force-download',
	'application/x-download',
	'application/zip',
	'application/x-zip',
	'application/x-zip-compressed',
	'text/plain',
]);

/** Lowercased MIME type without parameters ('application/pdf; charset=binary' -> 'application/pdf'). */
export function normaliseMimeType(mimeType: string | undefined): string {
	return (mimeType ?? '').split(';')[0].trim().toLowerCase();
}

/** The resume MIME type: the declared one, or the one the extension implies when the declared one is generic. */
export function inferResumeMimeType(fileName: string, mimeType: string | undefined): string {
	const declared = normaliseMimeType(mimeType);
	if (!GENERIC_MIME_TYPES.has(declared)) return declared;
	const ext = extensionOf(fileName);
	return ext ? MIME_BY_EXTENSION[ext] : declared;
}

export function validateResumeFile(
	this: ValidationContext,
	file: { fileName?: string; fileSize?: number; mimeType?: string },
	itemIndex: number,
): ResumeFile {
	const fileName = file.fileName;
	const mimeType = typeof fileName === 'string' ? inferResumeMimeType(fileName, file.mimeType) : file.mimeType;
	return check(this, resumeFileSchema, { fileName, fileSize: file.fileSize, mimeType }, itemIndex);
}

/** The first bytes of a PDF ("%PDF-") or of a DOCX (a ZIP: "PK\x03\x04"). */
export function contentMatchesMimeType(head: Uint8Array, mimeType: string): boolean {
	if (mimeType === PDF_MIME_TYPE) {
		return head.length >= 5 && String.fromCharCode(...head.subarray(0, 5)) === '%PDF-';
	}
	if (mimeType === DOCX_MIME_TYPE) {
		return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
	}
	return false;
}

/** What the first bytes of a file show it to be, for the advice when its name or type says otherwise. */
function sniffContent(head: Uint8Array): 'pdf' | 'zip' | 'html' | 'unknown' {
	const text = String.fromCharCode(...head.subarray(0, 8));
	if (text.startsWith('%PDF-')) return 'pdf';
	if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
	if (/^\s*</.test(text)) return 'html';
	return 'unknown';
}

export function validateResumeContent(
	this: ValidationContext,
	head: Uint8Array,
	file: { fileName: string; mimeType: string },
	itemIndex: number,
): void {
	if (contentMatchesMimeType(head, file.mimeType)) return;
	const isPdf = file.mimeType === PDF_MIME_TYPE;
	const expected = isPdf ? 'a PDF (starting with %PDF-)' : 'a DOCX (a ZIP archive)';
	const found = sniffContent(head);
	const stem = file.fileName.replace(/\.[^.]*$/, '');
	let message = `"Input Binary Field" content must agree with its type: ${file.fileName} is not ${expected}`;
	let advice =
		'The file extension, the declared MIME type and the file content must agree. Check that the binary ' +
		'property holds the resume itself and not, for example, an HTML error page.';
	if (isPdf && found === 'zip') {
		// A Word document (DOCX is a ZIP archive) saved or renamed with .pdf: the commonest case in a folder of resumes.
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a DOCX or other ZIP file, not a PDF. If it is a Word document, rename it ${stem}.docx`;
		advice = `Rename the file to ${stem}.docx (or use the File Name option) if it is a Word document; other ZIP archives cannot be analyzed.`;
	} else if (!isPdf && found === 'pdf') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} is a PDF, not a DOCX. Rename it ${stem}.pdf`;
		advice = `Rename the file to ${stem}.pdf (or use the File Name option).`;
	} else if (found === 'html') {
		message = `"Input Binary Field" content must agree with its type: ${file.fileName} holds HTML (a web page), not ${expected}`;
		advice = 'A download returned a web page (often a login or error page) instead of the resume: check the step that fetched the file.';
	}
	throw new NodeOperationError(this.getNode(), message, { itemIndex, description: `${advice} Nothing was uploaded.` });
}

export function validateEmail(this: ValidationContext, value: unknown, itemIndex: number, label = 'Candidate Email'): string {
	return check(this, emailSchema, value, itemIndex, label);
}

export function validateId(this: ValidationContext, value: unknown, itemIndex: number, label = 'ID'): string {
	return check(this, idSchema, typeof value === 'string' ? value.trim() : value, itemIndex, label);
}

export function validateIdempotencyKey(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Idempotency Key',
): string {
	return check(this, idempotencyKeySchema, value, itemIndex, label);
}

export function validateFingerprint(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Quote Fingerprint',
): string {
	return check(this, fingerprintSchema, typeof value === 'string' ? value.trim() : value, itemIndex, label);
}

export function validateLimit(this: ValidationContext, value: unknown, itemIndex: number, label = 'Limit'): number {
	return check(this, limitSchema, value, itemIndex, label);
}

export function validateCursor(this: ValidationContext, value: unknown, itemIndex: number, label = 'Cursor'): string {
	return check(this, cursorSchema, value, itemIndex, label);
}

export function validateSchemaVersion(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Schema Version',
): '1' {
	return check(this, schemaVersionSchema, value === undefined || value === '' ? '1' : String(value), itemIndex, label);
}

export function validateExternalReference(
	this: ValidationContext,
	value: { source?: string; id?: string },
	itemIndex: number,
): ExternalReference {
	return check(this, externalReferenceSchema, value, itemIndex);
}

/** Both or neither; empty strings count as not set. Returns the query parameters to send. */
export function validateExternalReferenceFilter(
	this: ValidationContext,
	value: { externalReferenceSource?: string; externalReferenceId?: string },
	itemIndex: number,
): { externalReferenceSource?: string; externalReferenceId?: string } {
	const cleaned = {
		externalReferenceSource: value.externalReferenceSource || undefined,
		externalReferenceId: value.externalReferenceId || undefined,
	};
	return check(this, externalReferenceFilterSchema, cleaned, itemIndex);
}

/** Exclusive bounds; empty strings count as not set. */
export function validateCreatedRange(
	this: ValidationContext,
	value: { createdAfter?: string; createdBefore?: string },
	itemIndex: number,
): { createdAfter?: string; createdBefore?: string } {
	const cleaned = { createdAfter: value.createdAfter || undefined, createdBefore: value.createdBefore || undefined };
	return check(this, createdRangeSchema, cleaned, itemIndex);
}

export function validateJobDescriptionInput(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
): JobDescriptionInput {
	return check(this, jobDescriptionInputSchema, value, itemIndex);
}

export function validateUploadInput(this: ValidationContext, value: unknown, itemIndex: number): UploadInput {
	return check(this, uploadInputSchema, value, itemIndex);
}

export function validateEventType(this: ValidationContext, value: unknown, itemIndex: number): string {
	return check(this, eventTypeSchema, value, itemIndex, 'Event Type');
}

/** A batch body for one of the batch endpoints (upload, analysis, analysis quote, interview, interview quote). */
export function validateBatch<T>(
	this: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	body: unknown,
	itemIndex: number,
): T {
	return check(this, schema, body, itemIndex);
}
