import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	validateExternalReferenceFilter,
	validateId,
	validateIdempotencyKey,
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
