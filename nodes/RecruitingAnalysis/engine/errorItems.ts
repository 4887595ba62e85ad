import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { apiErrorInfo } from '../transport';

export type ItemResult = IDataObject | IDataObject[] | INodeExecutionData[];

function isExecutionData(value: unknown): value is INodeExecutionData {
	return (
		typeof value === 'object' &&
		value !== null &&
		'json' in value &&
		typeof (value as INodeExecutionData).json === 'object'
	);
}

export function toItems(result: ItemResult, itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((entry) => {
		if (isExecutionData(entry)) return { ...entry, pairedItem: { item: itemIndex } };
		return { json: entry as IDataObject, pairedItem: { item: itemIndex } };
	});
}

export function toNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), message, { itemIndex });
}

export interface ItemLocation {
	itemNumber: number;
	fileName?: string;
}

export function itemLocation(ctx: IExecuteFunctions, itemIndex: number): ItemLocation {
	const where: ItemLocation = { itemNumber: itemIndex + 1 };
	try {
		const item = ctx.getInputData()[itemIndex];
		const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const property = ctx.getNodeParameter('binaryPropertyName', itemIndex, '') as string;
		const candidates = [
			options?.fileName,
			property ? item?.binary?.[property]?.fileName : undefined,
			item?.json?.fileName,
		];
		const fileName = candidates.find((value) => typeof value === 'string' && value.trim() !== '');
		if (typeof fileName === 'string') where.fileName = fileName.trim();
	} catch {
		// A parameter whose expression fails has its own error; the location then carries the item number only.
	}
	return where;
}

// n8n's own messages end in " [item N]" counted from 0; ours count as the editor does.
const ENGINE_ITEM_SUFFIX = / \[item \d+\]$/;

function locate(message: string, where: ItemLocation): string {
	const text = message.replace(ENGINE_ITEM_SUFFIX, '');
	const file = where.fileName && !text.includes(where.fileName) ? `, ${where.fileName}` : '';
	return `${text} [item ${where.itemNumber}${file}]`;
}

// A 401 or 403 concerns every item alike, so it gets no advice to let the other items through.
export function stoppingMessage(
	error: NodeApiError | NodeOperationError,
	where: ItemLocation,
	itemCount: number,
): string {
	const located = locate(error.message, where);
	const status = apiErrorInfo(error)?.status;
	if (itemCount < 2 || status === 401 || status === 403) return located;
	const others = where.fileName ? 'files' : 'items';
	return `${located}. To let the other ${others} through, set this node's Settings > On Error to "Continue" or "Continue (using error output)" (this one then becomes an error item)`;
}

export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	where: ItemLocation,
	errorOutput: boolean,
): INodeExecutionData {
	const facts: IDataObject = {};
	if (where.fileName) facts.fileName = where.fileName;
	if (error.description) facts.description = error.description;
	const info = apiErrorInfo(error);
	if (info) {
		facts.httpCode = info.status;
		facts.code = info.code;
		if (info.reason) facts.reason = info.reason;
		if (info.requestId) facts.requestId = info.requestId;
	}
	const message = locate(error.message, where);
	// n8n moves an item to the error output only if its json is just error, message and details: facts go in details.
	const json: IDataObject = errorOutput
		? { error: message, details: facts }
		: { error: message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
