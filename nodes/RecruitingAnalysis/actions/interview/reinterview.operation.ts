import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

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
	interviewLocator,
	reportLocator,
} from '../common/descriptions';
import { checkInvitation } from './invitation';
import { idParam } from '../common/checks';

export const description: INodeProperties[] = [
	chargeNotice('interview'),
	emailNotice('the candidate', { delivery: ['email'] }),
	...interviewLocator(
		'ID of the previous interview attempt (starts with int_); it must not be in progress',
	),
	...reportLocator('ID of the report of the previous interview (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	...quoteFields('new attempt is created'),
	spendingLimitField,
	optionsCollection([concurrencyOption, ...writeOptions]),
];

export async function check(this: IExecuteFunctions, itemIndex: number) {
	const previousInterviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	return { previousInterviewId, ...(await checkInvitation.call(this, itemIndex)) };
}

export { createInvitation as execute } from './invitation';
