import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import {
	reportLocator,
	candidateEmailField,
	optionsCollection,
	quoteFields,
	writeOptions,
	chargeNotice,
	emailNotice,
	spendingLimitField,
} from '../common/descriptions';
import { readQuoteChoice } from '../common/chargedWrite';
import { batchTimeoutOption } from '../../engine/batch';
import { readWriteChoice } from '../../writes/identity';
import { stage } from '../../engine/run';
import { nameCandidates, quoteInvitations, submit } from './batchStages';
import { readInvitationInput } from './invitation';

const properties: INodeProperties[] = [
	chargeNotice('interview'),
	emailNotice('each candidate'),
	{
		displayName: 'Invites all input items together, 20 at a time, by email only (no private links)',
		name: 'batchNotice',
		type: 'notice',
		default: '',
	},
	...reportLocator('ID of a report with a completed, usable analysis (starts with rpt_)'),
	candidateEmailField,
	...quoteFields('batch is submitted'),
	spendingLimitField,
	optionsCollection([batchTimeoutOption, ...writeOptions]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['inviteMany'] } },
	properties,
);

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		input: readInvitationInput(this, itemIndex, true),
		choice: readQuoteChoice(this, itemIndex),
		write: readWriteChoice(this, itemIndex),
	};
}

/** Stage 1 charges: at most one chunk is quoted ahead of it. */
export const submitStage = 1;

export const stages = [stage(quoteInvitations), stage(submit), stage(nameCandidates)];
