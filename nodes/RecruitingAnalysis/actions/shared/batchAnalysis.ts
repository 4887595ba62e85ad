/**
 * The analysis-batch stages shared by Analysis > Start Many and Analysis > Analyze Many: quote a chunk with one
 * batch-quote request (a quote reserves nothing, so the next chunk is quoted while this batch runs), submit it
 * as one analysis batch and wait until every admitted analysis has finished (only one analysis batch can be
 * active), then optionally read each report's summary (overlapping the next chunk's batch).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { analysisBatchQuoteSchema, analysisBatchSchema, validateBatch } from '../../validation';
import { api } from './api';
import { batchItemFor, batchTimeout, chunkIdempotencyKey, createBatch, itemKeyFor, waitForBatch } from './batch';
import { mapWithConcurrency } from './concurrency';
import { addNotice, noticesForReport } from './hints';
import { optionsParam } from './params';
import { BATCH_CHUNK_SIZE, type ChunkState } from './types';

/** An analysis batch that took this long (ms) makes Analyze Resume with Wait the faster choice for many items. */
const SLOW_BATCH_MS = 2000;

/** How many report summaries are read at the same time (Include Report Summary). */
const REPORT_READ_CONCURRENCY = 5;

export interface AnalysisEntry {
	position: number;
	itemIndex: number;
	reportId: string;
	/** Set by the user (quote chosen beforehand) or by quoteAnalyses. */
	fingerprint?: string;
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

/**
 * Quote the entries that carry no fingerprint yet with one batch-quote request. An entry that cannot be quoted
 * gets state "not_quoted" with the API's errorCode, and is left out of the batch.
 */
export async function quoteAnalyses(ctx: IExecuteFunctions, chunk: AnalysisChunk): Promise<AnalysisChunk> {
	const pending = chunk.pending ?? [];
	const toQuote = pending.filter((entry) => entry.fingerprint === undefined);
	if (toQuote.length === 0) return chunk;
	const first = pending[0].itemIndex;
	const quoteBody = { items: toQuote.map((entry) => ({ itemKey: itemKeyFor(entry.itemIndex), input: { reportId: entry.reportId } })) };
	validateBatch.call(ctx, analysisBatchQuoteSchema, quoteBody, first);
	const quotes = await api(ctx, { method: 'POST', path: '/api/v1/analysis-batch-quotes', body: quoteBody, itemIndex: first });
	for (const entry of toQuote) {
		const quoted = ((quotes.items ?? []) as IDataObject[]).find((q) => q.itemKey === itemKeyFor(entry.itemIndex));
		const quote = quoted?.quote as IDataObject | null | undefined;
		if (quote && typeof quote.fingerprint === 'string') {
			entry.fingerprint = quote.fingerprint;
			continue;
		}
		chunk.outcomes[entry.position] = {
			...outcomeOf(chunk, entry),
			reportId: entry.reportId,
			itemKey: itemKeyFor(entry.itemIndex),
			state: 'not_quoted',
			attemptId: null,
			errorCode: (quoted?.errorCode as string | null | undefined) ?? 'NOT_QUOTED',
		};
	}
	return { ...chunk, pending: pending.filter((entry) => entry.fingerprint !== undefined) };
}

/** Submit the quoted entries as one analysis batch and wait until it has completed. */
export async function submitAnalyses(ctx: IExecuteFunctions, chunk: AnalysisChunk, operationKey: string): Promise<AnalysisChunk> {
	const pending = chunk.pending ?? [];
	if (pending.length === 0) return chunk;
	const first = pending[0].itemIndex;
	const options = optionsParam(ctx, first);
	const body = {
		items: pending.map((entry) => ({
			itemKey: itemKeyFor(entry.itemIndex),
			input: { reportId: entry.reportId, quoteFingerprint: entry.fingerprint },
		})),
	};
	validateBatch.call(ctx, analysisBatchSchema, body, first);
	const key = chunkIdempotencyKey(ctx, pending.map((entry) => entry.itemIndex), operationKey, options);
	const { batchId } = await createBatch(ctx, 'analyses', body, key, first);
	const submitted = Date.now();
	const batch = await waitForBatch(ctx, 'analyses', batchId, first, batchTimeout(options));
	// Batches one after another, each as long as its slowest analysis: with long analyses and many items, say which
	// operation is faster (README: which operation for how many resumes).
	if (Date.now() - submitted >= SLOW_BATCH_MS && ctx.getInputData().length > BATCH_CHUNK_SIZE) addNotice(ctx, 'slowBatches');
	for (const entry of pending) {
		const item = batchItemFor(batch, entry.itemIndex);
		chunk.outcomes[entry.position] = {
			...outcomeOf(chunk, entry),
			batchId,
			reportId: entry.reportId,
			itemKey: itemKeyFor(entry.itemIndex),
			state: item?.state ?? 'unknown',
			attemptId: item?.attemptId ?? null,
			errorCode: item?.errorCode ?? null,
		};
	}
	return { ...chunk, started: pending.filter((entry) => (chunk.outcomes[entry.position] as IDataObject).state === 'succeeded') };
}

/**
 * With the option Include Report Summary, add each started report's summary. An analysis batch completes only
 * once every admitted analysis is terminal, so the summaries are final.
 */
export async function readReportSummaries(ctx: IExecuteFunctions, chunk: AnalysisChunk): Promise<AnalysisChunk> {
	const started = chunk.started ?? [];
	if (started.length === 0 || optionsParam(ctx, started[0].itemIndex).includeReport !== true) return chunk;
	await mapWithConcurrency(started, REPORT_READ_CONCURRENCY, async (entry) => {
		const report = await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', entry.reportId), itemIndex: entry.itemIndex });
		noticesForReport(ctx, report);
		(chunk.outcomes[entry.position] as IDataObject).report = report;
	});
	return chunk;
}

export const includeReportOption = {
	displayName: 'Include Report Summary',
	name: 'includeReport',
	type: 'boolean' as const,
	default: false,
	description:
		"Whether to add each report's summary (status, score, summary) once its batch has completed. Needs the reports:read scope.",
};
