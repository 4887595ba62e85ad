// The spec's input rules as zod schemas, and the one check that turns a broken rule into an error naming the field.
import { NodeOperationError, type IDataObject } from 'n8n-workflow';
import { z } from 'zod';
import type { ZodType, ZodTypeDef } from 'zod';

import { EVENT_TYPES } from '../events/eventTypes';
import type { ApiContext } from '../transport/attempt';

export const PDF_MIME_TYPE = 'application/pdf';
export const DOCX_MIME_TYPE =
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export const MAX_FILE_SIZE_BYTES = 10_485_760;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]+$/;
export const MAX_PAGE_SIZE = 100;
export const EXTERNAL_REFERENCE_SOURCE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_EXTERNAL_REFERENCE_ID_LENGTH = 128;
export const MAX_BATCH_ITEMS = 20;
export const MAX_BATCH_BODY_BYTES = 256 * 1024;

// Where the panel's label is not the field name in Title Case (reportId is Report ID).
const FIELD_LABELS: Record<string, string> = {
	mimeType: 'MIME Type',
	fingerprint: 'Quote Fingerprint',
	source: 'External Reference Source',
	text: 'Job Description Text',
	kind: 'Job Description Source',
	type: 'Event Type',
};

const titleCase = (name: string): string =>
	name
		.replace(/^./, (first) => first.toUpperCase())
		.replace(/\B(?=[A-Z])/g, ' ')
		.replace(/\bId$/, 'ID');

// Not guard.ts's: that one runs at send time, names no field, sees no body field and lets C1 controls through.
// C0 and C1 controls, compared as text: a regex literal holding them is refused by eslint.
const noControls = (value: string): boolean =>
	![...value].some((c) => c < ' ' || (c >= '\x7f' && c <= '\x9f'));

export const MIME_BY_EXTENSION = { '.pdf': PDF_MIME_TYPE, '.docx': DOCX_MIME_TYPE } as const;

export function extensionOf(fileName: string): '.pdf' | '.docx' | undefined {
	const lower = fileName.toLowerCase();
	return lower.endsWith('.pdf') ? '.pdf' : lower.endsWith('.docx') ? '.docx' : undefined;
}

const requiredString = (rule: string) =>
	z.string({ required_error: 'is required', invalid_type_error: `must be text (${rule})` });

// Every enum and literal answers with the rule, never with zod's generic text.
const withMessage = (message: string) => ({ errorMap: () => ({ message }) });

const issue = (ctx: z.RefinementCtx, path: Array<string | number>, message: string): void =>
	ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });

// Code points, as the spec counts them: an emoji is one.
export const characterCount = (value: string): number => [...value].length;

// zod's own .min/.max would count UTF-16 units.
const charactersUpTo = (schema: z.ZodString, max: number) =>
	schema
		.refine((v) => characterCount(v) >= 1, 'must not be empty')
		.refine((v) => characterCount(v) <= max, `must be at most ${max} characters`);

const textUpTo = (max: number, rule = `1 to ${max} characters`) =>
	charactersUpTo(requiredString(rule), max);
const noSlashes = (v: string) => !v.includes('/') && !v.includes('\\');
const CONTROLS_RULE = 'must not contain line breaks or other control characters';

export const fileNameSchema = textUpTo(200)
	.refine(noSlashes, 'must not contain / or \\ (a path is not a file name)')
	.refine(noControls, 'must not contain control characters')
	.refine((v) => extensionOf(v) !== undefined, 'must end in .pdf or .docx');

export const fileSizeSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number of bytes' })
	.int('must be a whole number of bytes')
	.min(1, 'must be at least 1 byte (the file is empty)')
	.max(MAX_FILE_SIZE_BYTES, `must be at most ${MAX_FILE_SIZE_BYTES} bytes (10 MiB)`);

