import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { readQuoteChoice, readSimplify, readWaitSettings, startAnalysis, waitForReport } from '../shared/analysis';
import {
	concurrencyOption,
	idempotencyKeyOption,
	optionsCollection,
	quoteFields,
	reportIdField,
	waitForCompletionOptions,
	simplifyReportsField,
} from '../shared/descriptions';
import { optionsParam } from '../shared/params';
import { checkUserKey, idParam } from '../shared/validate';

const properties: INodeProperties[] = [
	reportIdField('ID of the report whose resume was uploaded (starts with rpt_)'),
	...quoteFields('analysis is started'),
	simplifyReportsField('once its analysis has finished (with Wait for Completion)'),
	optionsCollection([concurrencyOption, idempotencyKeyOption, ...waitForCompletionOptions]),
];

export const description = updateDisplayOptions({ show: { resource: ['analysis'], operation: ['start'] } }, properties);

/** Submit the analysis of an uploaded resume (202: an attempt is created). */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const choice = readQuoteChoice(this, itemIndex);
	const options = optionsParam(this, itemIndex);
	const userKey = checkUserKey(this, options, itemIndex);
	const wait = readWaitSettings(options, readSimplify(this, itemIndex));

	const started = await startAnalysis(this, itemIndex, reportId, choice, 'analysis.start', userKey);
	if (!wait.waitForCompletion) return started;
	// After waiting, the output is what the user chose to see (simplified item, summary, result or result view). The
	// file name is the input item's own, when it has one (as Upload Resume outputs).
	return await waitForReport(this, itemIndex, reportId, wait, true, this.getInputData()[itemIndex]?.json?.fileName);
}
