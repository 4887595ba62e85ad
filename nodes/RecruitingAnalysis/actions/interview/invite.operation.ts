import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readQuoteChoice } from '../common/chargedWrite';
import {
	candidateEmailField,
	concurrencyOption,
	deliveryField,
	optionsCollection,
	quoteFields,
	writeOptions,
	chargeNotice,
	emailNotice,
	spendingLimitField,
	reportLocator,
} from '../common/descriptions';
import { createInvitation, readInvitationInput } from './invitation';
import { INVITATION_STEP_EXAMPLE, readWriteChoice } from '../../writes/identity';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	chargeNotice('interview'),
	emailNotice('the candidate', { delivery: ['email'] }),
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	...quoteFields('invitation is created'),
	spendingLimitField,
	optionsCollection([concurrencyOption, ...writeOptions]),
];

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		input: readInvitationInput(this, itemIndex),
		choice: readQuoteChoice(this, itemIndex),
		write: readWriteChoice(this, itemIndex, [INVITATION_STEP_EXAMPLE]),
	};
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	checked: Awaited<ReturnType<typeof check>>,
	run: Run,
) {
	return await createInvitation(this, run, itemIndex, checked.input, checked.choice, checked.write);
}
