import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	itemKeyFor,
	quoteBatchItems,
	readChunk,
	refusalHint,
	refusesChunk,
	type QuotedEntry,
} from '../../engine/batch';
import { outcomeOf } from '../../transport';
import type { ChunkState } from '../../engine/run';
import {
	interviewBatchQuoteSchema,
	interviewBatchSchema,
	interviewInputSchema,
	validateInput,
} from '../../validation';
import { invitationIdentity, readWriteChoice, type WriteChoice } from '../../writes/identity';
import { existingInvitation, recoverWrite } from '../../writes/recover';
import { submitChargedBatch } from '../common/chargedBatch';
import { readQuoteChoice } from '../common/chargedWrite';
import { candidateNamesFor, withCandidateName } from '../common/candidateName';
import { stringParam } from '../common/params';
import type { InvitationInput } from './invitation';

/** Batches support email delivery only. */
export function readBatchInvitation(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const value = {
		reportId: stringParam(ctx, 'reportId', itemIndex),
		candidateEmail: stringParam(ctx, 'candidateEmail', itemIndex),
		sendEmail: true,
	};
	return validateInput.call(ctx, interviewInputSchema, value, itemIndex) as IDataObject;
}

export interface InviteChunk extends ChunkState {
	pending?: Pending[];
}

interface Pending extends QuotedEntry {
	input: IDataObject;
	choice: WriteChoice;
}

export async function readAndQuote(
	this: IExecuteFunctions,
	chunk: InviteChunk,
): Promise<InviteChunk> {
	const { outcomes } = chunk;
	const pending: Pending[] = await readChunk(chunk, (itemIndex) => ({
		input: readBatchInvitation(this, itemIndex),
		fingerprint: readQuoteChoice(this, itemIndex).quoteFingerprint,
		choice: readWriteChoice(this, itemIndex),
	}));
	if (pending.length === 0 || refusesChunk(this, outcomes)) return chunk;
	return { ...chunk, pending: await quoteInvitations(this, chunk, pending) };
}

async function quoteInvitations(
	ctx: IExecuteFunctions,
	chunk: InviteChunk,
	pending: Pending[],
): Promise<Pending[]> {
	const notQuoted = await quoteBatchItems(
		ctx,
		'/api/v1/interview-batch-quotes',
		interviewBatchQuoteSchema,
		pending,
		(p) => p.input,
	);
	for (const { entry: p, errorCode } of notQuoted) {
		chunk.outcomes[p.position] = {
			reportId: p.input.reportId,
			itemKey: itemKeyFor(p.itemIndex),
			state: 'not_quoted',
			interviewId: null,
			errorCode,
			...refusalHint(errorCode),
		};
	}
	return pending.filter((p) => p.fingerprint !== undefined);
}

/** One interview batch per chunk (actions/common/chargedBatch.ts). */
export async function submit(this: IExecuteFunctions, chunk: InviteChunk): Promise<InviteChunk> {
	const recover = async (p: Pending, from: string): Promise<void> => {
		const found = await recoverWrite(
			this,
			chunk.run,
			p.itemIndex,
			{ kind: 'invitation', reportId: String(p.input.reportId), sendEmail: true },
			from,
		);
		chunk.outcomes[p.position] = {
			reportId: p.input.reportId,
			itemKey: itemKeyFor(p.itemIndex),
			state: 'succeeded',
			errorCode: null,
			...found,
		};
	};
	await submitChargedBatch(this, chunk, chunk.pending ?? [], {
		kind: 'interviews',
		what: 'invitation',
		operationKey: 'interviews.batch',
		schema: interviewBatchSchema,
		input: (p) => p.input,
		// The invitation, not its quote: a repeat after a committed batch quotes anew and reads each invitation back.
		identity: (p) => invitationIdentity(p.input as InvitationInput),
		keyNamesHeldBack: true,
		submitAgain: [],
		requote: async (entries) => await quoteInvitations(this, chunk, entries),
		recover,
		recoverItem: async (p, from) => {
			const read = await outcomeOf(async () => await recover(p, from));
			if (!read.ok) chunk.outcomes[p.position] = read.error as Error;
		},
		notRecovered: (_p, error) => error as Error,
		record: async (p, item, fields, again) => {
			const { batchId, itemKey, state, errorCode, creditsUsed, ...hint } = fields;
			const outcome: IDataObject = {
				batchId,
				reportId: p.input.reportId,
				itemKey,
				state,
				interviewId: item?.resourceId ?? null,
				errorCode,
				...hint,
				...(again.afterBatchId === undefined
					? {}
					: again.afterRefusal
						? { submittedAgainAfterRefusal: true }
						: { submittedAgainAfterBatch: again.afterBatchId }),
				...(creditsUsed === undefined ? {} : { creditsUsed }),
			};
			if (errorCode !== 'INTERVIEW_NOT_ELIGIBLE') return outcome;
			const existing = await existingInvitation(this, p.itemIndex, {
				reportId: String(p.input.reportId),
			});
			if (!existing) return outcome;
			// The API never shows an invitation's address, so the node cannot claim that interview as this item's.
			return {
				...outcome,
				existingInterviewId: existing.id,
				hint: `Report ${String(p.input.reportId)} already has interview ${String(existing.id)} (${String(existing.lifecycle)}), made before this batch. The API never shows an invitation's address: if it was sent to this item's address, nothing more is needed; to reach another address, run Interview > Reinterview on ${String(existing.id)}.`,
			};
		},
		batchDone: () => chunk.run.addNotice('invitationsQueued'),
	});
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
