import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { api } from '../../transport/api';
import { waitOutCapacity } from '../../engine/capacity';
import { hasApiCondition, onApiCondition, outcomeOf } from '../../transport/conditions';
import { noticesForReport } from '../../floor/notices';
import { keyFor, type WriteChoice } from '../../writes/identity';
import { jobRevisionSince } from '../../writes/jobRevision';
import { chargedWrite, creditsOf } from '../../writes/spending';
import { recoverWrite, withRecovery } from '../../writes/recover';
import { simplifyReport, simplifyReportResult } from '../common/simplify';
import { startWithinCapacity, waiterFor } from '../../engine/waits';
import { quoteAnalysis, quoteForStart, type QuoteChoice } from './quotes';

export const START_STEPS = { first: undefined as string | undefined, requote: 'requote' };

/**
 * Whether the report already has an attempt that this start must not repeat: any admitted attempt, unless it
 * failed and the user asked for a deliberate new attempt (New Attempt Label). Returns the report's status then.
 * Without the reports:read scope the check is skipped (the service still refuses a second start of a running or
 * finished analysis with ANALYSIS_ALREADY_STARTED). `known`: the report's summary from a list page read just before
 * (same status and attemptId), instead of a status read.
 */
export async function existingAttempt(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	write: WriteChoice,
	known?: IDataObject,
): Promise<IDataObject | undefined> {
	let status = known;
	if (!status) {
		const read = await outcomeOf(
			async () =>
				await api(ctx, {
					method: 'GET',
					path: apiPath('/api/v1/reports/{}/status', reportId),
					itemIndex,
				}),
		);
		if (!read.ok) {
			if (hasApiCondition(read.error, 'FORBIDDEN')) return undefined;
			throw read.error;
		}
		status = read.value;
	}
	if (status.attemptId === null || status.attemptId === undefined) return undefined;
	if (status.status === 'failed' && write.attemptLabel) return undefined;
	return status;
}

/**
 * What a start is: the report and the quote it uses. A deliberate new attempt is the report and its label instead
 * (the quote changes with every attempt), so running the same labelled attempt again, even after it failed too,
 * repeats that one attempt and never makes a third.
 */
export function startIdentity(
	reportId: string,
	fingerprint: string | undefined,
	write: WriteChoice,
): unknown[] {
	return write.attemptLabel ? [reportId] : [reportId, fingerprint];
}

/**
 * POST /api/v1/analyses. The key is the report and the quote it uses (+ the New Attempt Label), so a repeat of the
 * same start carries the same key and a new quote a new one. A report that already has an attempt is recovered
 * (read back, `recovered: true`) instead of started again; a failed report is started again only with a New
 * Attempt Label. With automatic quoting: quote, start; on QUOTE_STALE quote once more and, when the new price fits
 * the Spending Limit, start under the new quote's key. ACTIVE_ANALYSIS_LIMIT is waited out (capacity.ts).
 */
export async function startAnalysis(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	choice: QuoteChoice,
	write: WriteChoice,
	steps: { first?: string; requote: string } = START_STEPS,
	checkExisting = true,
): Promise<IDataObject> {
	const target = { kind: 'analysis' as const, reportId };
	if (checkExisting) {
		const existing = await existingAttempt(ctx, itemIndex, reportId, write);
		if (existing) return await recoverWrite(ctx, itemIndex, target, 'ANALYSIS_ALREADY_STARTED');
	}
	const start = async (fingerprint: string, step?: string) =>
		await withRecovery(
			ctx,
			itemIndex,
			target,
			async () =>
				await waitOutCapacity(
					ctx,
					itemIndex,
					async () =>
						// With shared waiting, a start waits here while this run's own analyses fill the capacity (waiter.ts).
						await startWithinCapacity(
							ctx,
							async () =>
								await api(ctx, {
									method: 'POST',
									path: '/api/v1/analyses',
									body: { reportId, quoteFingerprint: fingerprint },
									idempotencyKey: keyFor(
										write,
										'analysis.start',
										startIdentity(reportId, fingerprint, write),
										step,
									),
									itemIndex,
								}),
						),
				),
		);

	if (!choice.quoteAutomatically) {
		// A fingerprint chosen beforehand carries no price: with a Spending Limit this is refused (spending.ts).
		return await chargedWrite(
			ctx,
			itemIndex,
			undefined,
			'analysis',
			async () => await start(choice.quoteFingerprint as string, steps.first),
		);
	}
	const quoted = await outcomeOf(async () => await quoteForStart(ctx, itemIndex, reportId));
	if (!quoted.ok) {
		if (!hasApiCondition(quoted.error, 'ANALYSIS_ALREADY_STARTED')) throw quoted.error;
		return await recoverWrite(ctx, itemIndex, target, 'ANALYSIS_ALREADY_STARTED', quoted.error);
	}
	let quote = quoted.value;
	const started = await chargedWrite(
		ctx,
		itemIndex,
		quote,
		'analysis',
		async (reprice) =>
			await onApiCondition(
				'QUOTE_STALE',
				async () => await start(String(quote.fingerprint), steps.first),
				async () => {
					quote = await quoteAnalysis(ctx, itemIndex, reportId);
					// The new price must fit the Spending Limit before the start is sent again.
					reprice(quote);
					return await start(String(quote.fingerprint), steps.requote);
				},
			),
	);
	if (started.recovered === true) return started;
	return {
		...started,
		quote: {
			creditUnits: quote.creditUnits,
			creditScale: quote.creditScale,
			reportSystemVersion: quote.reportSystemVersion,
		},
		creditsQuoted: creditsOf(quote) ?? null,
	};
}

