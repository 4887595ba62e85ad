import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** A string parameter, trimmed ('' when absent). Ids and keys come in through expressions; stray spaces are noise. */
export function stringParam(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback = ''): string {
	const value = ctx.getNodeParameter(name, itemIndex, fallback) as unknown;
	if (value === null || value === undefined) return '';
	return String(value).trim();
}

export function optionsParam(ctx: IExecuteFunctions, itemIndex: number, name = 'options'): IDataObject {
	return (ctx.getNodeParameter(name, itemIndex, {}) as IDataObject) ?? {};
}

/** A string option of a collection, trimmed; undefined when empty. */
export function optionString(options: IDataObject, name: string): string | undefined {
	const value = options[name];
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

/** Drop undefined, null and '' entries from a query string object. */
export function compactQuery(qs: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(qs)) {
		if (value === undefined || value === null || value === '') continue;
		out[key] = value;
	}
	return out;
}
