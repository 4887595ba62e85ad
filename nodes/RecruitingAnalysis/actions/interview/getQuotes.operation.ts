import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { reportLocator } from '../common/locators';
import { interviewBatchQuoteSchema, validateBatch } from '../../validation';
import { api } from '../../transport/api';
import { itemKeyFor, readChunk } from '../../engine/batch';
import { candidateEmailField } from '../common/descriptions';
import { addNotice } from '../../floor/notices';
import { readBatchInvitation } from './batchStages';
import { stage, type ChunkState } from '../../engine/types';
import { creditsOf } from '../../writes/spending';

const properties: INodeProperties[] = [
	{
		displayName: 'Quotes all input items together, 20 at a time, for email delivery',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getQuotes'] } },
	properties,
);

export const mode = 'batch';

/** Quote the interviews of up to 20 input items with one request; one output item per input item. */
async function quoteChunk(this: IExecuteFunctions, chunk: ChunkState): Promise<ChunkState> {
	const { outcomes } = chunk;
	const valid = await readChunk(chunk, (itemIndex) => ({
		input: readBatchInvitation(this, itemIndex),
	}));
	if (valid.length === 0) return chunk;
	const body = {
		items: valid.map(({ itemIndex, input }) => ({ itemKey: itemKeyFor(itemIndex), input })),
	};
	validateBatch.call(this, interviewBatchQuoteSchema, body, valid[0].itemIndex);
	const response = await api(this, {
		method: 'POST',
		path: '/api/v1/interview-batch-quotes',
		body,
		itemIndex: valid[0].itemIndex,
	});
	addNotice(this, 'quoteNotBinding');
	const quoted = (response.items ?? []) as IDataObject[];
	for (const { position, itemIndex, input } of valid) {
		const entry = quoted.find((q) => q.itemKey === itemKeyFor(itemIndex));
		outcomes[position] = {
			reportId: input.reportId,
			candidateEmail: input.candidateEmail,
			itemKey: itemKeyFor(itemIndex),
			quote: (entry?.quote ?? null) as IDataObject | null,
			creditsQuoted: creditsOf(entry?.quote as IDataObject | undefined) ?? null,
			errorCode: entry ? ((entry.errorCode ?? null) as string | null) : 'MISSING_FROM_RESPONSE',
			batchTotal: (response.total ?? null) as IDataObject | null,
		};
	}
	return chunk;
}

/** One stage: chunks are quoted one after another (quotes have no side effect to overlap with). */
export const stages = [stage(quoteChunk)];
