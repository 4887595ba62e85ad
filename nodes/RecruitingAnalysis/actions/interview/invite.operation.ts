import type { INodeProperties } from 'n8n-workflow';

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

export { checkInvitation as check, createInvitation as execute } from './invitation';
