import type { INodeProperties } from 'n8n-workflow';

import { quoteAnalysis } from '../../engine/capacity';
import { concurrencyOption, optionsCollection, reportLocator } from '../common/descriptions';
import { idParam } from '../common/checks';
import { creditsOf } from '../../writes/spending';
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	...reportLocator('ID of the report with an uploaded resume (starts with rpt_)'),
	optionsCollection([concurrencyOption]),
];

export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	run.addNotice('quoteNotBinding');
	const quote = await quoteAnalysis(this, itemIndex, reportId);
	return { ...quote, creditsQuoted: creditsOf(quote) ?? null };
};
