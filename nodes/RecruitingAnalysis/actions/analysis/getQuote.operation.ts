import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { quoteAnalysis } from '../../engine/capacity';
import { concurrencyOption, optionsCollection, reportLocator } from '../common/descriptions';
import { idParam } from '../common/checks';
import { creditsOf } from '../../writes/spending';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	...reportLocator('ID of the report with an uploaded resume (starts with rpt_)'),
	optionsCollection([concurrencyOption]),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	run.addNotice('quoteNotBinding');
	const quote = await quoteAnalysis(this, itemIndex, reportId);
	return { ...quote, creditsQuoted: creditsOf(quote) ?? null };
}
