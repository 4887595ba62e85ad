/**
 * The analysis-batch stages shared by Analysis > Start Many and Analysis > Analyze Many: quote a chunk with one
 * batch-quote request (a quote reserves nothing, so the next chunk is quoted while this batch runs), submit it
 * as one analysis batch and wait until every admitted analysis has finished (only one analysis batch can be
 * active), then optionally read each report's summary (overlapping the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { analysisBatchQuoteSchema, analysisBatchSchema, validateBatch } from '../../validation';
import { existingAttempt, startIdentity } from './pipeline';
import {
	batchItemFor,
	batchTimeout,
	createBatch,
	awaitChargedBatch,
	itemKeyFor,
	MAX_REPLAYED_BATCHES,
	quoteBatchItems,
	readBackReusedBatch,
	refusalHint,
	refusedByEarlierRun,
	reserveChunk,
	type QuotedEntry,
} from '../../engine/batch';
import { mapWithConcurrency } from '../../engine/concurrency';
import { outcomeOf as settle } from '../../transport/conditions';
import { addNotice } from '../../floor/notices';
import { chunkIdempotencyKey, type WriteChoice } from '../../writes/identity';
import { optionsParam } from '../common/params';
import { existsCondition, recoverWrite } from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { summariesForCheck } from '../../engine/reportPages';
import { BATCH_CHUNK_SIZE, type ChunkState } from '../../engine/types';

/** An analysis batch that took this long (ms) makes Analyze Resume with Wait the faster choice for many items. */
const SLOW_BATCH_MS = 2000;

/** How many reports are checked at the same time for an existing attempt (a status read each, when no list page showed them). */
const EXISTING_CHECK_CONCURRENCY = 10;

export interface AnalysisEntry extends QuotedEntry {
	reportId: string;
	/** The item's Idempotency Key and New Attempt Label (the batch's key is made of its items' writes). */
	choice: WriteChoice;
	/** The report may already have an attempt (Start Many, or an upload recovered as already admitted). */
	checkExisting?: boolean;
}

export interface AnalysisChunk extends ChunkState {
	pending?: AnalysisEntry[];
	/** Entries submitted in the analysis batch that succeeded (for the report summaries). */
	started?: AnalysisEntry[];
}

/** The outcome so far of an entry's item (an earlier stage may have written fields, such as the upload's). */
function outcomeOf(chunk: ChunkState, entry: AnalysisEntry): IDataObject {
	const outcome = chunk.outcomes[entry.position];
	return outcome instanceof Error ? {} : outcome;
}

/** A batch item whose answer means the analysis exists: read back and output as recovered (recover.ts). */
async function recoverEntry(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	entry: AnalysisEntry,
	from: string,
): Promise<void> {
	const found = await recoverWrite(
		ctx,
		entry.itemIndex,
		{ kind: 'analysis', reportId: entry.reportId },
		from,
	);
	chunk.outcomes[entry.position] = {
		...outcomeOf(chunk, entry),
		itemKey: itemKeyFor(entry.itemIndex),
		state: 'succeeded',
		errorCode: null,
		...found,
	};
}

/** An item of a batch its key named for other reports: nothing of it exists and it was not submitted again. */
function noAnalysisRecovered(reportId: string): Error {
	return new Error(
		`Report ${reportId} has no analysis, and the batch's key was already used for other items; run again to submit it in a new batch`,
	);
}

/** Batch item error codes after which the item is quoted again and submitted once more in a later batch. */
const SUBMIT_AGAIN = ['QUOTE_STALE', 'ACTIVE_ANALYSIS_LIMIT'];
/** How many later batches a chunk may need for items refused for a stale quote or capacity. */
const MAX_LATER_BATCHES = 2;

/**
 * Quote the entries that carry no fingerprint yet with one batch-quote request. Entries whose report may already
 * have an attempt are checked first (a report with an attempt is recovered, not submitted; a failed one only with
 * a New Attempt Label). An entry the quote answers with ANALYSIS_ALREADY_STARTED is recovered; one that cannot be
 * quoted otherwise gets state "not_quoted" with the API's errorCode, and is left out of the batch.
 */
