// Two items with the same user key would be one write, so the second is refused before anything is sent.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

export function userKeyOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const value = options.idempotencyKey;
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

export function duplicateKeyError(
	ctx: IExecuteFunctions,
	key: string,
	earlier: number,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		'"Idempotency Key" must be different for each item',
		{
			itemIndex,
			description:
				`Items ${earlier} and ${itemIndex} both have the Idempotency Key "${key.slice(0, 128)}": one key names one write, so the second ` +
				"would be refused or get the first item's resource. Use an expression that differs per item (for example the application ID), " +
				'or leave the option empty to let the node derive a key from each write. Nothing was sent to the Recruiting Analysis API.',
		},
	);
}