function mimeAgreesWithExtension(
	file: { fileName: string; mimeType: string },
	ctx: z.RefinementCtx,
): void {
	const ext = extensionOf(file.fileName);
	if (ext && MIME_BY_EXTENSION[ext] !== file.mimeType) {
		const needs = MIME_BY_EXTENSION[ext];
		issue(ctx, ['mimeType'], `must agree with the file extension (${ext} needs ${needs})`);
	}
}

const resumeFileShape = z.object({
	fileName: fileNameSchema,
	fileSize: fileSizeSchema,
	mimeType: z.enum(
		[PDF_MIME_TYPE, DOCX_MIME_TYPE],
		withMessage(`must be ${PDF_MIME_TYPE} or ${DOCX_MIME_TYPE}`),
	),
});
export const resumeFileSchema = resumeFileShape.superRefine(mimeAgreesWithExtension);
export type ResumeFile = z.infer<typeof resumeFileSchema>;

const EMAIL_PATTERN =
	/^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const emailSchema = charactersUpTo(requiredString('an email address').trim(), 254)
	.refine((v) => !v.startsWith('.'), 'must not start with a dot')
	.refine((v) => !v.includes('..'), 'must not contain consecutive dots')
	.refine((v) => EMAIL_PATTERN.test(v), 'must be an email address like name@example.com');

// An ID becomes a path segment and must never carry a line break (header injection) or be `.`/`..` (a path step).
export const idSchema = textUpTo(100)
	.refine(noControls, CONTROLS_RULE)
	.refine((v) => v !== '.' && v !== '..', 'must not be . or .. (a path step, not an ID)')
	.refine(noSlashes, 'must not contain / or \\ (an ID is one path segment)');

export const idempotencyKeySchema = textUpTo(MAX_IDEMPOTENCY_KEY_LENGTH).refine(
	(v) => IDEMPOTENCY_KEY_PATTERN.test(v),
	'may only contain letters, digits and . _ : -',
);

export const cursorSchema = textUpTo(2048);

// n8n's "Limit" of a list is the total number of results (paged by the transport), not the page size.
const totalLimitSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number' })
	.int('must be a whole number')
	.min(1, 'must be at least 1');
