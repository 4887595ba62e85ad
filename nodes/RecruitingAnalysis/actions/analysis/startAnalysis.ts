import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api, hasApiCondition } from '../../transport';
import {
	holdQuotesForPlaces,
	startWithinCapacity,
	waitOutCapacity,
	waiterFor,
} from '../../engine/capacity';
import { BATCH_CHUNK_SIZE } from '../../engine/types';
import { RunSlot } from '../../floor/runState';
import { keyFor, type WriteChoice } from '../../writes/identity';
import { recoverWrite } from '../../writes/recover';
import { creditsOf } from '../../writes/spending';
import { sendChargedWrite, type QuoteChoice } from '../common/chargedWrite';
import { simplifyReport, simplifyReportResult } from '../common/descriptions';
import { noticesForReport } from '../../floor/notices';
import { jobRevisionSince } from '../../writes/jobRevision';

export async function quoteAnalysis(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: '/api/v1/analysis-quotes',
		body: { reportId },
		itemIndex,
	});
}

interface QuoteWish {
	itemIndex: number;
	reportId: string;
	resolve: (quote: IDataObject) => void;
	reject: (error: unknown) => void;
}

/**
 * A run's start quotes: sent alone when none is in flight, else gathered into one batch quote as soon as it
 * answers (no timer). A batch quote's fingerprint equals a single quote's, so the start's key is unchanged.
 */
class QuoteGatherer {
	private busy = false;
	private readonly queue: QuoteWish[] = [];
	private wakeHold?: () => void;

	constructor(private readonly ctx: IExecuteFunctions) {}

	async quote(itemIndex: number, reportId: string): Promise<IDataObject> {
		return await new Promise<IDataObject>((resolve, reject) => {
			this.queue.push({ itemIndex, reportId, resolve, reject });
			this.wakeHold?.();
			if (!this.busy) void this.drain();
		});
	}

	private async drain(): Promise<void> {
		this.busy = true;
		while (this.queue.length > 0) {
			await holdQuotesForPlaces(
				this.ctx,
				() => this.queue.length,
				async () => await new Promise<void>((resolve) => (this.wakeHold = resolve)),
			);
			this.wakeHold = undefined;
			// A batch names each report once: a report named twice waits for the next request.
			const group: QuoteWish[] = [];
			for (let i = 0; i < this.queue.length && group.length < BATCH_CHUNK_SIZE;) {
				if (group.some((wish) => wish.reportId === this.queue[i].reportId)) i++;
				else group.push(...this.queue.splice(i, 1));
			}
			await this.send(group);
		}
		this.busy = false;
	}

	private alone(wish: QuoteWish): Promise<void> {
		return quoteAnalysis(this.ctx, wish.itemIndex, wish.reportId).then(wish.resolve, wish.reject);
	}

	/** A report the batch could not quote is quoted alone, so its answer and error are a single quote's. */
	private async send(group: QuoteWish[]): Promise<void> {
		if (group.length === 1) return await this.alone(group[0]);
		const keyOf = (position: number) => `quote-${position}`;
		// A failed batch quote leaves every report to its own quote below.
		const answer = await api(this.ctx, {
			method: 'POST',
			path: '/api/v1/analysis-batch-quotes',
			body: {
				items: group.map((wish, position) => ({
					itemKey: keyOf(position),
					input: { reportId: wish.reportId },
				})),
			},
			itemIndex: group[0].itemIndex,
		}).catch(() => undefined);
		const items = (Array.isArray(answer?.items) ? answer.items : []) as IDataObject[];
		group.forEach((wish, position) => {
			const quote = items.find((item) => item.itemKey === keyOf(position))?.quote as
				IDataObject | null | undefined;
			// Not awaited: the next gathered quotes need not wait for this report's own request.
			if (quote && typeof quote.fingerprint === 'string') wish.resolve(quote);
			else void this.alone(wish);
		});
	}
}

const gatherers = new RunSlot('quote gatherer', (ctx) => new QuoteGatherer(ctx));

export const START_STEPS = { first: undefined as string | undefined, requote: 'requote' };

/**
 * The report's status when it has an attempt this start must not repeat (a failed one may, with a New Attempt
 * Label). Without reports:read the API's own ANALYSIS_ALREADY_STARTED still refuses a second start.
 */
export async function existingAttempt(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	write: WriteChoice,
	known?: IDataObject,
): Promise<IDataObject | undefined> {
	const status =
		known ??
		(await api(ctx, {
			method: 'GET',
			path: apiPath('/api/v1/reports/{}/status', reportId),
			itemIndex,
		}).catch((error: unknown) => {
			if (hasApiCondition(error, 'FORBIDDEN')) return undefined;
			throw error;
		}));
	if (status?.attemptId === null || status?.attemptId === undefined) return undefined;
	if (status.status === 'failed' && write.attemptLabel) return undefined;
	return status;
}

/** A labelled attempt is the report and its label, not the quote, so running it again never makes a third. */
export function startIdentity(
	reportId: string,
	fingerprint: string | undefined,
	write: WriteChoice,
): unknown[] {
	return write.attemptLabel ? [reportId] : [reportId, fingerprint];
}

/** POST /api/v1/analyses under the key of report and quote: a new quote after QUOTE_STALE is a new start. */
export async function startAnalysis(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
	choice: QuoteChoice,
	write: WriteChoice,
	steps: { first?: string; requote: string } = START_STEPS,
	checkExisting = true,
): Promise<IDataObject> {
	const existing = { kind: 'analysis' as const, reportId };
	if (checkExisting && (await existingAttempt(ctx, itemIndex, reportId, write)))
		return await recoverWrite(ctx, itemIndex, existing, 'ANALYSIS_ALREADY_STARTED');
	const post = async (fingerprint: string, requoted: boolean) =>
		await api(ctx, {
			method: 'POST',
			path: '/api/v1/analyses',
			body: { reportId, quoteFingerprint: fingerprint },
			idempotencyKey: keyFor(
				write,
				'analysis.start',
				startIdentity(reportId, fingerprint, write),
				requoted ? steps.requote : steps.first,
			),
			itemIndex,
		});
	const { result, quote } = await sendChargedWrite(ctx, itemIndex, {
		what: 'analysis',
		existing,
		choice,
		quote: async (again) =>
			again
				? await quoteAnalysis(ctx, itemIndex, reportId)
				: await gatherers.of(ctx).quote(itemIndex, reportId),
		send: async (fingerprint, requoted) =>
			await waitOutCapacity(
				ctx,
				itemIndex,
				async () => await startWithinCapacity(ctx, async () => await post(fingerprint, requoted)),
			),
	});
	if (!quote || result.recovered === true) return result;
	return {
		...result,
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
	waitOutput: 'simplified' | 'summary' | 'result' | 'simplifiedResult';
}

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

/** The result exists only for a completed report; a summary a list page already showed is not read again. */
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

/** On timeout the last status is output (timedOut): elapsed time proves nothing about the report. */
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
