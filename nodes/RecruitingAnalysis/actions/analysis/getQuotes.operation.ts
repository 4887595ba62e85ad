import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { reportLocator } from '../common/descriptions';
import { analysisBatchQuoteSchema } from '../../validation';
import { idParam } from '../common/checks';
import { quoteEveryItem } from '../common/chargedBatch';

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

export const stages = [
	quoteEveryItem(
		'/api/v1/analysis-batch-quotes',
		analysisBatchQuoteSchema,
		(ctx, itemIndex) => ({ reportId: idParam(ctx, 'reportId', itemIndex, 'Report ID') }),
		(input) => input,
	),
];
