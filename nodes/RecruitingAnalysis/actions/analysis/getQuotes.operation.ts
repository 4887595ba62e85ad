import type { INodeProperties } from 'n8n-workflow';

import { reportLocator } from '../common/descriptions';
import { idParam } from '../common/checks';
import { ANALYSIS_BATCH, quoteEveryItem } from '../common/chargedBatch';

export const description: INodeProperties[] = [
	{
		displayName: 'Quotes all input items together, 20 at a time',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator(),
];

export const mode = 'batch';

export const stages = [
	quoteEveryItem(
		ANALYSIS_BATCH,
		(ctx, itemIndex) => ({ reportId: idParam(ctx, 'reportId', itemIndex, 'Report ID') }),
		(input) => input,
	),
];
