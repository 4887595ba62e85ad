import { z } from 'zod';
import type { ZodType, ZodTypeDef } from 'zod';

import {
	externalReferenceSchema,
	fileNameSchema,
	fileSizeSchema,
	fingerprintSchema,
	emailSchema,
	idSchema,
	mimeTypeSchema,
	revisionSchema,
	sendEmailSchema,
	extensionOf,
	MAX_BATCH_BODY_BYTES,
	MAX_BATCH_ITEMS,
	MIME_BY_EXTENSION,
	mimeAgreesWithExtension,
	MIN_BATCH_ITEMS,
	requiredString,
} from './rules';

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

export const interviewInviteSchema = interviewInputSchema.extend({
	quoteFingerprint: fingerprintSchema,
});

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

export function jsonByteLength(value: unknown): number {
	return new TextEncoder().encode(JSON.stringify(value)).length;
}

export function batchSchema<I extends ZodType<unknown, ZodTypeDef, unknown>>(
	input: I,
	extra: z.ZodRawShape = {},
) {
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
export const analysisBatchSchema = batchSchema(
	z.object({ reportId: idSchema, quoteFingerprint: fingerprintSchema }),
);
export const interviewBatchQuoteSchema = batchSchema(
	z.object({
		reportId: idSchema,
		candidateEmail: emailSchema,
		sendEmail: z.literal(true, {
			errorMap: () => ({ message: 'must be true (batches only send email)' }),
		}),
	}),
);
export const interviewBatchSchema = batchSchema(
	z.object({
		reportId: idSchema,
		candidateEmail: emailSchema,
		sendEmail: z.literal(true, {
			errorMap: () => ({ message: 'must be true (batches only send email)' }),
		}),
		quoteFingerprint: fingerprintSchema,
	}),
);
