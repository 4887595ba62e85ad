import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { z } from 'zod';

import {
	validateExternalReferenceFilter,
	validateId,
	validateIdempotencyKey,
	validateInput,
} from '../../validation';
import { optionString, stringParam } from './params';

export function idParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	return validateId.call(ctx, stringParam(ctx, name, itemIndex), itemIndex, label);
}

/** n8n's "Limit" is the total number of results (paged by the transport), not the page size. */
const totalLimitSchema = z
	.number({ required_error: 'is required', invalid_type_error: 'must be a number' })
	.int('must be a whole number')
	.min(1, 'must be at least 1');

export function checkLimit(ctx: IExecuteFunctions, value: unknown, itemIndex: number): number {
	return validateInput.call(ctx, totalLimitSchema, value, itemIndex, 'Limit') as number;
}

export function checkUserKey(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
): string | undefined {
	const value = optionString(options, 'idempotencyKey');
	return value === undefined ? undefined : validateIdempotencyKey.call(ctx, value, itemIndex);
}

// The filters and the uploads take the pair together or not at all.
export function checkExternalReference(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
) {
	const externalReferenceSource = optionString(options, 'externalReferenceSource');
	const externalReferenceId = optionString(options, 'externalReferenceId');
	return validateExternalReferenceFilter.call(
		ctx,
		{ externalReferenceSource, externalReferenceId },
		itemIndex,
	);
}
