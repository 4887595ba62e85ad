import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

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
import {
	INVITATION_BATCH,
	quoteCheckedStage,
	submitChargedStage,
	type ChargedChunk,
	type CheckedEntry,
} from '../common/chargedBatch';
import { candidateNamesFor, withCandidateName } from '../common/candidateName';
import { readInvitationInput } from './invitation';

export const description: INodeProperties[] = [
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

export const mode = 'batch';

export async function check(this: IExecuteFunctions, itemIndex: number): Promise<CheckedEntry> {
	const input = readInvitationInput(this, itemIndex, true);
	const { quoteFingerprint } = readQuoteChoice(this, itemIndex);
	const write = readWriteChoice(this, itemIndex);
	return { reportId: input.reportId, input, fingerprint: quoteFingerprint, choice: write };
}

export const submitStage = 1;

/** After the batch has completed, so naming the candidates never delays a submission. */
async function nameCandidates(this: IExecuteFunctions, chunk: ChargedChunk): Promise<ChargedChunk> {
	const named = chunk.outcomes
		.map((outcome, position) => ({ outcome, itemIndex: chunk.itemIndexes[position], position }))
		.filter((e): e is typeof e & { outcome: IDataObject } => !(e.outcome instanceof Error));
	const wanted = named.map((e) => ({ itemIndex: e.itemIndex, reportId: e.outcome.reportId }));
	const names = await candidateNamesFor(this, chunk.run, wanted);
	named.forEach((e, i) => (chunk.outcomes[e.position] = withCandidateName(e.outcome, names[i])));
	return chunk;
}

export const stages = [
	quoteCheckedStage(INVITATION_BATCH),
	submitChargedStage(INVITATION_BATCH),
	nameCandidates,
];