export const limitSchema = totalLimitSchema.max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`);

export const fingerprintSchema = requiredString('64 lowercase hexadecimal characters').regex(
	/^[a-f0-9]{64}$/,
	'must be 64 lowercase hexadecimal characters (copy it unchanged from the quote)',
);

const revisionSchema = requiredString('64 hexadecimal characters').regex(
	/^[A-Fa-f0-9]{64}$/,
	'must be 64 hexadecimal characters (the job description revision)',
);

const externalReferenceSourceSchema = textUpTo(64, 'a source slug').refine(
	(v) => EXTERNAL_REFERENCE_SOURCE_PATTERN.test(v),
	'must be a lowercase slug of letters and digits separated by single hyphens (e.g. "greenhouse")',
);

export const externalReferenceIdSchema = textUpTo(MAX_EXTERNAL_REFERENCE_ID_LENGTH).refine(
	noControls,
	CONTROLS_RULE,
);

export const externalReferenceSchema = z.object({
	source: externalReferenceSourceSchema,
	id: externalReferenceIdSchema,
});

export const externalReferenceFilterSchema = z
	.object({
		externalReferenceSource: externalReferenceSourceSchema.optional(),
		externalReferenceId: externalReferenceIdSchema.optional(),
	})
	.superRefine((v, ctx) => {
		const hasSource = v.externalReferenceSource !== undefined;
		const hasId = v.externalReferenceId !== undefined;
		if (hasSource !== hasId) {
			issue(
				ctx,
				[hasSource ? 'externalReferenceId' : 'externalReferenceSource'],
				'must be set together with the other external reference field (both or neither)',
			);
		}
	});

const dateTimeSchema = requiredString('an ISO 8601 date-time')
	.regex(
		/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i,
		'must be an ISO 8601 date-time with a timezone, e.g. 2026-01-31T09:00:00Z',
	)
	.refine((v) => !Number.isNaN(Date.parse(v)), 'must be a real calendar date-time');

export const createdRangeSchema = z
	.object({ createdAfter: dateTimeSchema.optional(), createdBefore: dateTimeSchema.optional() })
	.superRefine((v, ctx) => {
		const { createdAfter, createdBefore } = v;
		if (createdAfter && createdBefore && Date.parse(createdBefore) <= Date.parse(createdAfter))
			issue(ctx, ['createdBefore'], 'must be later than Created After');
	});

export const schemaVersionSchema = z.literal(
	'1',
	withMessage('must be "1" (the only supported result schema version)'),
);

export const eventTypeSchema = z.enum(
	EVENT_TYPES,
	withMessage(`must be one of the event types: ${EVENT_TYPES.join(', ')}`),
);

const LIFECYCLES = ['invited', 'in_progress', 'completed', 'expired', 'superseded'] as const;
export const interviewLifecycleSchema = z.enum(
	LIFECYCLES,
	withMessage(`must be one of ${LIFECYCLES.join(', ')}`),
);

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
	withMessage('must be inline text or a saved job'),
);
export type JobDescriptionInput = z.infer<typeof jobDescriptionInputSchema>;

const uploadShape = resumeFileShape.extend({
	externalReference: externalReferenceSchema.optional(),
	jobDescription: jobDescriptionInputSchema,
});
export const uploadInputSchema = uploadShape.superRefine(mimeAgreesWithExtension);
export type UploadInput = z.infer<typeof uploadInputSchema>;

export const interviewInputSchema = z.object({
	reportId: idSchema,
	candidateEmail: emailSchema,
	sendEmail: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
});

const itemKeySchema = requiredString('a non-empty key').min(1, 'must not be empty');

function batchSchema(input: z.ZodTypeAny, extra: z.ZodRawShape = {}) {
	return z
		.object({
			...extra,
			items: z
				.array(z.object({ itemKey: itemKeySchema, input }), {
					required_error: 'is required',
					invalid_type_error: 'must be a list',
				})
				.min(1, 'must hold at least 1 entry')
				.max(MAX_BATCH_ITEMS, `must hold at most ${MAX_BATCH_ITEMS} entries per batch`),
		})
		.superRefine((body, ctx) => {
			const firstUse = new Map<string, number>();
			(body.items as Array<{ itemKey: string }>).forEach(({ itemKey }, index) => {
				const first = firstUse.get(itemKey);
				if (first === undefined) firstUse.set(itemKey, index);
				else
					issue(
						ctx,
						['items', index, 'itemKey'],
						`must be unique within the batch ("${itemKey}" is also used by entry ${first + 1})`,
					);
			});
			const bytes = new TextEncoder().encode(JSON.stringify(body)).length;
			if (bytes > MAX_BATCH_BODY_BYTES) {
				issue(
					ctx,
					['items'],
					`must serialise to at most ${MAX_BATCH_BODY_BYTES} bytes (256 KiB) of JSON; this batch is ${bytes} bytes`,
				);
			}
		});
}

export const uploadBatchSchema = batchSchema(
	uploadShape.partial({ jobDescription: true }).superRefine(mimeAgreesWithExtension),
	{ jobDescription: jobDescriptionInputSchema.optional() },
).superRefine((body, ctx) => {
	const batchJob = (body as { jobDescription?: unknown }).jobDescription;
	(body.items as Array<{ input: { jobDescription?: unknown } }>).forEach((item, index) => {
		if (batchJob === undefined && item.input.jobDescription === undefined) {
			const path = ['items', index, 'input', 'jobDescription'];
			issue(ctx, path, 'is required when the batch has no job description');
		}
	});
});

export const analysisBatchQuoteSchema = batchSchema(z.object({ reportId: idSchema }));
export const analysisBatchSchema = batchSchema(
	z.object({ reportId: idSchema, quoteFingerprint: fingerprintSchema }),
);
const interviewBatchEntrySchema = z.object({
	reportId: idSchema,
	candidateEmail: emailSchema,
	sendEmail: z.literal(true, withMessage('must be true (batches only send email)')),
});
export const interviewBatchQuoteSchema = batchSchema(interviewBatchEntrySchema);
export const interviewBatchSchema = batchSchema(
	interviewBatchEntrySchema.extend({ quoteFingerprint: fingerprintSchema }),
);

export type ValidationContext = ApiContext;

export function labelForPath(path: Array<string | number>, fieldLabel?: string): string {
	const last = path.filter((s): s is string => typeof s === 'string').at(-1);
	const label =
		last !== undefined ? (FIELD_LABELS[last] ?? titleCase(last)) : (fieldLabel ?? 'Value');
	const firstIndex = path.find((s): s is number => typeof s === 'number');
	return firstIndex === undefined ? label : `${label} (entry ${firstIndex + 1})`;
}

export function validateInput<T>(
	this: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	return check(this, schema, value, itemIndex, fieldLabel);
}

export function check<T>(
	context: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const [first, ...rest] = result.error.issues;
	const label = labelForPath(first.path, fieldLabel);
	const others = rest
		.slice(0, 4)
		.map((i) => `"${labelForPath(i.path, fieldLabel)}" ${i.message}`)
		.join('; ');
	const description =
		`Change "${label}" so that it meets the rule: ${first.message}, then run the node again. ` +
		'Nothing was sent to the Recruiting Analysis API.' +
		(others ? ` Other problems on this item: ${others}.` : '');
	throw new NodeOperationError(context.getNode(), `"${label}" ${first.message}`, {
		itemIndex,
		description,
	});
}

function namedCheck<T>(
	schema: ZodType<T, ZodTypeDef, unknown>,
	defaultLabel?: string,
	tidy: (value: unknown) => unknown = (value) => value,
) {
	return function (
		this: ValidationContext,
		value: unknown,
		itemIndex: number,
		label = defaultLabel,
	): T {
		return check(this, schema, tidy(value), itemIndex, label);
	};
}

const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);
// An empty field of n8n's UI means "not set".
const unsetWhenEmpty =
	(...fields: string[]) =>
	(value: unknown) =>
		Object.fromEntries(fields.map((field) => [field, (value as IDataObject)[field] || undefined]));

export const validateId = namedCheck(idSchema, 'ID', trimmed);
export const validateIdempotencyKey = namedCheck(idempotencyKeySchema, 'Idempotency Key');
export const validateFingerprint = namedCheck(fingerprintSchema, 'Quote Fingerprint', trimmed);
export const validateLimit = namedCheck(limitSchema, 'Limit');
export const validateTotalLimit = namedCheck(totalLimitSchema, 'Limit');
export const validateCursor = namedCheck(cursorSchema, 'Cursor');
export const validateSchemaVersion = namedCheck(schemaVersionSchema, 'Schema Version', (value) =>
	value === undefined || value === '' ? '1' : String(value),
);
export const validateExternalReferenceFilter = namedCheck(
	externalReferenceFilterSchema,
	undefined,
	unsetWhenEmpty('externalReferenceSource', 'externalReferenceId'),
);
export const validateCreatedRange = namedCheck(
	createdRangeSchema,
	undefined,
	unsetWhenEmpty('createdAfter', 'createdBefore'),
);
export const validateJobDescriptionInput = namedCheck(jobDescriptionInputSchema);
export const validateUploadInput = namedCheck(uploadInputSchema);
export const validateEventType = namedCheck(eventTypeSchema, 'Event Type');

// A batch body's labels come from its own paths (items[2].input.reportId), never from one field label.
export const validateBatch = validateInput;
