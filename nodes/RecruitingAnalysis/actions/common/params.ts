import { isResourceLocatorValue, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

/**
 * A string parameter, trimmed ('' when absent). Ids and keys come in through expressions; stray spaces are noise.
 * A resource locator (`{__rl, mode, value}`, node version 2's ID fields) gives its value, and a plain string
 * saved for it (version 1, or typed by hand) is taken as it is, as n8n's own `extractValue` does.
 */
export function stringParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback = '',
): string {
	const raw = ctx.getNodeParameter(name, itemIndex, fallback) as unknown;
	const value = isResourceLocatorValue(raw) ? raw.value : raw;
	if (value === null || value === undefined) return '';
	return String(value).trim();
}

export function optionsParam(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name = 'options',
): IDataObject {
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

/** A copy of `value` without `keys` (an output or a request body that leaves some fields out). */
export function withoutKeys(value: IDataObject, keys: readonly string[]): IDataObject {
	return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}
