import { updateDisplayOptions, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { ZodTypeAny } from 'zod';

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
import { BATCH_CHUNK_SIZE, mapWithConcurrency } from '../../engine/capacity';
import { api, outcomeOf } from '../../transport';
import type { ChunkState } from '../../engine/run';
import {
	analysisBatchQuoteSchema,
	analysisBatchSchema,
	interviewBatchQuoteSchema,
	interviewBatchSchema,
	validateBatch,
} from '../../validation';
import { batchIdempotencyKey, invitationIdentity, type WriteChoice } from '../../writes/identity';
import {
	existingInvitation,
	existsCondition,
	recoverWrite,
	type ExistingWrite,
} from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { existingAttempt, startIdentity } from '../analysis/startAnalysis';
import type { InvitationInput } from '../interview/invitation';
import { idParam } from './checks';
import { optionsParam } from './params';

export interface ChargedEntry extends QuotedEntry {
	reportId: string;
	choice: WriteChoice;
	input: IDataObject;
	/** Start Many, or an upload recovered as already admitted: the report may have an attempt already. */
	checkExisting?: boolean;
	/** What the output keeps whatever the batch answers: the upload's fields and the marks of a resubmission. */
	kept?: IDataObject;
}

/** An item as `check` read it, handed to the quote stage so that nothing is read or validated twice. */
export type CheckedEntry = Omit<ChargedEntry, 'position' | 'itemIndex'>;

export type ChargedChunk = ChunkState & { pending?: ChargedEntry[]; started?: ChargedEntry[] };

export interface ChargedBatch {
	kind: 'analyses' | 'interviews';
	what: string;
	quotePath: string;
	quoteSchema: ZodTypeAny;
	schema: ZodTypeAny;
	identity: (entry: ChargedEntry) => unknown[];
	existing: (entry: ChargedEntry) => ExistingWrite;
	made: (item?: BatchItem) => IDataObject;
	/** An API difference: the key names held-back entries, as an invitation never shows its address. */
	keyNamesHeldBack: boolean;
	/** Codes a later batch of this run may overcome; the spec names QUOTE_STALE and ACTIVE_ANALYSIS_LIMIT for analyses only. */
	submitAgain: readonly string[];
	notRecovered: (entry: ChargedEntry, error: unknown) => Error;
	/** A refusal a read can explain further (an invitation made before this batch). */
	explain: (
		ctx: IExecuteFunctions,
		entry: ChargedEntry,
		outcome: IDataObject,
	) => Promise<IDataObject>;
	batchDone: (ctx: IExecuteFunctions, chunk: ChunkState, replayed: boolean, sentAt: number) => void;
}

/** An analysis batch that took this long (ms) makes Analyze Resume with Wait the faster choice for many items. */
const SLOW_BATCH_MS = 2000;

export const ANALYSIS_BATCH: ChargedBatch = {
	kind: 'analyses',
	what: 'analysis',
	quotePath: '/api/v1/analysis-batch-quotes',
	quoteSchema: analysisBatchQuoteSchema,
	schema: analysisBatchSchema,
	identity: (entry) => startIdentity(entry.reportId, entry.fingerprint, entry.choice),
	existing: (entry) => ({ kind: 'analysis', reportId: entry.reportId }),
	made: (item) => ({ attemptId: item?.attemptId ?? null }),
	keyNamesHeldBack: false,
	submitAgain: ['QUOTE_STALE', 'ACTIVE_ANALYSIS_LIMIT'],
	explain: async (_ctx, _entry, outcome) => outcome,
	notRecovered: (entry) =>
		new Error(
			`Report ${entry.reportId} has no analysis, and the batch's key was already used for other items; run again to submit it in a new batch`,
		),
	// Batches run one after another, each as long as its slowest analysis: for many items, say which is faster.
	batchDone: (ctx, chunk, replayed, sentAt) => {
		const slow = !replayed && Date.now() - sentAt >= SLOW_BATCH_MS;
		if (slow && ctx.getInputData().length > BATCH_CHUNK_SIZE) chunk.run.addNotice('slowBatches');
	},
};

/** The invitation, not its quote, is the key: a repeat after a committed batch quotes anew and reads each back. */
export const INVITATION_BATCH: ChargedBatch = {
	kind: 'interviews',
	what: 'invitation',
	quotePath: '/api/v1/interview-batch-quotes',
	quoteSchema: interviewBatchQuoteSchema,
	schema: interviewBatchSchema,
	identity: (entry) => invitationIdentity(entry.input as InvitationInput),
	existing: (entry) => ({ kind: 'invitation', reportId: entry.reportId, sendEmail: true }),
	made: (item) => ({ interviewId: item?.resourceId ?? null }),
	keyNamesHeldBack: true,
	submitAgain: [],
	notRecovered: (_entry, error) => error as Error,
	explain: async (ctx, entry, outcome) => {
		if (outcome.errorCode !== 'INTERVIEW_NOT_ELIGIBLE') return outcome;
		const existing = await existingInvitation(ctx, entry.itemIndex, { reportId: entry.reportId });
		if (!existing) return outcome;
		// The API never shows an invitation's address, so the node cannot claim that interview as this item's.
		return {
			...outcome,
			existingInterviewId: existing.id,
			hint: `Report ${entry.reportId} already has interview ${String(existing.id)} (${String(existing.lifecycle)}), made before this batch. The API never shows an invitation's address: if it was sent to this item's address, nothing more is needed; to reach another address, run Interview > Reinterview on ${String(existing.id)}.`,
		};
	},
	batchDone: (_ctx, chunk) => chunk.run.addNotice('invitationsQueued'),
};

function chunkOutcomes(ctx: IExecuteFunctions, chunk: ChunkState, batch: ChargedBatch) {
	// A refusal's fields never outlive it.
	const itemOutcome = (
		entry: ChargedEntry,
		{ batchId, state, errorCode, creditsUsed, ...hint }: IDataObject,
		item?: BatchItem,
	): IDataObject => ({
		...entry.kept,
		...(batchId === undefined ? {} : { batchId }),
		reportId: entry.reportId,
		itemKey: itemKeyFor(entry.itemIndex),
		state,
		...batch.made(item),
		errorCode,
		...hint,
		...(creditsUsed === undefined ? {} : { creditsUsed }),
	});
	// The write exists already (a lost answer, an earlier run): its outcome is read back, never charged again.
	const recover = async (entry: ChargedEntry, from: string) => {
		const found = await recoverWrite(ctx, chunk.run, entry.itemIndex, batch.existing(entry), from);
		const succeeded = itemOutcome(entry, { state: 'succeeded', errorCode: null });
		chunk.outcomes[entry.position] = { ...succeeded, ...found };
	};
	// A recovery that fails names its item; the chunk's other items keep what they made, and this one is never sent.
	const recoverItem = async (entry: ChargedEntry, from: string) => {
		const read = await outcomeOf(async () => await recover(entry, from));
		if (!read.ok) chunk.outcomes[entry.position] = read.error as Error;
	};
	return { itemOutcome, recover, recoverItem };
}

const EXISTING_CHECK_CONCURRENCY = 10;

export async function quoteCharged(
	ctx: IExecuteFunctions,
	chunk: ChunkState,
	batch: ChargedBatch,
	entries: ChargedEntry[],
	laterReportIds: () => string[] = () => [],
): Promise<ChargedEntry[]> {
	const { itemOutcome, recoverItem } = chunkOutcomes(ctx, chunk, batch);
	const recovered = new Set<ChargedEntry>();
	const toCheck = entries.filter((entry) => entry.checkExisting);
	if (toCheck.length > 0) {
		// One walk of list pages answers for this chunk and the later ones, instead of a status read per report.
		const ids = toCheck.map((entry) => entry.reportId);
		const known = await chunk.run.reportPages.forCheck(toCheck[0].itemIndex, ids, laterReportIds());
		// A report that already has an attempt is recovered before it is quoted, so it is never charged twice.
		await mapWithConcurrency(toCheck, EXISTING_CHECK_CONCURRENCY, async (entry) => {
			const { itemIndex, reportId, choice } = entry;
			if (await existingAttempt(ctx, itemIndex, reportId, choice, known.get(reportId))) {
				await recoverItem(entry, 'ANALYSIS_ALREADY_STARTED');
				recovered.add(entry);
			}
		});
	}
	const unstarted = entries.filter((entry) => !recovered.has(entry));
	const { quotePath, quoteSchema } = batch;
	const notQuoted = await quoteBatchItems(ctx, quotePath, quoteSchema, unstarted, (e) => e.input);
	for (const { entry, errorCode } of notQuoted) {
		const refused = { state: 'not_quoted', errorCode, ...refusalHint(errorCode) };
		if (existsCondition(errorCode)) await recoverItem(entry, errorCode);
		else chunk.outcomes[entry.position] = itemOutcome(entry, refused);
	}
	// An item the quote refused or recovered has no fingerprint, so it is never sent.
	return unstarted.filter((entry) => entry.fingerprint !== undefined);
}

const MAX_LATER_BATCHES = 2;

/** A refused item charged nothing, so one a re-run can fix goes again in a batch named after the refusing one. */
export async function submitCharged(
	ctx: IExecuteFunctions,
	chunk: ChargedChunk,
	batch: ChargedBatch,
): Promise<ChargedChunk> {
	const { itemOutcome, recover, recoverItem } = chunkOutcomes(ctx, chunk, batch);
	const { run } = chunk;
	const { kind } = batch;
	let pending = chunk.pending ?? [];
	const started: ChargedEntry[] = [];
	let afterBatchId: string | undefined;
	let replays = 0;
	// The mark of a resubmission stays on the item's output whatever the next batch answers, a recovery too.
	const requote = async (entries: ChargedEntry[], mark: IDataObject) => {
		const marked = entries.map((entry) => ({ ...entry, kept: { ...entry.kept, ...mark } }));
		return await quoteCharged(ctx, chunk, batch, marked);
	};
	for (let round = 0; pending.length > 0; round++) {
		const asked = pending;
		const reserved = reserveChunk(ctx, chunk, pending, batch.what);
		pending = reserved.entries;
		// Held back by the limit now: if this batch proves an earlier run's (nothing charged), they are tried again.
		const heldBack = batch.keyNamesHeldBack ? asked.filter((e) => !pending.includes(e)) : [];
		if (pending.length === 0) break;
		const first = pending[0].itemIndex;
		const items = pending.map((entry) => ({
			itemKey: itemKeyFor(entry.itemIndex),
			input: { ...entry.input, quoteFingerprint: entry.fingerprint },
		}));
		const body = { items };
		validateBatch.call(ctx, batch.schema, body, first);
		const keyed = batch.keyNamesHeldBack ? asked : pending;
		const named = keyed.map((e) => ({ identity: batch.identity(e), choice: e.choice }));
		const key = batchIdempotencyKey(`${kind}.batch`, named, afterBatchId);
		const sentAt = Date.now();
		const created = await outcomeOf(async () => await createBatch(ctx, kind, body, key, first));
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
			afterBatchId = reused.afterBatchId;
			pending = await requote(
				retry,
				reused.again.length > 0
					? { submittedAgainAfterRefusal: true }
					: { submittedAgainAfterBatch: afterBatchId },
			);
			continue;
		}
		const { batchId } = created.value;
		const timeout = batchTimeout(optionsParam(ctx, first));
		const answer = await awaitChargedBatch(ctx, run, kind, created.value, reserved, first, timeout);
		const { batch: answered, earlierRun, replayed } = answer;
		batch.batchDone(ctx, chunk, replayed, sentAt);
		const later: ChargedEntry[] = [];
		const refusedBefore: ChargedEntry[] = [];
		for (const entry of pending) {
			const item = batchItemFor(answered, entry.itemIndex);
			const errorCode = item?.errorCode ?? null;
			const charged = item?.state === 'succeeded' && !earlierRun;
			reserved.settle(entry, charged);
			if (item?.state !== 'succeeded' && existsCondition(errorCode)) {
				await recoverItem(entry, String(errorCode));
				continue;
			}
			const fields: IDataObject = {
				batchId,
				state: item?.state ?? 'unknown',
				errorCode,
				...refusalHint(errorCode),
				creditsUsed: charged ? creditsOf(entry.quote) : undefined,
			};
			const outcome = itemOutcome(entry, fields, item);
			chunk.outcomes[entry.position] = await batch.explain(ctx, entry, outcome);
			if (item?.state === 'succeeded') started.push(entry);
			else if (refusedByEarlierRun(replayed, item) && replays < MAX_REPLAYED_BATCHES)
				refusedBefore.push({ ...entry, fingerprint: undefined });
			else if (errorCode && batch.submitAgain.includes(errorCode) && round < MAX_LATER_BATCHES)
				later.push({ ...entry, fingerprint: undefined });
		}
		if (earlierRun && replays < MAX_REPLAYED_BATCHES)
			refusedBefore.push(...heldBack.map((entry) => ({ ...entry, fingerprint: undefined })));
		if (refusedBefore.length > 0) {
			replays++;
			afterBatchId = batchId;
			ctx.logger?.info?.(
				`Recruiting Analysis: ${refusedBefore.length} item(s) refused by the earlier run's batch ${batchId} are submitted again`,
			);
			pending = await requote(refusedBefore, { submittedAgainAfterBatch: batchId });
		} else if (later.length > 0) {
			ctx.logger?.info?.(
				`Recruiting Analysis: ${later.length} item(s) of batch ${batchId} quoted again for a later batch`,
			);
			pending = await requote(later, { submittedAgain: round + 1 });
		} else break;
	}
	return { ...chunk, started };
}

