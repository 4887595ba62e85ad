import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { REQUOTE_STEP, startAnalysis, readWaitSettings, waitForStarted } from './startAnalysis';
import { readQuoteChoice } from '../common/chargedWrite';
import {
	concurrencyOption,
	optionsCollection,
	quoteFields,
	waitForCompletionOptions,
	simplifyReportsField,
	writeOptions,
	chargeNotice,
	spendingLimitField,
	reportLocator,
} from '../common/descriptions';
import { readWriteChoice, USER_KEY_STEPS } from '../../writes/identity';
import { idParam } from '../common/checks';
import { Later, type Run } from '../../engine/run';

export const description: INodeProperties[] = [
	chargeNotice('analysis'),
	...reportLocator('ID of the report whose resume was uploaded (starts with rpt_)'),
	...quoteFields('analysis is started'),
	simplifyReportsField('once its analysis has finished (with Wait for Completion)'),
	spendingLimitField,
	optionsCollection([concurrencyOption, ...writeOptions, ...waitForCompletionOptions]),
];

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		reportId: idParam(this, 'reportId', itemIndex, 'Report ID'),
		choice: readQuoteChoice(this, itemIndex),
		write: readWriteChoice(this, itemIndex, [USER_KEY_STEPS['analysis.start'], REQUOTE_STEP]),
		wait: readWaitSettings(this, itemIndex),
	};
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	{ reportId, choice, write, wait }: Awaited<ReturnType<typeof check>>,
	run: Run,
) {
	const started = await startAnalysis(this, run, itemIndex, reportId, { choice, write });
	if (!wait.waitForCompletion) {
		// Started, not finished: no score yet, and a Filter on score after this node would drop every item.
		run.addNotice('noScoreWithoutWaiting');
		return started;
	}
	const fileName = this.getInputData()[itemIndex]?.json?.fileName;
	return new Later(waitForStarted(this, run, itemIndex, reportId, started, wait, fileName));
}
