import type { IExecuteFunctions } from 'n8n-workflow';
import { z } from 'zod';

import { validateId, validateIdempotencyKey, validateInput } from '../../validation';

/**
 * Small adapters over the shared validation module, so operation files read as one line per rule.
 * Every check runs before the operation's first request.
 */

export function checkId(ctx: IExecuteFunctions, value: string, itemIndex: number, label: string): string {
	return validateId.call(ctx, value, itemIndex, label);
}

/** n8n's "Limit" is the total number of results (paged by the transport), not the page size. */
const totalLimitSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number' })
	.int('must be a whole number')
	.min(1, 'must be at least 1');

export function checkLimit(ctx: IExecuteFunctions, value: unknown, itemIndex: number): number {
	return validateInput.call(ctx, totalLimitSchema, value, itemIndex, 'Limit') as number;
}

/** The user's own idempotency key, when given (otherwise one is derived by idempotencyKeyFor). */
export function checkUserKey(ctx: IExecuteFunctions, value: string | undefined, itemIndex: number): string | undefined {
	if (value === undefined || value === '') return undefined;
	return validateIdempotencyKey.call(ctx, value, itemIndex);
}
