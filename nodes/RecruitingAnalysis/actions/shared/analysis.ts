import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, idempotencyKeyFor } from '../../transport';
import { validateFingerprint } from '../../validation';
import { api, poll } from './api';
import { onApiCondition } from './errors';
import { noticesForReport } from './hints';
import { simplifyReport, simplifyReportResult } from './simplify';

export const TERMINAL_REPORT_STATES = ['completed', 'requires_action', 'failed'];

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
		await api(ctx, {
			method: 'POST',
			path: '/api/v1/analyses',
			body: { reportId, quoteFingerprint: fingerprint },
			idempotencyKey: idempotencyKeyFor.call(ctx, itemIndex, operationKey, userKey, attemptName(suffix)),
			itemIndex,
		});

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
	/** What to output once finished: the simplified item (Simplify), or the API's summary, result or result view. */
	waitOutput: 'simplified' | 'summary' | 'result' | 'simplifiedResult';
}

/**
 * Simplify (node version 1.1 on): the analysis operations output one flat item per resume for people. Version 1
 * has no such parameter, so a workflow saved with it keeps its output (n8n stores only non-default values, so a
 * new default under the old version would change what saved workflows receive).
 */
export function readSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter('simplify', itemIndex, false) === true;
}

export function readWaitSettings(options: IDataObject, simplify = false): WaitSettings {
	return {
		waitForCompletion: options.waitForCompletion === true,
		waitTimeout: typeof options.waitTimeout === 'number' && options.waitTimeout > 0 ? options.waitTimeout : 300,
		waitOutput: simplify ? 'simplified' : ((options.waitOutput as WaitSettings['waitOutput']) ?? 'summary'),
	};
}

/**
 * The report's summary (candidate, status) and result (score scale, recommendation, limitations), read at the same
 * time, made into the simplified item. The result exists only for a completed report, so it is read only then (or
 * when the status is not known yet).
 */
export async function readSimplifiedReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	fileName: unknown,
	knownStatus?: string,
): Promise<IDataObject> {
	const [summary, result] = await Promise.all([
		api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', reportId), itemIndex }),
		knownStatus === undefined || knownStatus === 'completed'
			? api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}/result', reportId), qs: { schemaVersion: '1' }, itemIndex })
			: Promise.resolve(null),
	]);
	const simplified = simplifyReport({ reportId, fileName, summary, result });
	noticesForReport(ctx, simplified, { limitations: true });
	return simplified;
}

/**
 * Polls GET /reports/{id}/status with backoff until a terminal status or the timeout, then reads what the
 * user asked for. On timeout the last status is returned with timedOut: true (elapsed time proves nothing).
 */
export async function waitForReport(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	settings: WaitSettings,
	justStarted = true,
	fileName?: unknown,
): Promise<IDataObject> {
	const { value: status, timedOut } = await poll(ctx, {
		fetch: async (): Promise<IDataObject> =>
			await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}/status', reportId), itemIndex }),
		done: (value: IDataObject) => TERMINAL_REPORT_STATES.includes(String(value.status)),
		timeoutSeconds: settings.waitTimeout,
		initialDelayMs: 500,
		maxDelayMs: 10_000,
		// An analysis just submitted cannot have finished: the first read waits one interval.
		firstReadDelayMs: justStarted ? 500 : 0,
	});
	if (timedOut) {
		if (settings.waitOutput === 'simplified') return { ...simplifyReport({ reportId, fileName, status }), timedOut: true };
		return { reportId, ...status, timedOut: true };
	}
	if (settings.waitOutput === 'simplified') {
		return { ...(await readSimplifiedReport(ctx, itemIndex, reportId, fileName, String(status.status))), timedOut: false };
	}
	noticesForReport(ctx, status);
	if (settings.waitOutput === 'summary') {
		const summary = await api(ctx, { method: 'GET', path: apiPath('/api/v1/reports/{}', reportId), itemIndex });
		noticesForReport(ctx, summary);
		// `reportId` as in every other output of the analysis operations (the summary names it `id`).
		return { reportId, ...summary, timedOut: false };
	}
	const result = await api(ctx, {
		method: 'GET',
		path: apiPath('/api/v1/reports/{}/result', reportId),
		qs: { schemaVersion: '1' },
		itemIndex,
	});
	noticesForReport(ctx, result, { limitations: true });
	const output = settings.waitOutput === 'simplifiedResult' ? simplifyReportResult(result) : result;
	return { ...output, timedOut: false };
}
