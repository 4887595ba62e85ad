import type { INodeProperties } from 'n8n-workflow';

import { reportLocator, candidateEmailField } from '../common/descriptions';
import { INVITATION_BATCH, quoteEveryItem } from '../common/chargedBatch';
import { readInvitationInput } from './invitation';

export const description: INodeProperties[] = [
	{
		displayName: 'Quotes all input items together, 20 at a time, for email delivery',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
];

export const mode = 'batch';

export const stages = [
	quoteEveryItem(
		INVITATION_BATCH,
		(ctx, itemIndex) => readInvitationInput(ctx, itemIndex, true),
		({ reportId, candidateEmail }) => ({ reportId, candidateEmail }),
	),
];
