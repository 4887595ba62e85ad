import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { analysisBatchQuoteSchema, analysisBatchSchema } from '../../validation';
import { existingAttempt, startIdentity } from './startAnalysis';
import { itemKeyFor } from '../../engine/batch';
import { BATCH_CHUNK_SIZE, mapWithConcurrency } from '../../engine/capacity';
import type { ChunkState } from '../../engine/run';
import {
	quoteCharged,
	recoverCharged,
	submitChargedBatch,
	type ChargedBatch,
	type ChargedEntry,
} from '../common/chargedBatch';

/** An analysis batch that took this long (ms) makes Analyze Resume with Wait the faster choice for many items. */
const SLOW_BATCH_MS = 2000;

const EXISTING_CHECK_CONCURRENCY = 10;

export interface AnalysisEntry extends ChargedEntry {
	/** Start Many, or an upload recovered as already admitted: the report may have an attempt already. */
	checkExisting?: boolean;
}

export interface AnalysisChunk extends ChunkState {
	pending?: AnalysisEntry[];
	started?: AnalysisEntry[];
}

/** An earlier stage (the upload) may have written fields the batch's outcome keeps. */
function outcomeSoFar(chunk: ChunkState, entry: AnalysisEntry): IDataObject {
	const outcome = chunk.outcomes[entry.position];
	return outcome instanceof Error ? {} : outcome;
}

function analysisBatch(ctx: IExecuteFunctions, chunk: AnalysisChunk): ChargedBatch<AnalysisEntry> {
	return {
		kind: 'analyses',
		what: 'analysis',
		quotePath: '/api/v1/analysis-batch-quotes',
		quoteSchema: analysisBatchQuoteSchema,
		schema: analysisBatchSchema,
		input: (entry) => ({ reportId: entry.reportId }),
		identity: (entry) => startIdentity(entry.reportId, entry.fingerprint, entry.choice),
		existing: (entry) => ({ kind: 'analysis', reportId: entry.reportId }),
		outcome: (entry, { batchId, state, errorCode, ...rest }, item) => ({
			...outcomeSoFar(chunk, entry),
			...(batchId === undefined ? {} : { batchId }),
			reportId: entry.reportId,
			itemKey: itemKeyFor(entry.itemIndex),
			state,
			attemptId: item?.attemptId ?? null,
			errorCode,
			...rest,
		}),
		keyNamesHeldBack: false,
		submitAgain: ['QUOTE_STALE', 'ACTIVE_ANALYSIS_LIMIT'],
		requote: async (entries) =>
			(await quoteAnalyses(ctx, { ...chunk, pending: entries })).pending ?? [],
		notRecovered: (entry) =>
			new Error(
				`Report ${entry.reportId} has no analysis, and the batch's key was already used for other items; run again to submit it in a new batch`,
			),
		requoted: (entries, why) => {
			for (const entry of entries) {
				const outcome = outcomeSoFar(chunk, entry);
				if (why.afterRefusal)
					chunk.outcomes[entry.position] = { ...outcome, submittedAgainAfterRefusal: true };
				else if (why.afterBatchId) outcome.submittedAgainAfterBatch = why.afterBatchId;
				else outcome.submittedAgain = why.round + 1;
			}
		},
		// Batches run one after another, each as long as its slowest analysis: for many items, say which is faster.
		batchDone: (replayed, sentAt) => {
			if (
				!replayed &&
				Date.now() - sentAt >= SLOW_BATCH_MS &&
				ctx.getInputData().length > BATCH_CHUNK_SIZE
			)
				chunk.run.addNotice('slowBatches');
		},
	};
}

/** A report that already has an attempt is recovered before it is quoted, so it is never charged twice. */
export async function quoteAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	laterReportIds: () => string[] = () => [],
): Promise<AnalysisChunk> {
	const batch = analysisBatch(ctx, chunk);
	const pending = chunk.pending ?? [];
	const recovered = new Set<AnalysisEntry>();
	const toCheck = pending.filter((entry) => entry.checkExisting);
	// One walk of list pages answers for this chunk and the later ones, instead of a status read per report.
	const ids = toCheck.map((entry) => entry.reportId);
	const known =
		toCheck.length > 0
			? await chunk.run.reportPages.forCheck(toCheck[0].itemIndex, ids, [
					...ids,
					...laterReportIds(),
				])
			: new Map();
	await mapWithConcurrency(toCheck, EXISTING_CHECK_CONCURRENCY, async (entry) => {
		if (
			await existingAttempt(
				ctx,
				entry.itemIndex,
				entry.reportId,
				entry.choice,
				known.get(entry.reportId),
			)
		) {
			await recoverCharged(ctx, chunk, batch, entry, 'ANALYSIS_ALREADY_STARTED');
			recovered.add(entry);
		}
	});
	const unstarted = pending.filter((entry) => !recovered.has(entry));
	return { ...chunk, pending: await quoteCharged(ctx, chunk, batch, unstarted) };
}

/** One analysis batch per chunk (actions/common/chargedBatch.ts); a stale quote or capacity refusal goes again. */
export async function submitAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
): Promise<AnalysisChunk> {
	const batch = analysisBatch(ctx, chunk);
	return { ...chunk, started: await submitChargedBatch(ctx, chunk, chunk.pending ?? [], batch) };
}
