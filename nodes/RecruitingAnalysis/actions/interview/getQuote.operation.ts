import type { INodeProperties } from 'n8n-workflow';

import {
	candidateEmailField,
	concurrencyOption,
	deliveryField,
	optionsCollection,
	reportLocator,
} from '../common/descriptions';
import { quoteInterview, readInvitationInput } from './invitation';
import { creditsOf } from '../../writes/spending';
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	optionsCollection([concurrencyOption]),
];

export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const input = readInvitationInput(this, itemIndex);
	run.addNotice('quoteNotBinding');
	const quote = await quoteInterview(this, itemIndex, input);
	return { ...quote, creditsQuoted: creditsOf(quote) ?? null };
};
