import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, idempotencyKeyFor } from '../../transport';
import { validateFingerprint } from '../../validation';
import { api } from './api';
import { onApiCondition } from './errors';
import { noticesForReport } from './hints';
import { simplifyReportResult } from './simplify';
import { startWithinCapacity, waiterFor } from './waiter';

export async function quoteAnalysis(ctx: IExecuteFunctions, itemIndex: number, reportId: string): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: '/api/v1/analysis-quotes',
		body: { reportId },
		itemIndex,
	});
}

/** Quote settings as read from the node: either quote right before the write, or use the given fingerprint. */
export interface QuoteChoice {
	quoteAutomatically: boolean;
	quoteFingerprint?: string;
}

export function readQuoteChoice(ctx: IExecuteFunctions, itemIndex: number): QuoteChoice {
	const quoteAutomatically = ctx.getNodeParameter('quoteAutomatically', itemIndex, true) as boolean;
	if (quoteAutomatically) return { quoteAutomatically };
	const raw = ctx.getNodeParameter('quoteFingerprint', itemIndex, '') as string;
	return { quoteAutomatically, quoteFingerprint: validateFingerprint.call(ctx, raw, itemIndex) };
}

/**
 * POST /api/v1/analyses. With automatic quoting: quote, start; on QUOTE_STALE quote once more and start under
 * a new key (spec: "QUOTE_STALE requires a new quote and a new key"). Keys are derived, never random, so a
 * retry of the same execution reuses them.
 */
export async function startAnalysis(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	choice: QuoteChoice,
	operationKey: string,
	userKey: string | undefined,
	attemptPrefix?: string,
): Promise<IDataObject> {
	// With a user key the operation name is not part of the key, so the attempt tells the writes apart.
	const attemptName = (suffix?: string) => [attemptPrefix, suffix].filter(Boolean).join('-') || undefined;
	const start = async (fingerprint: string, suffix?: string) =>
		await startWithinCapacity(ctx, itemIndex, async () =>
			await api(ctx, {
				method: 'POST',
				path: '/api/v1/analyses',
				body: { reportId, quoteFingerprint: fingerprint },
				idempotencyKey: idempotencyKeyFor.call(ctx, itemIndex, operationKey, userKey, attemptName(suffix)),
				itemIndex,
			}),
		);

	if (!choice.quoteAutomatically) {
		return await start(choice.quoteFingerprint as string);
	}
	let quote = await quoteAnalysis(ctx, itemIndex, reportId);
	const started = await onApiCondition(
		'QUOTE_STALE',
		async () => await start(String(quote.fingerprint)),
		async () => {
			quote = await quoteAnalysis(ctx, itemIndex, reportId);
			return await start(String(quote.fingerprint), 'requote');
		},
	);
	return { ...started, quote: { creditUnits: quote.creditUnits, creditScale: quote.creditScale, reportSystemVersion: quote.reportSystemVersion } };
}

export interface WaitSettings {
	waitForCompletion: boolean;
	waitTimeout: number;
	waitOutput: 'summary' | 'result' | 'simplifiedResult';
}

export function readWaitSettings(options: IDataObject): WaitSettings {
	return {
		waitForCompletion: options.waitForCompletion === true,
		waitTimeout: typeof options.waitTimeout === 'number' && options.waitTimeout > 0 ? options.waitTimeout : 300,
		waitOutput: (options.waitOutput as WaitSettings['waitOutput']) ?? 'summary',
	};
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
): Promise<IDataObject> {
	const waiter = waiterFor(ctx);
	const { status, summary: listed, timedOut } = await waiter.wait(reportId, itemIndex, settings.waitTimeout, justStarted);
	if (timedOut) {
		return { reportId, ...status, timedOut: true };
	}
	noticesForReport(ctx, status);
	if (settings.waitOutput === 'summary') {
		// A list page that showed the report in its final state already carried its summary.
		const summary = listed ?? (await waiter.read(async () => await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', reportId), itemIndex })));
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
	noticesForReport(ctx, result);
	const output = settings.waitOutput === 'simplifiedResult' ? simplifyReportResult(result) : result;
	return { ...output, timedOut: false };
}
