/**
 * The Spending Limit of an execution: analyses and interviews are charged at their quote (credits = creditUnits /
 * creditScale, spec "Quotes"). Before a charged write is sent, the credits of the price it is sent with are added to
 * what this execution has already charged and has in flight, across items, batches and the Recruiting Analysis
 * nodes of the execution; a write that would pass the node's Spending Limit is not sent, and its error names the
 * limit, what was spent and what was quoted. A write answered QUOTE_STALE and quoted again is checked again at its
 * new price before it is sent (`reprice`). A write that was refused, or that turned out to exist already
 * (recovered), charged nothing and counts nothing. An AI agent's tool that sets no limit has one all the same
 * (TOOL_DEFAULT_SPENDING_LIMIT).
 *
 * Where the total lives (docs/idempotency.md "Where the Spending Limit lives"): in n8n's flow context of the
 * execution (`getContext('flow')`, kept in the execution's own data), so it is saved with the execution when it
 * waits (a Wait node), restored when the execution resumes (in this process, another one, or a queue worker) and
 * carried into n8n's Retry of a failed execution. Writes in flight are counted in this process only: n8n runs one
 * node of an execution at a time and saves the execution between nodes, never while one of them runs.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../floor/runState';
import { apiErrorInfo } from '../transport';
import { outcomeOf } from '../transport/conditions';

/** The field of the execution's flow context that holds the credits it was charged for. */
export const SPENT_FIELD = 'recruitingAnalysisSpentCredits';

/** What an execution has spent and has in flight. */
export interface Ledger {
	/** Credits of the writes this execution was charged for (kept with the execution). */
	readonly spent: number;
	/** Credits of writes sent and not answered yet (this process). */
	inFlight: number;
	addSpent(credits: number): void;
}

/** Writes in flight, by the execution's flow context (the same object for every node of the execution here). */
const inFlightByStore = new WeakMap<object, { inFlight: number }>();
/** Without a flow context (n8n always has one; a bare harness may not), the total is the node run's own. */
const runStore = new RunSlot<IDataObject>('spending ledger', () => ({}));

const EPSILON = 1e-9;
export const keep = (credits: number) => Math.round(credits * 1e6) / 1e6;

/** The execution's flow context, where n8n keeps per-execution data that is saved with the execution. */
export function executionStore(ctx: IExecuteFunctions): IDataObject {
	let flow: unknown;
	try {
		flow = typeof ctx.getContext === 'function' ? ctx.getContext('flow') : undefined;
	} catch {
		flow = undefined;
	}
	return typeof flow === 'object' && flow !== null ? (flow as IDataObject) : runStore.of(ctx);
}

/** The execution's ledger: its spent total from the execution's data, its writes in flight from this process. */
export function ledgerOf(ctx: IExecuteFunctions): Ledger {
	const store = executionStore(ctx);
	let flight = inFlightByStore.get(store);
	if (!flight) {
		flight = { inFlight: 0 };
		inFlightByStore.set(store, flight);
	}
	const counter = flight;
	const spent = () => {
		const value = Number(store[SPENT_FIELD]);
		return Number.isFinite(value) && value > 0 ? value : 0;
	};
	return {
		get spent() {
			return spent();
		},
		get inFlight() {
			return counter.inFlight;
		},
		set inFlight(value: number) {
			counter.inFlight = value;
		},
		addSpent(credits: number) {
			store[SPENT_FIELD] = Math.max(0, keep(spent() + credits));
		},
	};
}

/** The credits a quote prices (creditUnits / creditScale), or undefined when it gives no price. */
export function creditsOf(quote: IDataObject | undefined | null): number | undefined {
	const units = Number(quote?.creditUnits);
	const scale = Number(quote?.creditScale);
	if (!Number.isFinite(units) || !Number.isFinite(scale) || scale <= 0) return undefined;
	return units / scale;
}

/**
 * The Spending Limit of an agent's tool that sets none (0 or empty): 10 credits per execution. An agent, not a
 * person, decides how often a tool runs; without this, one execution could spend on every call the model makes
 * (n8n's AI Agent allows 10 rounds, any number of calls per round). 10 credits is a handful of writes (at the
 * sandbox's prices, 10 analyses at 1 credit or 4 interviews at 2.5), enough for an agent that handles one or a few
 * candidates per chat message, and the most one execution (one chat message) can cost. The scope is the field's
 * everywhere: the execution's total across its Recruiting Analysis nodes (this ledger), so credits spent earlier in
 * the execution count too. The builder raises it by setting the tool's Spending Limit.
 */
