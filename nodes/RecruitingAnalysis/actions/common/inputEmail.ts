import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

const EMAIL_FIELDS = ['candidateEmail', 'email'];

// The API's reports carry no address, so only the input item can give it.
export function inputEmail(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const json = ctx.getInputData()[itemIndex]?.json ?? {};
	for (const field of EMAIL_FIELDS) {
		const value = json[field];
		if (typeof value === 'string' && value.includes('@')) return { candidateEmail: value.trim() };
	}
	return {};
}
