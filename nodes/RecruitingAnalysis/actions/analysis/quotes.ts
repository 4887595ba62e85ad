/**
 * Analysis quotes: one report's quote, the quotes of a run's starts gathered into batch quotes, and the quote
 * choice of an item (quote automatically, or a fingerprint chosen beforehand).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { sleepOrWake } from '../../engine/concurrency';
import { RunSlot } from '../../floor/runState';
import { placeOpening } from '../../engine/waits';
import { BATCH_CHUNK_SIZE } from '../../engine/types';
import { api } from '../../transport/api';
import { outcomeOf } from '../../transport/conditions';
import { validateFingerprint } from '../../validation';

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

/** The longest a quote waits for a place to open before it is sent (see QuoteGatherer). */
const MAX_HOLD_MS = 10_000;

interface QuoteWish {
	itemIndex: number;
	reportId: string;
	resolve: (quote: IDataObject) => void;
	reject: (error: unknown) => void;
}

/**
 * The quotes of one node run's starts (Analyze Resume, Start with Quote Automatically), gathered: a quote asked
 * for while none is in flight is sent alone at once (POST /analysis-quotes, as for a single item); the quotes
 * asked for while one is in flight are sent together as soon as it answers, up to 20 in one
 * POST /analysis-batch-quotes. Nothing waits for a timer, and many lanes starting at once need a few requests
 * instead of one each. A batch quote's fingerprint is the same as a single quote's (it names what the quote
 * depends on), so the start's key is unchanged. A report the batch could not quote, or every report of a batch
 * request that failed, is quoted alone: its answer and its error are exactly those of a single quote.
 *
 * While the run is bound by capacity (lanes wait for one of its own analyses to finish, engine/waiter.ts), a lane
 * that quotes would only wait for a place after: its quote is held back as long as more lanes, already quoted,
 * wait for the next places than quotes are held (at most MAX_HOLD_MS, and up to one batch), so the quotes of the
 * lanes released one after another leave together and a quoted lane is ready whenever a place opens.
 */
class QuoteGatherer {
	private busy = false;
	private readonly queue: QuoteWish[] = [];
	/** Wakes a held-back drain when another quote is asked for. */
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
			await this.holdBack();
			// A report named twice waits for the next request (a batch names each report once).
			const group: QuoteWish[] = [];
			for (let i = 0; i < this.queue.length && group.length < BATCH_CHUNK_SIZE;) {
				if (group.some((wish) => wish.reportId === this.queue[i].reportId)) i++;
				else group.push(...this.queue.splice(i, 1));
			}
			await this.send(group);
		}
		this.busy = false;
	}

	/** Holds the queued quotes back while enough quoted lanes wait for a place (see the class comment). */
	private async holdBack(): Promise<void> {
		const until = Date.now() + MAX_HOLD_MS;
		while (this.queue.length < BATCH_CHUNK_SIZE && Date.now() < until) {
			const opening = placeOpening(this.ctx, this.queue.length);
			if (!opening) return;
			const asked = new Promise<void>((resolve) => (this.wakeHold = resolve));
			await sleepOrWake(until - Date.now(), Promise.race([opening, asked]));
			this.wakeHold = undefined;
		}
	}

	private alone(wish: QuoteWish): Promise<void> {
		return quoteAnalysis(this.ctx, wish.itemIndex, wish.reportId).then(wish.resolve, wish.reject);
	}

	private async send(group: QuoteWish[]): Promise<void> {
		if (group.length === 1) return await this.alone(group[0]);
		const keyOf = (position: number) => `quote-${position}`;
		const answer = await outcomeOf(
			async () =>
				await api(this.ctx, {
					method: 'POST',
					path: '/api/v1/analysis-batch-quotes',
					body: {
						items: group.map((wish, position) => ({
							itemKey: keyOf(position),
							input: { reportId: wish.reportId },
						})),
					},
					itemIndex: group[0].itemIndex,
				}),
		);
		const items = (
			answer.ok && Array.isArray(answer.value.items) ? answer.value.items : []
		) as IDataObject[];
		group.forEach((wish, position) => {
			const quote = items.find((item) => item.itemKey === keyOf(position))?.quote as
				IDataObject | null | undefined;
			// Not awaited: the next gathered quotes need not wait for this report's own request.
			if (quote && typeof quote.fingerprint === 'string') wish.resolve(quote);
			else void this.alone(wish);
		});
	}
}

/** The quotes this run gathers for its starts. */
const gatherers = new RunSlot('quote gatherer', (ctx) => new QuoteGatherer(ctx));

/** A quote for a start of this node run, gathered with the run's other starts' quotes (QuoteGatherer). */
export async function quoteForStart(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<IDataObject> {
	return await gatherers.of(ctx).quote(itemIndex, reportId);
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

/** The steps a user key may get in a start (the requote after QUOTE_STALE). */
