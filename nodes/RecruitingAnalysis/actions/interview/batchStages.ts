/**
 * Invite Many's batch stages: a chunk of up to 20 invitations is read and quoted with one batch quote, then submitted
 * as one interview batch and awaited (engine/pipeline.ts overlaps the next chunk's quote with this chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	batchItemFor,
	batchTimeout,
	createBatch,
	awaitChargedBatch,
	itemKeyFor,
	MAX_REPLAYED_BATCHES,
	quoteBatchItems,
	readBackReusedBatch,
	readChunk,
	refusalHint,
	refusedByEarlierRun,
	refusesChunk,
	reserveChunk,
	type QuotedEntry,
} from '../../engine/batch';
import type { ChunkState } from '../../engine/types';
import { outcomeOf } from '../../transport/conditions';
import {
	interviewBatchQuoteSchema,
	interviewBatchSchema,
	interviewInputSchema,
	validateBatch,
	validateInput,
} from '../../validation';
import {
	chunkIdempotencyKey,
	invitationIdentity,
	readWriteChoice,
	type WriteChoice,
} from '../../writes/identity';
import { existingInvitation, existsCondition, recoverWrite } from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { readQuoteChoice } from '../analysis/quotes';
import { addNotice } from '../../floor/notices';
import { candidateNamesFor, withCandidateName } from '../common/candidateName';
import { optionsParam, stringParam } from '../common/params';
import type { InvitationInput } from './invitation';

/** Batch invitation input of an item (batches support only sendEmail true), validated. */
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

/**
 * Stage one of inviting up to 20 candidates with one interview batch: validate, and with automatic quoting quote
 * the chunk with one batch-quote request (items that cannot be quoted are reported and left out). The engine
 * runs this for the next chunk while the previous chunk's batch is processing; a quote sends no email and
 * reserves nothing. The batch completes when every invitation was admitted or refused.
 */
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

/** Quotes the entries without a fingerprint with one batch quote; one that cannot be quoted is reported and left out. */
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

/**
 * Stage two: submit the quoted items as one batch and wait until it has completed (only one batch of a kind can
 * be active, so the next chunk's batch waits for this one; its quote was already made meanwhile). A batch answered
 * again from an earlier run's receipt keeps what it refused then: those invitations were not made (nothing
 * charged, no email), so they are quoted again and submitted in a new batch named after the refusing one
 * (`submittedAgainAfterBatch`), unless the refusal is one a re-run cannot fix.
 */
