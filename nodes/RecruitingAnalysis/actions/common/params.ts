import { isResourceLocatorValue, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

// A resource locator gives its value and a plain string is taken as it is, as n8n's own extractValue does.
export function stringParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback = '',
): string {
	const raw = ctx.getNodeParameter(name, itemIndex, fallback) as unknown;
	const value = isResourceLocatorValue(raw) ? raw.value : raw;
	return String(value ?? '').trim();
}

export function optionsParam(ctx: IExecuteFunctions, itemIndex: number, name = 'options') {
	return (ctx.getNodeParameter(name, itemIndex, {}) as IDataObject) ?? {};
}

export function optionString(options: IDataObject, name: string): string | undefined {
	const text = String(options[name] ?? '').trim();
	return text === '' ? undefined : text;
}

export function withoutKeys(value: IDataObject, keys: readonly string[]): IDataObject {
	return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}