export async function quoteAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	laterReportIds: () => string[] = () => [],
): Promise<AnalysisChunk> {
	let pending = chunk.pending ?? [];
	const recovered = new Set<AnalysisEntry>();
	const toCheck = pending.filter((entry) => entry.checkExisting);
	// One walk of report list pages answers for this chunk and the later ones; what it did not show is read alone.
	const ids = toCheck.map((entry) => entry.reportId);
	const known =
		toCheck.length > 0
			? await summariesForCheck(ctx, toCheck[0].itemIndex, ids, [...ids, ...laterReportIds()])
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
			...outcomeOf(chunk, entry),
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

/**
 * Submit the quoted entries as one analysis batch and wait until it has completed. The batch's key is its items'
 * writes (report and quote, in order), so a repeat gets the same batch back. Items whose answer means the analysis
 * exists are recovered; items refused for a stale quote or for capacity are quoted again and submitted once more
 * in a later batch (up to MAX_LATER_BATCHES), so they are not lost to a quote that aged while earlier chunks ran.
 * A batch answered again from an earlier run's receipt keeps what it refused then (allowance used up, capacity):
 * those items charged nothing, so they are quoted again and submitted in a new batch named after the refusing one
 * (`submittedAgainAfterBatch`), once the cause may be fixed; an item refused for a cause a re-run cannot fix
 * (INVALID_UPLOAD, a report that needs review...) is not, and its `hint` says what to do.
 */
export async function submitAnalyses(
	ctx: IExecuteFunctions,
	chunk: AnalysisChunk,
	operationKey = 'analyses.batch',
): Promise<AnalysisChunk> {
	let pending = chunk.pending ?? [];
	const started: AnalysisEntry[] = [];
	let afterBatchId: string | undefined;
	let replays = 0;
	for (let round = 0; pending.length > 0; round++) {
		// Each item's quoted price against the Spending Limit, in item order: an item that would pass it is not sent.
		const reserved = reserveChunk(ctx, chunk, pending, 'analysis');
		pending = reserved.entries;
		if (pending.length === 0) break;
		const first = pending[0].itemIndex;
		const options = optionsParam(ctx, first);
		const body = {
			items: pending.map((entry) => ({
				itemKey: itemKeyFor(entry.itemIndex),
				input: { reportId: entry.reportId, quoteFingerprint: entry.fingerprint },
			})),
		};
		validateBatch.call(ctx, analysisBatchSchema, body, first);
		const key = chunkIdempotencyKey(
			operationKey,
			pending.map((entry) => ({
				identity: startIdentity(entry.reportId, entry.fingerprint, entry.choice),
				choice: entry.choice,
			})),
			afterBatchId,
		);
		const sentAt = Date.now();
		const created = await settle(async () => await createBatch(ctx, 'analyses', body, key, first));
		if (!created.ok) {
			// The same batch was submitted by an earlier run with other quotes (IDEMPOTENCY_KEY_REUSED): its analyses
			// are read back, and the items it had refused (no analysis exists) go again in a new batch.
			const reused = await readBackReusedBatch(
				chunk,
				reserved,
				created.error,
				key,
				replays,
				async (entry) => await recoverEntry(ctx, chunk, entry, 'IDEMPOTENCY_KEY_REUSED'),
			);
			if (reused.again.length === 0) {
				for (const { entry } of reused.refused)
					chunk.outcomes[entry.position] = noAnalysisRecovered(entry.reportId);
				break;
			}
			replays++;
			afterBatchId = reused.afterBatchId;
			pending = (await quoteAnalyses(ctx, { ...chunk, pending: reused.again })).pending ?? [];
			for (const entry of pending)
				chunk.outcomes[entry.position] = {
					...outcomeOf(chunk, entry),
					submittedAgainAfterRefusal: true,
				};
			continue;
		}
		const { batchId } = created.value;
		const { batch, earlierRun, replayed } = await awaitChargedBatch(
			ctx,
			'analyses',
			created.value,
			reserved,
			first,
			batchTimeout(options),
		);
		// Batches run one after another, each as long as its slowest analysis: with long analyses and many items, say
		// which operation is faster (README: which operation for how many resumes).
		if (
			!replayed &&
			Date.now() - sentAt >= SLOW_BATCH_MS &&
			ctx.getInputData().length > BATCH_CHUNK_SIZE
		)
			addNotice(ctx, 'slowBatches');
		const again: AnalysisEntry[] = [];
		const refusedBefore: AnalysisEntry[] = [];
		for (const entry of pending) {
			const item = batchItemFor(batch, entry.itemIndex);
			const errorCode = item?.errorCode ?? null;
			reserved.settle(entry, item?.state === 'succeeded' && !earlierRun);
			if (item?.state !== 'succeeded' && existsCondition(errorCode)) {
				await recoverEntry(ctx, chunk, { ...entry }, String(errorCode));
				continue;
			}
			const used =
				item?.state === 'succeeded' && !earlierRun && creditsOf(entry.quote) !== undefined
					? { creditsUsed: creditsOf(entry.quote) }
					: {};
			chunk.outcomes[entry.position] = {
				...outcomeOf(chunk, entry),
				batchId,
				reportId: entry.reportId,
				itemKey: itemKeyFor(entry.itemIndex),
				state: item?.state ?? 'unknown',
				attemptId: item?.attemptId ?? null,
				errorCode,
				...refusalHint(errorCode),
				...used,
			};
			if (item?.state === 'succeeded') started.push(entry);
			else if (refusedByEarlierRun(replayed, item) && replays < MAX_REPLAYED_BATCHES) {
				refusedBefore.push({ ...entry, fingerprint: undefined });
			} else if (errorCode && SUBMIT_AGAIN.includes(errorCode) && round < MAX_LATER_BATCHES) {
				again.push({ ...entry, fingerprint: undefined });
			}
		}
		const next = refusedBefore.length > 0 ? refusedBefore : again;
		if (next.length === 0) break;
		if (refusedBefore.length > 0) {
			replays++;
			afterBatchId = batchId;
			ctx.logger?.info?.(
				`Recruiting Analysis: ${next.length} item(s) refused by the earlier run's batch ${batchId} are submitted again`,
			);
		} else {
			ctx.logger?.info?.(
				`Recruiting Analysis: ${again.length} item(s) of batch ${batchId} quoted again for a later batch`,
			);
		}
		const requoted = await quoteAnalyses(ctx, { ...chunk, pending: next });
		pending = requoted.pending ?? [];
		for (const entry of pending) {
			const outcome = chunk.outcomes[entry.position] as IDataObject;
			if (refusedBefore.length > 0) outcome.submittedAgainAfterBatch = batchId;
			else outcome.submittedAgain = round + 1;
		}
	}
	return { ...chunk, started };
}
