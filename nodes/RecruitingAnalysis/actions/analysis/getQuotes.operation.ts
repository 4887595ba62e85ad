import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { reportLocator } from '../common/locators';
import { analysisBatchQuoteSchema, validateBatch } from '../../validation';
import { api } from '../../transport/api';
import { itemKeyFor, readChunk } from '../../engine/batch';
import { addNotice } from '../../floor/notices';
import { stage, type ChunkState } from '../../engine/types';
import { idParam } from '../common/checks';
import { creditsOf } from '../../writes/spending';

const properties: INodeProperties[] = [
	{
		displayName: 'Quotes all input items together, 20 at a time',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['analysis'], operation: ['getQuotes'] } },
	properties,
);

export const mode = 'batch';

interface BatchQuoteItem extends IDataObject {
	itemKey: string;
	quote: IDataObject | null;
	/** The quote's price in credits (creditUnits / creditScale), null when unquoted. */
	creditsQuoted: number | null;
	errorCode: string | null;
}

/** Quote the analyses of up to 20 input items with one request; one output item per input item. */
async function quoteChunk(this: IExecuteFunctions, chunk: ChunkState): Promise<ChunkState> {
	const { outcomes } = chunk;
	const valid = await readChunk(chunk, (itemIndex) => ({
		reportId: idParam(this, 'reportId', itemIndex, 'Report ID'),
	}));
	if (valid.length === 0) return chunk;

	const body = {
		items: valid.map(({ itemIndex, reportId }) => ({
			itemKey: itemKeyFor(itemIndex),
			input: { reportId },
		})),
	};
	validateBatch.call(this, analysisBatchQuoteSchema, body, valid[0].itemIndex);
	const response = await api(this, {
		method: 'POST',
		path: '/api/v1/analysis-batch-quotes',
		body,
		itemIndex: valid[0].itemIndex,
	});
	addNotice(this, 'quoteNotBinding');
	const quoted = (response.items ?? []) as BatchQuoteItem[];
	for (const { position, itemIndex, reportId } of valid) {
		const entry = quoted.find((q) => q.itemKey === itemKeyFor(itemIndex));
		outcomes[position] = {
			reportId,
			itemKey: itemKeyFor(itemIndex),
			quote: entry?.quote ?? null,
			creditsQuoted: creditsOf(entry?.quote) ?? null,
			errorCode: entry ? (entry.errorCode ?? null) : 'MISSING_FROM_RESPONSE',
			batchTotal: (response.total ?? null) as IDataObject | null,
		};
	}
	return chunk;
}

/** One stage: chunks are quoted one after another (quotes have no side effect to overlap with). */
export const stages = [stage(quoteChunk)];