export const TOOL_DEFAULT_SPENDING_LIMIT = 10;

/** Whether the node runs as an AI agent's tool (n8n names the Tool variant's type "<node>Tool"). */
function runsAsTool(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/** An item's Spending Limit, and whether it is the Tool-mode default (the node set none). */
interface Limit {
	credits: number;
	byDefault: boolean;
}

function limitOf(ctx: IExecuteFunctions, itemIndex: number): Limit | undefined {
	const set = spendingLimitOf(ctx, itemIndex);
	if (set !== undefined) return { credits: set, byDefault: false };
	return runsAsTool(ctx) ? { credits: TOOL_DEFAULT_SPENDING_LIMIT, byDefault: true } : undefined;
}

/** Spending Limit (Credits) of an item: undefined when 0 or empty (no limit; as a tool, the default). */
export function spendingLimitOf(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const value = ctx.getNodeParameter('spendingLimit', itemIndex, 0) as unknown;
	if (value === undefined || value === null || value === '' || value === 0) return undefined;
	const limit = Number(value);
	if (!Number.isFinite(limit) || limit < 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'"Spending Limit (Credits)" must be a number of credits, 0 or more',
			{
				itemIndex,
				description: `Change "Spending Limit (Credits)" (now "${String(value).slice(0, 40)}"), or set 0 for no limit. Nothing was sent to the Recruiting Analysis API.`,
			},
		);
	}
	return limit;
}

const round = (credits: number) => Math.round(credits * 1000) / 1000;

/** What n8n's Retry of a failed execution may spend: the limit error says it, and docs/idempotency.md. */
export const RETRY_SPENDS =
	"n8n's Retry of this execution carries its total on (it may spend only what is left under the limit, and what was already done is recovered, not charged again); a new execution starts from 0.";

/** The errors that kept a write within the Spending Limit (nothing was sent for them). */
const limitErrors = new WeakSet<object>();

/** Whether `error` is the Spending Limit's refusal of a write (nothing was sent). */
export function isSpendingLimitError(error: unknown): boolean {
	return typeof error === 'object' && error !== null && limitErrors.has(error);
}

function limitError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
	limitErrors.add(error);
	return error;
}

/**
 * The Spending Limit's refusal of a write, unless `credits` more (beyond `held`, credits this write already holds)
 * fit under `limit`. `requoted`: the price is a new quote after QUOTE_STALE.
 */
function refusalOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	ledger: Ledger,
	limit: Limit | undefined,
	credits: number | undefined,
	held: number,
	what: string,
	requoted: boolean,
): NodeOperationError | undefined {
	if (limit === undefined) return undefined;
	if (credits === undefined) {
		return limitError(
			ctx,
			itemIndex,
			`The quote of this ${what} gives no price, so the Spending Limit cannot be kept`,
			limit.byDefault
				? `As an agent's tool the node keeps a Spending Limit (${creditWords(limit.credits)} per execution when it sets none), so it sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write). Nothing was sent for this item.`
				: 'With a Spending Limit set, the node sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write), or set the Spending Limit to 0 (no limit). Nothing was sent for this item.',
		);
	}
	const others = ledger.inFlight - held;
	if (ledger.spent + others + credits <= limit.credits + EPSILON) return undefined;
	const spent = round(ledger.spent);
	const whose = limit.byDefault ? " (an agent's tool that sets none keeps this one)" : '';
	const raise = limit.byDefault
		? "To allow more, set this tool's Spending Limit (Credits): the builder's choice, never the model's."
		: 'Raise Spending Limit (Credits) on this node, or run the rest in a later execution.';
	return limitError(
		ctx,
		itemIndex,
		`Spending Limit of ${creditWords(limit.credits)} reached${whose}: this ${what} costs ${creditWords(credits)}${requoted ? ' (quoted again)' : ''} and ${spent} ${spent === 1 ? 'was' : 'were'} already spent${others > EPSILON ? ` (${round(others)} more in flight)` : ''}. Nothing was sent.`,
		`${raise} What was done is recovered, not charged again. ${RETRY_SPENDS}`,
	);
}

