import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemKeyFor, refusalHint } from '../../engine/batch';
import { outcomeOf } from '../../transport';
import type { ChunkState } from '../../engine/run';
import { interviewBatchQuoteSchema, interviewBatchSchema } from '../../validation';
import { invitationIdentity, type WriteChoice } from '../../writes/identity';
import { existingInvitation } from '../../writes/recover';
import {
	quoteCharged,
	recoverCharged,
	submitChargedBatch,
	type ChargedBatch,
	type ChargedEntry,
} from '../common/chargedBatch';
import type { QuoteChoice } from '../common/chargedWrite';
import { candidateNamesFor, withCandidateName } from '../common/candidateName';
import type { InvitationInput } from './invitation';

interface InviteEntry extends ChargedEntry {
	input: InvitationInput;
}

interface InviteChunk extends ChunkState {
	pending?: InviteEntry[];
}

/** The invitation, not its quote, is the key: a repeat after a committed batch quotes anew and reads each back. */
function invitationBatch(ctx: IExecuteFunctions, chunk: InviteChunk): ChargedBatch<InviteEntry> {
	const batch: ChargedBatch<InviteEntry> = {
		kind: 'interviews',
		what: 'invitation',
		quotePath: '/api/v1/interview-batch-quotes',
		quoteSchema: interviewBatchQuoteSchema,
		schema: interviewBatchSchema,
		input: (entry) => entry.input,
		identity: (entry) => invitationIdentity(entry.input),
		existing: (entry) => ({ kind: 'invitation', reportId: entry.reportId, sendEmail: true }),
		outcome: (entry, { batchId, state, errorCode, creditsUsed }, item, again) => ({
			...(batchId === undefined ? {} : { batchId }),
			reportId: entry.reportId,
			itemKey: itemKeyFor(entry.itemIndex),
			state,
			interviewId: item?.resourceId ?? null,
			errorCode,
			...refusalHint(errorCode as string | null),
			...(again?.afterBatchId === undefined
				? {}
				: again.afterRefusal
					? { submittedAgainAfterRefusal: true }
					: { submittedAgainAfterBatch: again.afterBatchId }),
			...(creditsUsed === undefined ? {} : { creditsUsed }),
		}),
		keyNamesHeldBack: true,
		submitAgain: [],
		requote: async (entries) => await quoteCharged(ctx, chunk, batch, entries),
		recoverItem: async (entry, from) => {
			const read = await outcomeOf(
				async () => await recoverCharged(ctx, chunk, batch, entry, from),
			);
			if (!read.ok) chunk.outcomes[entry.position] = read.error as Error;
		},
		notRecovered: (_entry, error) => error as Error,
		explainOutcome: async (entry, outcome) => {
			if (outcome.errorCode !== 'INTERVIEW_NOT_ELIGIBLE') return outcome;
			const existing = await existingInvitation(ctx, entry.itemIndex, {
				reportId: entry.reportId,
			});
			if (!existing) return outcome;
			// The API never shows an invitation's address, so the node cannot claim that interview as this item's.
			return {
				...outcome,
				existingInterviewId: existing.id,
				hint: `Report ${entry.reportId} already has interview ${String(existing.id)} (${String(existing.lifecycle)}), made before this batch. The API never shows an invitation's address: if it was sent to this item's address, nothing more is needed; to reach another address, run Interview > Reinterview on ${String(existing.id)}.`,
			};
		},
		batchDone: () => chunk.run.addNotice('invitationsQueued'),
	};
	return batch;
}

/** The items as `check` read them: nothing is read or validated twice. */
export async function quoteInvitations(
	this: IExecuteFunctions,
	chunk: InviteChunk,
): Promise<InviteChunk> {
	const pending = chunk.itemIndexes.map((itemIndex, position): InviteEntry => {
		const { input, choice, write } = chunk.checked?.[position] as {
			input: InvitationInput;
			choice: QuoteChoice;
			write: WriteChoice;
		};
		const { reportId } = input;
		return {
			position,
			itemIndex,
			reportId,
			input,
			fingerprint: choice.quoteFingerprint,
			choice: write,
		};
	});
	return {
		...chunk,
		pending: await quoteCharged(this, chunk, invitationBatch(this, chunk), pending),
	};
}

/** One interview batch per chunk (actions/common/chargedBatch.ts). */
export async function submit(this: IExecuteFunctions, chunk: InviteChunk): Promise<InviteChunk> {
	await submitChargedBatch(this, chunk, chunk.pending ?? [], invitationBatch(this, chunk));
	return chunk;
}

/** After the batch has completed, so naming the candidates never delays a submission. */
export async function nameCandidates(
	this: IExecuteFunctions,
	chunk: InviteChunk,
): Promise<InviteChunk> {
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