export async function submit(this: IExecuteFunctions, chunk: InviteChunk): Promise<InviteChunk> {
	const { outcomes } = chunk;
	let pending = chunk.pending ?? [];
	let afterBatchId: string | undefined;
	// Items an earlier run's batch refused, found when its key answered IDEMPOTENCY_KEY_REUSED (its id is not known).
	let resubmittedAfterRefusal = false;
	for (let replays = 0; pending.length > 0; replays++) {
		// Each invitation's quoted price against the Spending Limit, in item order: one that would pass it is not sent.
		// The batch's key names every invitation asked for, also those the Spending Limit holds back now: a re-run of
		// the same items (after a crash, under another limit) then meets this batch's key and reads back, as this item's,
		// each invitation it made (the key binds report, address and delivery), instead of being refused for them.
		const asked = pending;
		const reserved = reserveChunk(this, chunk, pending, 'invitation');
		pending = reserved.entries;
		// Held back by the limit now: if this batch proves an earlier run's (nothing charged), they are tried again.
		const heldBack = asked.filter((p) => !pending.includes(p));
		if (pending.length === 0) return chunk;
		const first = pending[0].itemIndex;
		const options = optionsParam(this, first);
		const body = {
			items: pending.map((p) => ({
				itemKey: itemKeyFor(p.itemIndex),
				input: { ...p.input, quoteFingerprint: p.fingerprint },
			})),
		};
		validateBatch.call(this, interviewBatchSchema, body, first);
		// The batch is its invitations (report, address, delivery), not their quotes: a repeat after a committed batch
		// quotes new fingerprints, and the same key with that changed body is IDEMPOTENCY_KEY_REUSED: each item's
		// invitation is then read back (writes/recover.ts) instead of failing the node.
		const key = chunkIdempotencyKey(
			'interviews.batch',
			asked.map((p) => ({
				identity: invitationIdentity(p.input as InvitationInput),
				choice: p.choice,
			})),
			afterBatchId,
		);
		/** Reads the item's invitation back; throws when it cannot (isNothingToRecover: the item was refused). */
		const recover = async (p: Pending, from: string): Promise<void> => {
			const found = await recoverWrite(
				this,
				p.itemIndex,
				{ kind: 'invitation', reportId: String(p.input.reportId), sendEmail: true },
				from,
			);
			outcomes[p.position] = {
				reportId: p.input.reportId,
				itemKey: itemKeyFor(p.itemIndex),
				state: 'succeeded',
				errorCode: null,
				...found,
			};
		};
		const created = await outcomeOf(
			async () => await createBatch(this, 'interviews', body, key, first),
		);
		if (!created.ok) {
			// The same batch was submitted by an earlier run with other quotes (IDEMPOTENCY_KEY_REUSED): its invitations
			// are read back, and the items it had refused (no invitation exists) go again in a new batch.
			const reused = await readBackReusedBatch(
				chunk,
				reserved,
				created.error,
				key,
				replays,
				async (p) => await recover(p, 'IDEMPOTENCY_KEY_REUSED'),
			);
			for (const { entry, error } of reused.refused) outcomes[entry.position] = error as Error;
			const again = [...reused.again, ...(replays < MAX_REPLAYED_BATCHES ? heldBack : [])];
			if (again.length === 0) return chunk;
			afterBatchId = reused.afterBatchId;
			resubmittedAfterRefusal = reused.again.length > 0;
			pending = await quoteInvitations(this, chunk, again);
			continue;
		}
		const { batchId } = created.value;
		const { batch, earlierRun, replayed } = await awaitChargedBatch(
			this,
			'interviews',
			created.value,
			reserved,
			first,
			batchTimeout(options),
		);
		addNotice(this, 'invitationsQueued');
		const refusedBefore: Pending[] = [];
		for (const p of pending) {
			const item = batchItemFor(batch, p.itemIndex);
			const charged = item?.state === 'succeeded' && !earlierRun;
			reserved.settle(p, charged);
			if (item?.state !== 'succeeded' && existsCondition(item?.errorCode)) {
				const read = await outcomeOf(async () => await recover(p, String(item?.errorCode)));
				if (!read.ok) outcomes[p.position] = read.error as Error;
				continue;
			}
			const errorCode = item?.errorCode ?? null;
			outcomes[p.position] = {
				batchId,
				reportId: p.input.reportId,
				itemKey: itemKeyFor(p.itemIndex),
				state: item?.state ?? 'unknown',
				interviewId: item?.resourceId ?? null,
				errorCode,
				...refusalHint(errorCode),
				...(afterBatchId === undefined
					? {}
					: resubmittedAfterRefusal
						? { submittedAgainAfterRefusal: true }
						: { submittedAgainAfterBatch: afterBatchId }),
				...(charged && creditsOf(p.quote) !== undefined ? { creditsUsed: creditsOf(p.quote) } : {}),
			};
			if (errorCode === 'INTERVIEW_NOT_ELIGIBLE') {
				// The report already has an interview: say which (its address is never shown, so it is not this item's).
				const existing = await existingInvitation(this, p.itemIndex, {
					reportId: String(p.input.reportId),
				});
				if (existing)
					Object.assign(outcomes[p.position] as IDataObject, {
						existingInterviewId: existing.id,
						// A batch of other items made it (another list, or a run before this one): the API never shows its
						// address, so the node cannot claim it as this item's, nor call this item's candidate uninvited.
						hint: `Report ${String(p.input.reportId)} already has interview ${String(existing.id)} (${String(existing.lifecycle)}), made before this batch. The API never shows an invitation's address: if it was sent to this item's address, nothing more is needed; to reach another address, run Interview > Reinterview on ${String(existing.id)}.`,
					});
			}
			if (refusedByEarlierRun(replayed, item)) refusedBefore.push({ ...p, fingerprint: undefined });
		}
		if (earlierRun) refusedBefore.push(...heldBack.map((p) => ({ ...p, fingerprint: undefined })));
		if (refusedBefore.length === 0 || replays >= MAX_REPLAYED_BATCHES) return chunk;
		this.logger?.info?.(
			`Recruiting Analysis: ${refusedBefore.length} invitation(s) refused by the earlier run's batch ${batchId} are submitted again`,
		);
		afterBatchId = batchId;
		pending = await quoteInvitations(this, chunk, refusedBefore);
	}
	return chunk;
}

/**
 * Stage three: each item's output names its candidate (actions/common/candidateName.ts): from the input item when
 * it says the name for the same report, else read (one report list page for the chunk, then any report it does not
 * show alone). Runs after the batch has completed, so it never delays a submission; errors stay as they are.
 */
export async function nameCandidates(
	this: IExecuteFunctions,
	chunk: InviteChunk,
): Promise<InviteChunk> {
	const named = chunk.outcomes
		.map((outcome, position) => ({ outcome, itemIndex: chunk.itemIndexes[position], position }))
		.filter((e): e is typeof e & { outcome: IDataObject } => !(e.outcome instanceof Error));
	const names = await candidateNamesFor(
		this,
		named.map((e) => ({ itemIndex: e.itemIndex, reportId: e.outcome.reportId })),
	);
	named.forEach((e, i) => (chunk.outcomes[e.position] = withCandidateName(e.outcome, names[i])));
	return chunk;
}
