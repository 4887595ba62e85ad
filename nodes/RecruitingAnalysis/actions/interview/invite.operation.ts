import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readQuoteChoice } from '../shared/analysis';
import {
	candidateEmailField,
	concurrencyOption,
	deliveryField,
	idempotencyKeyOption,
	optionsCollection,
	quoteFields,
} from '../shared/descriptions';
import { reportLocator } from '../shared/locators';
import { createInvitation, readInvitationInput } from '../shared/interview';
import { optionsParam } from '../shared/params';
import { checkUserKey } from '../shared/validate';

const properties: INodeProperties[] = [
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	...quoteFields('invitation is created'),
	optionsCollection([concurrencyOption, idempotencyKeyOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['interview'], operation: ['invite'] } }, properties);

/** Invite the candidate to an interview, by email or as a private link (the token is output only then). */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const input = readInvitationInput(this, itemIndex);
	const choice = readQuoteChoice(this, itemIndex);
	const userKey = checkUserKey(this, optionsParam(this, itemIndex), itemIndex);
	return await createInvitation(this, itemIndex, '/api/v1/interviews', input, choice, 'interview.invite', userKey);
}
