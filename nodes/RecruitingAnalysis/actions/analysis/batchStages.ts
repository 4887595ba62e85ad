import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { analysisBatchQuoteSchema, analysisBatchSchema } from '../../validation';
import { existingAttempt, startIdentity } from './startAnalysis';
import { itemKeyFor, quoteBatchItems, type QuotedEntry } from '../../engine/batch';
import { BATCH_CHUNK_SIZE, mapWithConcurrency } from '../../engine/capacity';
import type { WriteChoice } from '../../writes/identity';
import { existsCondition, recoverWrite } from '../../writes/recover';
import type { ChunkState } from '../../engine/run';
import { submitChargedBatch } from '../common/chargedBatch';

/** An analysis batch that took this long (ms) makes Analyze Resume with Wait the faster choice for many items. */
const SLOW_BATCH_MS = 2000;

const EXISTING_CHECK_CONCURRENCY = 10;

export interface AnalysisEntry extends QuotedEntry {
	reportId: string;
	choice: WriteChoice;
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

async function recoverEntry(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	entry: AnalysisEntry,
	from: string,
): Promise<void> {
	const found = await recoverWrite(
		ctx,
		chunk.run,
		entry.itemIndex,
		{ kind: 'analysis', reportId: entry.reportId },
		from,
	);
	chunk.outcomes[entry.position] = {
		...outcomeSoFar(chunk, entry),
		itemKey: itemKeyFor(entry.itemIndex),
		state: 'succeeded',
		errorCode: null,
		...found,
	};
}

function noAnalysisRecovered(reportId: string): Error {
	return new Error(
		`Report ${reportId} has no analysis, and the batch's key was already used for other items; run again to submit it in a new batch`,
	);
}

/** A report that already has an attempt is recovered before it is quoted, so it is never charged twice. */
export async function quoteAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	laterReportIds: () => string[] = () => [],
): Promise<AnalysisChunk> {
	let pending = chunk.pending ?? [];
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
			await recoverEntry(ctx, chunk, entry, 'ANALYSIS_ALREADY_STARTED');
			recovered.add(entry);
		}
	});
	pending = pending.filter((entry) => !recovered.has(entry));
	const notQuoted = await quoteBatchItems(
		ctx,
		'/api/v1/analysis-batch-quotes',
		analysisBatchQuoteSchema,
		pending,
		(entry) => ({ reportId: entry.reportId }),
	);
	for (const { entry, errorCode } of notQuoted) {
		if (existsCondition(errorCode)) {
			await recoverEntry(ctx, chunk, entry, errorCode);
			recovered.add(entry);
			continue;
		}
		chunk.outcomes[entry.position] = {
			...outcomeSoFar(chunk, entry),
			reportId: entry.reportId,
			itemKey: itemKeyFor(entry.itemIndex),
			state: 'not_quoted',
			attemptId: null,
			errorCode,
		};
	}
	return {
		...chunk,
		pending: pending.filter((entry) => entry.fingerprint !== undefined && !recovered.has(entry)),
	};
}

/** One analysis batch per chunk (actions/common/chargedBatch.ts); a stale quote or capacity refusal goes again. */
export async function submitAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	operationKey = 'analyses.batch',
): Promise<AnalysisChunk> {
	const recover = async (entry: AnalysisEntry, from: string) =>
		await recoverEntry(ctx, chunk, entry, from);
	const started = await submitChargedBatch(ctx, chunk, chunk.pending ?? [], {
		kind: 'analyses',
		what: 'analysis',
		operationKey,
		schema: analysisBatchSchema,
		input: (entry) => ({ reportId: entry.reportId }),
		identity: (entry) => startIdentity(entry.reportId, entry.fingerprint, entry.choice),
		keyNamesHeldBack: false,
		submitAgain: ['QUOTE_STALE', 'ACTIVE_ANALYSIS_LIMIT'],
		requote: async (entries) =>
			(await quoteAnalyses(ctx, { ...chunk, pending: entries })).pending ?? [],
		recover,
		recoverItem: recover,
		notRecovered: (entry) => noAnalysisRecovered(entry.reportId),
		record: async (entry, item, fields) => {
			const { batchId, itemKey, state, errorCode, ...rest } = fields;
			return {
				...outcomeSoFar(chunk, entry),
				batchId,
				reportId: entry.reportId,
				itemKey,
				state,
				attemptId: item?.attemptId ?? null,
				errorCode,
				...rest,
			};
		},
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
	});
	return { ...chunk, started };
}