/** Start Many and Invite Many quote their items as `check` read them; `laterReportIds` serves the list walk. */
export function quoteCheckedStage(
	batch: ChargedBatch,
	laterReportIds?: (ctx: IExecuteFunctions, last: number) => string[],
) {
	return async function (this: IExecuteFunctions, chunk: ChargedChunk) {
		const entries = chunk.itemIndexes.map((itemIndex, position) => ({
			...(chunk.checked?.[position] as CheckedEntry),
			position,
			itemIndex,
		}));
		const last = chunk.itemIndexes[chunk.itemIndexes.length - 1];
		const later = laterReportIds && (() => laterReportIds(this, last));
		return { ...chunk, pending: await quoteCharged(this, chunk, batch, entries, later) };
	};
}

export const submitChargedStage = (batch: ChargedBatch) =>
	async function (this: IExecuteFunctions, chunk: ChargedChunk) {
		return await submitCharged(this, chunk, batch);
	};

export function quoteEveryItem(
	{ quotePath, quoteSchema }: ChargedBatch,
	read: (ctx: IExecuteFunctions, itemIndex: number) => IDataObject,
	shown: (input: IDataObject) => IDataObject,
) {
	return async function (this: IExecuteFunctions, chunk: ChunkState): Promise<ChunkState> {
		const valid = await readChunk(chunk, (itemIndex) => ({ input: read(this, itemIndex) }));
		if (valid.length === 0) return chunk;
		const items = valid.map(({ itemIndex, input }) => ({ itemKey: itemKeyFor(itemIndex), input }));
		const body = { items };
		const first = valid[0].itemIndex;
		validateBatch.call(this, quoteSchema, body, first);
		const response = await api(this, { method: 'POST', path: quotePath, body, itemIndex: first });
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

export function getBatchOperation(resource: string, kind: BatchKind) {
	return {
		description: updateDisplayOptions({ show: { resource: [resource], operation: ['getBatch'] } }, [
			{
				displayName: 'Batch ID',
				name: 'batchId',
				type: 'string',
				required: true,
				default: '',
				placeholder: 'bat_...',
				description: 'ID of the batch (starts with bat_)',
			},
		]),
		async execute(this: IExecuteFunctions, itemIndex: number) {
			return await getBatch(this, kind, idParam(this, 'batchId', itemIndex, 'Batch ID'), itemIndex);
		},
	};
}
