import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	validateExternalReferenceFilter,
	validateId,
	validateIdempotencyKey,
	validateTotalLimit,
} from '../../validation';
import { optionString, stringParam } from './params';

export function idParam(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string) {
	return validateId.call(ctx, stringParam(ctx, name, itemIndex), itemIndex, label);
}

export function checkListSize(ctx: IExecuteFunctions, itemIndex: number) {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	if (returnAll) return { returnAll, limit: undefined };
	const limit = ctx.getNodeParameter('limit', itemIndex, 50);
	return { returnAll, limit: validateTotalLimit.call(ctx, limit, itemIndex) };
}

export function checkUserKey(ctx: IExecuteFunctions, options: IDataObject, itemIndex: number) {
	const value = optionString(options, 'idempotencyKey');
	return value === undefined ? undefined : validateIdempotencyKey.call(ctx, value, itemIndex);
}

// The filters and the uploads take the pair together or not at all.
export function checkExternalReference(
	ctx: IExecuteFunctions,
	options: IDataObject,
	itemIndex: number,
) {
	const pair = {
		externalReferenceSource: optionString(options, 'externalReferenceSource'),
		externalReferenceId: optionString(options, 'externalReferenceId'),
	};
	return validateExternalReferenceFilter.call(ctx, pair, itemIndex);
}
