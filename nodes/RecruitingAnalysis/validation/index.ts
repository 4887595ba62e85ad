import type { ZodType, ZodTypeDef } from 'zod';

import { check, type ValidationContext } from './failures';
import {
	createdRangeSchema,
	cursorSchema,
	emailSchema,
	eventTypeSchema,
	externalReferenceFilterSchema,
	externalReferenceSchema,
	fingerprintSchema,
	idempotencyKeySchema,
	idSchema,
	limitSchema,
	schemaVersionSchema,
	type ExternalReference,
} from './rules';
import {
	jobDescriptionInputSchema,
	uploadInputSchema,
	type JobDescriptionInput,
	type UploadInput,
} from './bodies';

export * from './rules';
export * from './bodies';
export * from './failures';

export function validateEmail(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Candidate Email',
): string {
	return check(this, emailSchema, value, itemIndex, label);
}

export function validateId(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'ID',
): string {
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
	return check(
		this,
		fingerprintSchema,
		typeof value === 'string' ? value.trim() : value,
		itemIndex,
		label,
	);
}

export function validateLimit(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Limit',
): number {
	return check(this, limitSchema, value, itemIndex, label);
}

export function validateCursor(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Cursor',
): string {
	return check(this, cursorSchema, value, itemIndex, label);
}

export function validateSchemaVersion(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
	label = 'Schema Version',
): '1' {
	return check(
		this,
		schemaVersionSchema,
		value === undefined || value === '' ? '1' : String(value),
		itemIndex,
		label,
	);
}

export function validateExternalReference(
	this: ValidationContext,
	value: { source?: string; id?: string },
	itemIndex: number,
): ExternalReference {
	return check(this, externalReferenceSchema, value, itemIndex);
}

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

export function validateCreatedRange(
	this: ValidationContext,
	value: { createdAfter?: string; createdBefore?: string },
	itemIndex: number,
): { createdAfter?: string; createdBefore?: string } {
	const cleaned = {
		createdAfter: value.createdAfter || undefined,
		createdBefore: value.createdBefore || undefined,
	};
	return check(this, createdRangeSchema, cleaned, itemIndex);
}

export function validateJobDescriptionInput(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
): JobDescriptionInput {
	return check(this, jobDescriptionInputSchema, value, itemIndex);
}

export function validateUploadInput(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
): UploadInput {
	return check(this, uploadInputSchema, value, itemIndex);
}

export function validateEventType(
	this: ValidationContext,
	value: unknown,
	itemIndex: number,
): string {
	return check(this, eventTypeSchema, value, itemIndex, 'Event Type');
}

export function validateBatch<T>(
	this: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	body: unknown,
	itemIndex: number,
): T {
	return check(this, schema, body, itemIndex);
}