/** "1 credit", "2.5 credits". */
function creditWords(credits: number): string {
	const n = round(credits);
	return `${n} ${n === 1 ? 'credit' : 'credits'}`;
}

/** A reserved charge: settle it once the write has answered. */
export interface Reservation {
	/** The credits of the price the write is sent with. */
	readonly credits: number;
	/** Whether that price is known (a quote with creditUnits and creditScale). */
	readonly priced: boolean;
	/**
	 * The write is sent at a new quote's price (after QUOTE_STALE): checked against the limit again, and throws the
	 * Spending Limit's error (the reservation is then released) when it would pass it.
	 */
	reprice(quote: IDataObject | undefined | null): void;
	/**
	 * The write may have been charged (its batch was created, its answer is not read yet): the credits count as
	 * spent now, in the total saved with the execution, so an error that leaves the node before the answer is read
	 * keeps them. `release` takes them back once an answer proves nothing was charged.
	 */
	mayHaveCharged(): void;
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
	const limit = limitOf(ctx, itemIndex);
	const ledger = ledgerOf(ctx);
	let credits = creditsOf(quote);
	const refusal = refusalOf(ctx, itemIndex, ledger, limit, credits, 0, what, false);
	if (refusal) throw refusal;
	let amount = credits ?? 0;
	ledger.inFlight += amount;
	// held (in flight), counted (in the saved total, may still be taken back), or settled for good.
	let state: 'held' | 'counted' | 'settled' = 'held';
	const count = () => {
		if (state !== 'held') return;
		state = 'counted';
		ledger.inFlight -= amount;
		ledger.addSpent(amount);
	};
	const settle = (charged: boolean) => {
		if (state === 'settled') return;
		const was = state;
		state = 'settled';
		if (was === 'held') {
			ledger.inFlight -= amount;
			if (charged) ledger.addSpent(amount);
		} else if (!charged) ledger.addSpent(-amount);
	};
	const settled = () => state !== 'held';
	return {
		get credits() {
			return amount;
		},
		get priced() {
			return credits !== undefined;
		},
		reprice(next) {
			if (settled()) return;
			const nextCredits = creditsOf(next);
			const refusal = refusalOf(ctx, itemIndex, ledger, limit, nextCredits, amount, what, true);
			if (refusal) {
				settle(false);
				throw refusal;
			}
			ledger.inFlight += (nextCredits ?? 0) - amount;
			amount = nextCredits ?? 0;
			credits = nextCredits;
		},
		mayHaveCharged: count,
		charged: () => settle(true),
		release: () => settle(false),
	};
}

/**
 * Runs a charged write within the item's Spending Limit: reserves its quoted credits, sends it (`write` calls
 * `reprice` with each new quote before it sends the write again at that price), and counts the credits of the price
 * it was sent with as spent only when the write was created (not recovered). The output carries `creditsUsed`: what
 * was charged.
 */
export async function chargedWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	quote: IDataObject | undefined | null,
	what: string,
	write: (reprice: (quote: IDataObject) => void) => Promise<IDataObject>,
): Promise<IDataObject> {
	const reservation = reserveCredits(ctx, itemIndex, quote, what);
	const outcome = await outcomeOf(async () => await write((next) => reservation.reprice(next)));
	if (!outcome.ok) {
		// A refusal (an answer with a 4xx status, or the limit itself) charged nothing; a lost answer may have been
		// charged, so it counts.
		if (wasRefused(outcome.error) || isSpendingLimitError(outcome.error)) reservation.release();
		else reservation.charged();
		throw outcome.error;
	}
	const result = outcome.value;
	if (result.recovered === true) {
		reservation.release();
		return result;
	}
	reservation.charged();
	return reservation.priced ? { ...result, creditsUsed: round(reservation.credits) } : result;
}

/** Errors in which the node explains an API refusal in its own words (the API's status is not on them). */
const explainedRefusals = new WeakSet<object>();

/** Marks `error` as the node's explanation of an API refusal of a write: nothing was created or charged. */
export function explainsRefusal<T>(error: T): T {
	if (typeof error === 'object' && error !== null) explainedRefusals.add(error);
	return error;
}

/** An error that is the API's refusal of the write (nothing created), not a lost or failed answer. */
export function wasRefused(error: unknown): boolean {
	if (typeof error === 'object' && error !== null && explainedRefusals.has(error)) return true;
	const status = apiErrorInfo(error)?.status;
	return (
		typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429
	);
}
