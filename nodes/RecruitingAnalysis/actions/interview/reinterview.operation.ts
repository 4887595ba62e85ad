import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { readQuoteChoice } from '../shared/analysis';
import {
	candidateEmailField,
	concurrencyOption,
	deliveryField,
	idempotencyKeyOption,
	optionsCollection,
	quoteFields,
} from '../shared/descriptions';
import { interviewLocator, reportLocator } from '../shared/locators';
import { createInvitation, readInvitationInput } from '../shared/interview';
import { optionsParam } from '../shared/params';
import { checkUserKey, idParam } from '../shared/validate';

const properties: INodeProperties[] = [
	...interviewLocator('ID of the previous interview attempt (starts with int_); it must not be in progress'),
	...reportLocator('ID of the report of the previous interview (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	...quoteFields('new attempt is created'),
	optionsCollection([concurrencyOption, idempotencyKeyOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['interview'], operation: ['reinterview'] } }, properties);

/** A new interview attempt with a new ID; the old attempt keeps its results and its links stop working. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const input = readInvitationInput(this, itemIndex);
	const choice = readQuoteChoice(this, itemIndex);
	const userKey = checkUserKey(this, optionsParam(this, itemIndex), itemIndex);
	const output = await createInvitation(
		this,
		itemIndex,
		apiPath('/api/v1/interviews/{}/reinterview', interviewId),
		input,
		choice,
		'interview.reinterview',
		userKey,
	);
	return { previousInterviewId: interviewId, ...output };
}
