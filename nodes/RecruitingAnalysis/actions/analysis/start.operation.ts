import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readQuoteChoice, readWaitSettings, startAnalysis, waitForReport } from '../shared/analysis';
import {
	concurrencyOption,
	idempotencyKeyOption,
	optionsCollection,
	quoteFields,
	reportIdField,
	waitForCompletionOptions,
} from '../shared/descriptions';
import { optionsParam } from '../shared/params';
import { checkUserKey, idParam } from '../shared/validate';
import { later } from '../shared/waiter';

const properties: INodeProperties[] = [
	reportIdField('ID of the report whose resume was uploaded (starts with rpt_)'),
	...quoteFields('analysis is started'),
	optionsCollection([concurrencyOption, idempotencyKeyOption, ...waitForCompletionOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['analysis'], operation: ['start'] } }, properties);

/** Submit the analysis of an uploaded resume (202: an attempt is created). */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const choice = readQuoteChoice(this, itemIndex);
	const options = optionsParam(this, itemIndex);
	const userKey = checkUserKey(this, options, itemIndex);
	const wait = readWaitSettings(options);

	const started = await startAnalysis(this, itemIndex, reportId, choice, 'analysis.start', userKey);
	if (!wait.waitForCompletion) return started;
	// After waiting, the output is what the user chose to see (summary, result or simplified result). The wait is
	// shared with the other items and does not hold this lane.
	return later(waitForReport(this, itemIndex, reportId, wait));
}
