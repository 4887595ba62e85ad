/**
 * A spending limit per run: analyses and interviews are charged at their quote (credits = creditUnits / creditScale,
 * spec "Quotes"). Before a charged write is sent, its quoted credits are added to what this execution has already
 * charged and has in flight, across items, batches and the Recruiting Analysis nodes of the execution; a write
 * that would pass the node's Spending Limit is not sent, and its error names the limit, what was spent and what was
 * quoted. A write that was refused, or that turned out to exist already (recovered), charged nothing and counts
 * nothing. An execution runs in one process (one worker in queue mode), so its ledger lives in that process.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../engine/runState';
import { apiErrorInfo } from '../transport';
import { outcomeOf } from '../transport/conditions';

export interface Ledger {
	/** Credits of the writes this execution was charged for. */
	spent: number;
	/** Credits of writes sent and not answered yet. */
	inFlight: number;
	touchedAt: number;
}

/** Ledgers of executions, kept a day after their last use (an execution that ends leaves its ledger unused). */
const LEDGER_KEEP_MS = 24 * 60 * 60 * 1000;
const byExecution = new Map<string, Ledger>();
/** A run without an execution id (a test harness) gets a ledger of its own node run. */
const byRun = new RunSlot<Ledger>('spending ledger', () => ({
	spent: 0,
	inFlight: 0,
	touchedAt: 0,
}));

const EPSILON = 1e-9;

function ledgerOf(ctx: IExecuteFunctions): Ledger {
	const now = Date.now();
	let executionId: string | undefined;
	try {
		const id = ctx.getExecutionId?.();
		executionId = typeof id === 'string' && id !== '' ? id : undefined;
	} catch {
		executionId = undefined;
	}
	if (executionId === undefined) return byRun.of(ctx);
	for (const [id, ledger] of byExecution)
		if (now - ledger.touchedAt > LEDGER_KEEP_MS) byExecution.delete(id);
	let ledger = byExecution.get(executionId);
	if (!ledger) {
		ledger = { spent: 0, inFlight: 0, touchedAt: now };
		byExecution.set(executionId, ledger);
	}
	ledger.touchedAt = now;
	return ledger;
}

/** The credits a quote prices (creditUnits / creditScale), or undefined when it gives no price. */
export function creditsOf(quote: IDataObject | undefined | null): number | undefined {
	const units = Number(quote?.creditUnits);
	const scale = Number(quote?.creditScale);
	if (!Number.isFinite(units) || !Number.isFinite(scale) || scale <= 0) return undefined;
	return units / scale;
}

/** Options > Spending Limit (credits) of an item: undefined when not set or 0 (no limit). */
export function spendingLimitOf(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const options = (ctx.getNodeParameter('options', itemIndex, {}) as IDataObject) ?? {};
	const value = options.spendingLimit;
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	const limit = Number(value);
	if (!Number.isFinite(limit) || limit < 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'"Spending Limit (Credits)" must be a number of credits, 0 or more',
			{
				itemIndex,
				description: `Change "Spending Limit" (now "${String(value).slice(0, 40)}"), or remove it for no limit. Nothing was sent to the Recruiting Analysis API.`,
			},
		);
	}
	return limit;
}

const round = (credits: number) => Math.round(credits * 1000) / 1000;

/** A reserved charge: settle it once the write has answered. */
export interface Reservation {
	credits: number;
	/** The write was charged (created): the credits count as spent. */
	charged(): void;
	/** The write charged nothing (refused, or it existed already): the credits are free again. */
	release(): void;
}

/**
 * Reserves `quote`'s credits for one charged write of `itemIndex`, or throws when the write would pass the item's
 * Spending Limit (nothing is sent then). Without a limit the reservation only records what is spent.
 */
export function reserveCredits(
	ctx: IExecuteFunctions,
	itemIndex: number,
	quote: IDataObject | undefined | null,
	what: string,
): Reservation {
	const limit = spendingLimitOf(ctx, itemIndex);
	const credits = creditsOf(quote);
	const ledger = ledgerOf(ctx);
	if (limit !== undefined) {
		if (credits === undefined) {
			throw new NodeOperationError(
				ctx.getNode(),
				`The quote of this ${what} gives no price, so the Spending Limit cannot be kept`,
				{
					itemIndex,
					description:
						'With Options > Spending Limit set, the node sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write), or remove the limit. Nothing was sent for this item.',
				},
			);
		}
		if (ledger.spent + ledger.inFlight + credits > limit + EPSILON) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Spending Limit of ${round(limit)} credits reached: this ${what} was not sent`,
				{
					itemIndex,
					description:
						`This execution has spent ${round(ledger.spent)} credits${ledger.inFlight > 0 ? ` (and ${round(ledger.inFlight)} more are being submitted)` : ''}; ` +
						`this ${what} is quoted at ${round(credits)} credits, which would pass the limit of ${round(limit)}. Nothing was sent or charged for this item. ` +
						'Raise Options > Spending Limit, or run the remaining items in a later execution (what was done is recovered, not charged again).',
				},
			);
		}
	}
	const amount = credits ?? 0;
	ledger.inFlight += amount;
	let settled = false;
	const settle = (charged: boolean) => {
		if (settled) return;
		settled = true;
		ledger.inFlight -= amount;
		if (charged) ledger.spent += amount;
	};
	return { credits: amount, charged: () => settle(true), release: () => settle(false) };
}

/**
 * Runs a charged write within the item's Spending Limit: reserves its quoted credits, sends it, and counts them as
 * spent only when the write was created (not recovered). The output carries `creditsUsed`.
 */
export async function chargedWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	quote: IDataObject | undefined | null,
	what: string,
	write: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const reservation = reserveCredits(ctx, itemIndex, quote, what);
	const outcome = await outcomeOf(write);
	if (!outcome.ok) {
		// A refusal (an answer with a 4xx status) charged nothing; a lost answer may have been charged, so it counts.
		if (wasRefused(outcome.error)) reservation.release();
		else reservation.charged();
		throw outcome.error;
	}
	const result = outcome.value;
	if (result.recovered === true) {
		reservation.release();
		return result;
	}
	reservation.charged();
	return creditsOf(quote) === undefined
		? result
		: { ...result, creditsUsed: round(reservation.credits) };
}

/** An error that is the API's refusal of the write (nothing created), not a lost or failed answer. */
export function wasRefused(error: unknown): boolean {
	const status = apiErrorInfo(error)?.status;
	return (
		typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429
	);
}
