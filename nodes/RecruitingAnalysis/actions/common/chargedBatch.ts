import { updateDisplayOptions, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod';

import {
	awaitChargedBatch,
	batchItemFor,
	batchTimeout,
	createBatch,
	getBatch,
	itemKeyFor,
	MAX_REPLAYED_BATCHES,
	quoteBatchItems,
	readChunk,
	readBackReusedBatch,
	refusalHint,
	refusedByEarlierRun,
	reserveChunk,
	type BatchItem,
	type BatchKind,
	type QuotedEntry,
} from '../../engine/batch';
import { api, outcomeOf } from '../../transport';
import type { ChunkState, PipelineStage } from '../../engine/run';
import { validateBatch } from '../../validation';
import { batchIdempotencyKey, type WriteChoice } from '../../writes/identity';
import { existsCondition, recoverWrite, type ExistingWrite } from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { idParam } from './checks';
import { batchIdField } from './descriptions';
import { optionsParam } from './params';

type Schema = ZodType<unknown, ZodTypeDef, unknown>;

export interface ChargedEntry extends QuotedEntry {
	reportId: string;
	choice: WriteChoice;
}

export interface Resubmission {
	afterBatchId?: string;
	afterRefusal: boolean;
}

/** What differs between an analysis batch and an invitation batch; quoting, sending and recovering are shared. */
export interface ChargedBatch<E extends ChargedEntry> {
	kind: 'analyses' | 'interviews';
	what: string;
	quotePath: string;
	quoteSchema: Schema;
	schema: Schema;
	input: (entry: E) => IDataObject;
	identity: (entry: E) => unknown[];
	existing: (entry: E) => ExistingWrite;
	/** An item's outcome from what the quote, the batch or a recovery says of it. */
	outcome: (entry: E, facts: IDataObject, item?: BatchItem, again?: Resubmission) => IDataObject;
	/** The key names the entries the Spending Limit holds back too, so a re-run under another limit reads them back. */
	keyNamesHeldBack: boolean;
	submitAgain: readonly string[];
	requote: (entries: E[]) => Promise<E[]>;
	/** Without it, a failed recovery of a batch item fails the chunk. */
	recoverItem?: (entry: E, from: string) => Promise<void>;
	notRecovered: (entry: E, error: unknown) => Error;
	/** A refusal a read can explain further (an invitation made before this batch). */
	explainOutcome?: (entry: E, outcome: IDataObject) => Promise<IDataObject>;
	requoted?: (entries: E[], why: Resubmission & { round: number }) => void;
	batchDone?: (replayed: boolean, sentAt: number) => void;
}

/** The write exists already (a lost answer, an earlier run): its outcome is read back, never charged again. */
export async function recoverCharged<E extends ChargedEntry>(
	ctx: IExecuteFunctions,
	chunk: ChunkState,
	batch: ChargedBatch<E>,
	entry: E,
	from: string,
): Promise<void> {
	const found = await recoverWrite(ctx, chunk.run, entry.itemIndex, batch.existing(entry), from);
	chunk.outcomes[entry.position] = {
		...batch.outcome(entry, { state: 'succeeded', errorCode: null }),
		...found,
	};
}

/** Entries that carry a fingerprint are sent as they are; the others are quoted in one batch quote. */
export async function quoteCharged<E extends ChargedEntry>(
	ctx: IExecuteFunctions,
	chunk: ChunkState,
	batch: ChargedBatch<E>,
	entries: E[],
): Promise<E[]> {
	const notQuoted = await quoteBatchItems(
		ctx,
		batch.quotePath,
		batch.quoteSchema,
		entries,
		batch.input,
	);
	const recovered = new Set<E>();
	for (const { entry, errorCode } of notQuoted) {
		if (existsCondition(errorCode)) {
			await recoverCharged(ctx, chunk, batch, entry, errorCode);
			recovered.add(entry);
		} else
			chunk.outcomes[entry.position] = batch.outcome(entry, { state: 'not_quoted', errorCode });
	}
	return entries.filter((entry) => entry.fingerprint !== undefined && !recovered.has(entry));
}

const MAX_LATER_BATCHES = 2;

/** A refused item charged nothing, so one a re-run can fix goes again in a batch named after the refusing one. */
export async function submitChargedBatch<E extends ChargedEntry>(
	ctx: IExecuteFunctions,
	chunk: ChunkState,
	entries: E[],
	batch: ChargedBatch<E>,
): Promise<E[]> {
	let pending = entries;
	const started: E[] = [];
	const again: Resubmission = { afterRefusal: false };
	let replays = 0;
	const recover = async (entry: E, from: string) =>
		await recoverCharged(ctx, chunk, batch, entry, from);
	for (let round = 0; pending.length > 0; round++) {
		const asked = pending;
		const reserved = reserveChunk(ctx, chunk, pending, batch.what);
		pending = reserved.entries;
		// Held back by the limit now: if this batch proves an earlier run's (nothing charged), they are tried again.
		const heldBack = batch.keyNamesHeldBack
			? asked.filter((entry) => !pending.includes(entry))
			: [];
		if (pending.length === 0) break;
		const first = pending[0].itemIndex;
		const body = {
			items: pending.map((entry) => ({
				itemKey: itemKeyFor(entry.itemIndex),
				input: { ...batch.input(entry), quoteFingerprint: entry.fingerprint },
			})),
		};
		validateBatch.call(ctx, batch.schema, body, first);
		const key = batchIdempotencyKey(
			`${batch.kind}.batch`,
			(batch.keyNamesHeldBack ? asked : pending).map((entry) => ({
				identity: batch.identity(entry),
				choice: entry.choice,
			})),
			again.afterBatchId,
		);
		const sentAt = Date.now();
		const created = await outcomeOf(
			async () => await createBatch(ctx, batch.kind, body, key, first),
		);
		if (!created.ok) {
			// IDEMPOTENCY_KEY_REUSED: an earlier run sent this batch with other quotes; what exists is read back.
			const reused = await readBackReusedBatch(
				chunk,
				reserved,
				created.error,
				key,
				replays,
				async (entry) => await recover(entry, 'IDEMPOTENCY_KEY_REUSED'),
			);
			if (reused.again.length === 0)
				for (const { entry, error } of reused.refused)
					chunk.outcomes[entry.position] = batch.notRecovered(entry, error);
			const retry = [...reused.again, ...(replays < MAX_REPLAYED_BATCHES ? heldBack : [])];
			if (retry.length === 0) break;
			replays++;
			again.afterBatchId = reused.afterBatchId;
			again.afterRefusal = reused.again.length > 0;
			pending = await batch.requote(retry);
			batch.requoted?.(pending, { ...again, round });
			continue;
		}
		const { batchId } = created.value;
		const {
			batch: answered,
			earlierRun,
			replayed,
		} = await awaitChargedBatch(
			ctx,
			chunk.run,
			batch.kind,
			created.value,
			reserved,
			first,
			batchTimeout(optionsParam(ctx, first)),
		);
		batch.batchDone?.(replayed, sentAt);
		const later: E[] = [];
		const refusedBefore: E[] = [];
		for (const entry of pending) {
			const item = batchItemFor(answered, entry.itemIndex);
			const errorCode = item?.errorCode ?? null;
			const charged = item?.state === 'succeeded' && !earlierRun;
			reserved.settle(entry, charged);
			if (item?.state !== 'succeeded' && existsCondition(errorCode)) {
				await (batch.recoverItem ?? recover)(entry, String(errorCode));
				continue;
			}
			const fields: IDataObject = {
				batchId,
				state: item?.state ?? 'unknown',
				errorCode,
				...refusalHint(errorCode),
				...(charged && creditsOf(entry.quote) !== undefined
					? { creditsUsed: creditsOf(entry.quote) }
					: {}),
			};
			const outcome = batch.outcome(entry, fields, item, again);
			chunk.outcomes[entry.position] = batch.explainOutcome
				? await batch.explainOutcome(entry, outcome)
				: outcome;
			if (item?.state === 'succeeded') started.push(entry);
			else if (refusedByEarlierRun(replayed, item) && replays < MAX_REPLAYED_BATCHES)
				refusedBefore.push({ ...entry, fingerprint: undefined });
			else if (errorCode && batch.submitAgain.includes(errorCode) && round < MAX_LATER_BATCHES)
				later.push({ ...entry, fingerprint: undefined });
		}
		if (earlierRun && replays < MAX_REPLAYED_BATCHES)
			refusedBefore.push(...heldBack.map((entry) => ({ ...entry, fingerprint: undefined })));
		const next = refusedBefore.length > 0 ? refusedBefore : later;
		if (next.length === 0) break;
		if (refusedBefore.length > 0) {
			replays++;
			again.afterBatchId = batchId;
		}
		ctx.logger?.info?.(
			refusedBefore.length > 0
				? `Recruiting Analysis: ${next.length} item(s) refused by the earlier run's batch ${batchId} are submitted again`
				: `Recruiting Analysis: ${next.length} item(s) of batch ${batchId} quoted again for a later batch`,
		);
		pending = await batch.requote(next);
		batch.requoted?.(pending, {
			afterBatchId: refusedBefore.length > 0 ? batchId : undefined,
			afterRefusal: false,
			round,
		});
	}
	return started;
}

export function quoteEveryItem(
	path: string,
	schema: ZodType<unknown, ZodTypeDef, unknown>,
	read: (ctx: IExecuteFunctions, itemIndex: number) => IDataObject,
	shown: (input: IDataObject) => IDataObject,
): PipelineStage {
	return async function (this: IExecuteFunctions, chunk: ChunkState): Promise<ChunkState> {
		const valid = await readChunk(chunk, (itemIndex) => ({ input: read(this, itemIndex) }));
		if (valid.length === 0) return chunk;
		const body = {
			items: valid.map(({ itemIndex, input }) => ({ itemKey: itemKeyFor(itemIndex), input })),
		};
		validateBatch.call(this, schema, body, valid[0].itemIndex);
		const response = await api(this, { method: 'POST', path, body, itemIndex: valid[0].itemIndex });
		chunk.run.addNotice('quoteNotBinding');
		const quoted = (response.items ?? []) as IDataObject[];
		for (const { position, itemIndex, input } of valid) {
			const entry = quoted.find((q) => q.itemKey === itemKeyFor(itemIndex));
			chunk.outcomes[position] = {
				...shown(input),
				itemKey: itemKeyFor(itemIndex),
				quote: (entry?.quote ?? null) as IDataObject | null,
				creditsQuoted: creditsOf(entry?.quote as IDataObject | undefined) ?? null,
				errorCode: entry ? ((entry.errorCode ?? null) as string | null) : 'MISSING_FROM_RESPONSE',
				batchTotal: (response.total ?? null) as IDataObject | null,
			};
		}
		return chunk;
	};
}

/** Get Batch of Analysis and Interview: the batch as the API shows it, its items' states and codes. */
export function getBatchOperation(resource: string, kind: BatchKind) {
	return {
		description: updateDisplayOptions({ show: { resource: [resource], operation: ['getBatch'] } }, [
			batchIdField(),
		]),
		async execute(this: IExecuteFunctions, itemIndex: number) {
			const batchId = idParam(this, 'batchId', itemIndex, 'Batch ID');
			return await getBatch(this, kind, batchId, itemIndex);
		},
	};
}
