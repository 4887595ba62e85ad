import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** The input item's fields that may hold the candidate's address, in the order they are read. */
const EMAIL_FIELDS = ['candidateEmail', 'email'];

/**
 * The candidate's address as the input item gives it (`candidateEmail`, else `email`), for the node after an
 * analysis (an Invite): the API's reports carry no address (spec "Resources and their fields"), so only the input can. Empty when the
 * item has none.
 */
export function inputEmail(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const json = ctx.getInputData()[itemIndex]?.json ?? {};
	for (const field of EMAIL_FIELDS) {
		const value = json[field];
		if (typeof value === 'string' && value.includes('@')) return { candidateEmail: value.trim() };
	}
	return {};
}
