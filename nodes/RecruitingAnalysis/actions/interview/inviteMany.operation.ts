import {
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

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
import {
	INVITATION_BATCH,
	quoteCharged,
	submitCharged,
	type ChargedChunk,
} from '../common/chargedBatch';
import { candidateNamesFor, withCandidateName } from '../common/candidateName';
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

/** The items as `check` read them: nothing is read or validated twice. */
async function quote(this: IExecuteFunctions, chunk: ChargedChunk): Promise<ChargedChunk> {
	const pending = chunk.itemIndexes.map((itemIndex, position) => {
		const { input, choice, write } = chunk.checked?.[position] as Awaited<ReturnType<typeof check>>;
		const fingerprint = choice.quoteFingerprint;
		return { position, itemIndex, reportId: input.reportId, input, fingerprint, choice: write };
	});
	return { ...chunk, pending: await quoteCharged(this, chunk, INVITATION_BATCH, pending) };
}

/** After the batch has completed, so naming the candidates never delays a submission. */
async function nameCandidates(this: IExecuteFunctions, chunk: ChargedChunk): Promise<ChargedChunk> {
	const named = chunk.outcomes
		.map((outcome, position) => ({ outcome, itemIndex: chunk.itemIndexes[position], position }))
		.filter((e): e is typeof e & { outcome: IDataObject } => !(e.outcome instanceof Error));
	const names = await candidateNamesFor(
		this,
		chunk.run,
		named.map((e) => ({ itemIndex: e.itemIndex, reportId: e.outcome.reportId })),
	);
	named.forEach((e, i) => (chunk.outcomes[e.position] = withCandidateName(e.outcome, names[i])));
	return chunk;
}

export const stages = [
	stage(quote),
	stage(async function (this: IExecuteFunctions, chunk: ChargedChunk) {
		return await submitCharged(this, chunk, INVITATION_BATCH);
	}),
	stage(nameCandidates),
];
