import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { analysisBatchQuoteSchema, analysisBatchSchema, validateBatch, validateFingerprint } from '../../validation';
import { api } from '../shared/api';
import {
	batchItemFor,
	batchTimeout,
	batchTimeoutOption,
	chunkIdempotencyKey,
	createBatch,
	itemKeyFor,
	waitForBatch,
} from '../shared/batch';
import { mapWithConcurrency } from '../shared/concurrency';
import { idempotencyKeyOption, quoteFields, reportIdField } from '../shared/descriptions';
import { noticesForReport } from '../shared/hints';
import { optionsParam, stringParam } from '../shared/params';
import { checkId } from '../shared/validate';

const properties: INodeProperties[] = [
	{
		displayName:
			'All input items are started through the analysis-batch endpoint, 20 per batch; each batch is awaited until every admitted analysis has finished',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	reportIdField('ID of the report whose resume was uploaded (starts with rpt_)'),
	...quoteFields('batch is submitted'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			batchTimeoutOption,
			idempotencyKeyOption,
			{
				displayName: 'Include Report Summary',
				name: 'includeReport',
				type: 'boolean',
				default: false,
				description:
					'Whether to add each report\'s summary (status, score, summary) once the batch has completed. Needs the reports:read scope.',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['analysis'], operation: ['startMany'] } }, properties);

export const mode = 'batch';

interface Pending {
	position: number;
	itemIndex: number;
	reportId: string;
	fingerprint?: string;
}

/**
 * Start the analyses of up to 20 input items as one analysis batch. With automatic quoting, the chunk is
 * quoted first with one batch-quote request; items that cannot be quoted are reported and left out.
 */
export async function execute(this: IExecuteFunctions, itemIndexes: number[]): Promise<Array<IDataObject | Error>> {
	const outcomes: Array<IDataObject | Error> = itemIndexes.map(() => ({}));
	let pending: Pending[] = [];
	for (const [position, itemIndex] of itemIndexes.entries()) {
		try {
			const reportId = checkId(this, stringParam(this, 'reportId', itemIndex), itemIndex, 'Report ID');
			const auto = this.getNodeParameter('quoteAutomatically', itemIndex, true) as boolean;
			const fingerprint = auto
				? undefined
				: validateFingerprint.call(this, stringParam(this, 'quoteFingerprint', itemIndex), itemIndex);
			pending.push({ position, itemIndex, reportId, fingerprint });
		} catch (error) {
			outcomes[position] = error as Error;
		}
	}
	if (pending.length === 0) return outcomes;
	const first = pending[0].itemIndex;

	const toQuote = pending.filter((p) => p.fingerprint === undefined);
	if (toQuote.length > 0) {
		const quoteBody = { items: toQuote.map((p) => ({ itemKey: itemKeyFor(p.itemIndex), input: { reportId: p.reportId } })) };
		validateBatch.call(this, analysisBatchQuoteSchema, quoteBody, first);
		const quotes = await api(this, {
			method: 'POST',
			path: '/api/v1/analysis-batch-quotes',
			body: quoteBody,
			itemIndex: first,
		});
		for (const p of toQuote) {
			const entry = ((quotes.items ?? []) as IDataObject[]).find((q) => q.itemKey === itemKeyFor(p.itemIndex));
			const quote = entry?.quote as IDataObject | null | undefined;
			if (quote && typeof quote.fingerprint === 'string') {
				p.fingerprint = quote.fingerprint;
			} else {
				outcomes[p.position] = {
					reportId: p.reportId,
					itemKey: itemKeyFor(p.itemIndex),
					state: 'not_quoted',
					attemptId: null,
					errorCode: (entry?.errorCode as string | null | undefined) ?? 'NOT_QUOTED',
				};
			}
		}
		pending = pending.filter((p) => p.fingerprint !== undefined);
		if (pending.length === 0) return outcomes;
	}

	const options = optionsParam(this, first);
	const body = {
		items: pending.map((p) => ({ itemKey: itemKeyFor(p.itemIndex), input: { reportId: p.reportId, quoteFingerprint: p.fingerprint } })),
	};
	validateBatch.call(this, analysisBatchSchema, body, first);
	const key = chunkIdempotencyKey(this, pending.map((p) => p.itemIndex), 'analysis.startMany', options);
	const { batchId } = await createBatch(this, 'analyses', body, key, first);
	const batch = await waitForBatch(this, 'analyses', batchId, first, batchTimeout(options));
	for (const p of pending) {
		const item = batchItemFor(batch, p.itemIndex);
		outcomes[p.position] = {
			batchId,
			reportId: p.reportId,
			itemKey: itemKeyFor(p.itemIndex),
			state: item?.state ?? 'unknown',
			attemptId: item?.attemptId ?? null,
			errorCode: item?.errorCode ?? null,
		};
	}
	if (options.includeReport === true) {
		// An analysis batch completes only once every admitted analysis is terminal, so the summaries are final.
		await mapWithConcurrency(pending, 5, async (p) => {
			const outcome = outcomes[p.position] as IDataObject;
			if (outcome.state !== 'succeeded') return;
			const report = await api(this, { method: 'GET', path: apiPath('/api/v1/reports/{}', p.reportId), itemIndex: p.itemIndex });
			noticesForReport(this, report);
			outcome.report = report;
		});
	}
	return outcomes;
}
