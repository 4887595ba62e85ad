import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { api } from '../../transport';
import { validateSchemaVersion } from '../../validation';
import {
	concurrencyOption,
	optionsCollection,
	schemaVersionOption,
	simplifyField,
	unmeasuredNotice,
} from './descriptions';
import { optionString, optionsParam } from './params';

export function resultProperties(locator: INodeProperties[], keeps: string): INodeProperties[] {
	return [
		unmeasuredNotice,
		...locator,
		{ ...simplifyField, description: `Whether to keep only ${keeps}` },
		optionsCollection([concurrencyOption, schemaVersionOption]),
	];
}

export async function readResult(
	ctx: IExecuteFunctions,
	itemIndex: number,
	path: string,
): Promise<{ result: IDataObject; simplify: boolean }> {
	const options = optionsParam(ctx, itemIndex);
	const schemaVersion = validateSchemaVersion.call(
		ctx,
		optionString(options, 'schemaVersion') ?? '1',
		itemIndex,
	);
	const simplify = ctx.getNodeParameter('simplify', itemIndex, false) as boolean;
	const result = await api(ctx, { method: 'GET', path, qs: { schemaVersion }, itemIndex });
	return { result, simplify };
}
