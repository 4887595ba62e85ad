import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

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
	quoteCharged,
	submitCharged,
	type ChargedChunk,
} from '../common/chargedBatch';
import { includeReportOption, readReportSummaries } from './batchSummaries';
import { stage } from '../../engine/run';
import { readWriteChoice } from '../../writes/identity';
import { stringParam } from '../common/params';
import { idParam } from '../common/checks';

const properties: INodeProperties[] = [
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

export const description = updateDisplayOptions(
	{ show: { resource: ['analysis'], operation: ['startMany'] } },
	properties,
);

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		reportId: idParam(this, 'reportId', itemIndex, 'Report ID'),
		choice: readQuoteChoice(this, itemIndex),
		write: readWriteChoice(this, itemIndex),
	};
}

/** Stage 1 charges: at most one chunk is quoted ahead of it. */
export const submitStage = 1;

/** The items as `check` read them: nothing is read or validated twice. */
async function quote(this: IExecuteFunctions, chunk: ChargedChunk): Promise<ChargedChunk> {
	const pending = chunk.itemIndexes.map((itemIndex, position) => {
		const { reportId, choice, write } = chunk.checked?.[position] as Awaited<
			ReturnType<typeof check>
		>;
		// A repeat names reports started before: each is checked, so none is charged twice.
		const fingerprint = choice.quoteFingerprint;
		const input = { reportId };
		return {
			position,
			itemIndex,
			reportId,
			input,
			fingerprint,
			choice: write,
			checkExisting: true,
		};
	});
	// The later items' reports, so that the list pages read for this chunk's check serve theirs too.
	const last = chunk.itemIndexes[chunk.itemIndexes.length - 1];
	const laterReportIds = () =>
		this.getInputData()
			.slice(last + 1)
			.map((_, offset) => stringParam(this, 'reportId', last + 1 + offset))
			.filter((id) => id !== '');
	return {
		...chunk,
		pending: await quoteCharged(this, chunk, ANALYSIS_BATCH, pending, laterReportIds),
	};
}

export const stages = [
	stage(quote),
	stage(async function (this: IExecuteFunctions, chunk: ChargedChunk) {
		return await submitCharged(this, chunk, ANALYSIS_BATCH);
	}),
	stage(readReportSummaries),
];
