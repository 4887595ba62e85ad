import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	reportLocator,
	optionsCollection,
	quoteFields,
	simplifyReportsField,
	writeOptions,
	chargeNotice,
	spendingLimitField,
} from '../common/descriptions';
import { readQuoteChoice } from '../common/chargedWrite';
import { batchTimeoutOption } from '../../engine/batch';
import {
	ANALYSIS_BATCH,
	quoteCheckedStage,
	submitChargedStage,
	type CheckedEntry,
} from '../common/chargedBatch';
import { includeReportOption, readReportSummaries } from './batchSummaries';
import { readWriteChoice } from '../../writes/identity';
import { stringParam } from '../common/params';
import { idParam } from '../common/checks';

export const description: INodeProperties[] = [
	chargeNotice('analysis'),
	{
		displayName: 'Starts all input items together, 20 at a time, and waits for each 20 to finish',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator('ID of the report whose resume was uploaded (starts with rpt_)'),
	...quoteFields('batch is submitted'),
	simplifyReportsField('once its batch has finished'),
	spendingLimitField,
	optionsCollection([batchTimeoutOption, ...writeOptions, includeReportOption]),
];

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number): Promise<CheckedEntry> {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const { quoteFingerprint: fingerprint } = readQuoteChoice(this, itemIndex);
	const choice = readWriteChoice(this, itemIndex);
	// A repeat names reports started before: each is checked, so none is charged twice.
	return { reportId, input: { reportId }, fingerprint, choice, checkExisting: true };
}

export const submitStage = 1;

/** The later items' reports, so that the list pages read for this chunk's check serve theirs too. */
function laterReportIds(ctx: IExecuteFunctions, last: number): string[] {
	return ctx
		.getInputData()
		.slice(last + 1)
		.map((_, offset) => stringParam(ctx, 'reportId', last + 1 + offset))
		.filter((id) => id !== '');
}

export const stages = [
	quoteCheckedStage(ANALYSIS_BATCH, laterReportIds),
	submitChargedStage(ANALYSIS_BATCH),
	readReportSummaries,
];