export interface WaitSettings {
	waitForCompletion: boolean;
	waitTimeout: number;
	/** What to output once finished: the simplified item (Simplify), or the API's summary, result or result view. */
	waitOutput: 'simplified' | 'summary' | 'result' | 'simplifiedResult';
}

/** Simplify: the analysis operations output one flat item per resume for people (on by default). */
export function readSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter('simplify', itemIndex, false) === true;
}

export function readWaitSettings(options: IDataObject, simplify = false): WaitSettings {
	return {
		waitForCompletion: options.waitForCompletion === true,
		waitTimeout:
			typeof options.waitTimeout === 'number' && options.waitTimeout > 0
				? options.waitTimeout
				: 300,
		waitOutput: simplify
			? 'simplified'
			: ((options.waitOutput as WaitSettings['waitOutput']) ?? 'summary'),
	};
}

/**
 * The report's summary (candidate, status) and result (score scale, recommendation, limitations), read at the same
 * time, made into the simplified item. The result exists only for a completed report, so it is read only then (or
 * when the status is not known yet). A summary already in hand, or on its way (from a list page that shows the
 * report final), is not read again.
 */
export async function readSimplifiedReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	fileName: unknown,
	knownStatus?: string,
	knownSummary?: IDataObject | Promise<IDataObject | undefined>,
): Promise<IDataObject> {
	const readSummary = async () =>
		await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', reportId), itemIndex });
	const [summary, result] = await Promise.all([
		// A summary being read with others (a list page) is awaited; a report it did not show is read alone.
		Promise.resolve(knownSummary).then(async (known) => known ?? (await readSummary())),
		knownStatus === undefined || knownStatus === 'completed'
			? api(ctx, {
					method: 'GET',
					path: apiPath('/api/v1/reports/{}/result', reportId),
					qs: { schemaVersion: '1' },
					itemIndex,
				})
			: Promise.resolve(null),
	]);
	const simplified = {
		...simplifyReport({ reportId, fileName, summary, result }),
		...(await jobRevisionSince(ctx, itemIndex, summary?.createdAt)),
	};
	noticesForReport(ctx, simplified, { limitations: true });
	return simplified;
}

/**
 * Waits (shared with the run's other items, see waiter.ts) until a terminal status or the timeout, then reads
 * what the user asked for. On timeout the last status is returned with timedOut: true (elapsed time proves nothing).
 */
export async function waitForReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	settings: WaitSettings,
	justStarted = true,
	fileName?: unknown,
): Promise<IDataObject> {
	const waiter = waiterFor(ctx);
	const {
		status,
		summary: listed,
		timedOut,
	} = await waiter.wait(reportId, itemIndex, settings.waitTimeout, justStarted);
	if (timedOut) {
		if (settings.waitOutput === 'simplified')
			return { ...simplifyReport({ reportId, fileName, status }), timedOut: true };
		return { reportId, ...status, timedOut: true };
	}
	if (settings.waitOutput === 'simplified') {
		const simplified = await waiter.read(
			async () =>
				await readSimplifiedReport(
					ctx,
					itemIndex,
					reportId,
					fileName,
					String(status.status),
					listed ?? undefined,
				),
		);
		return { ...simplified, timedOut: false };
	}
	noticesForReport(ctx, status);
	if (settings.waitOutput === 'summary') {
		// A list page that showed the report in its final state already carried its summary.
		const summary =
			listed ??
			(await waiter.read(
				async () =>
					await api(ctx, {
						method: 'GET',
						path: apiPath('/api/v1/reports/{}', reportId),
						itemIndex,
					}),
			));
		noticesForReport(ctx, summary);
		// `reportId` as in every other output of the analysis operations (the summary names it `id`).
		return { reportId, ...summary, timedOut: false };
	}
	const result = await waiter.read(
		async () =>
			await api(ctx, {
				method: 'GET',
				path: apiPath('/api/v1/reports/{}/result', reportId),
				qs: { schemaVersion: '1' },
				itemIndex,
			}),
	);
	noticesForReport(ctx, result, { limitations: true });
	const output = settings.waitOutput === 'simplifiedResult' ? simplifyReportResult(result) : result;
	return { ...output, timedOut: false };
}
