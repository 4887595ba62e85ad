// The spent total lives in the execution's flow context, so a Wait, a resume elsewhere and n8n's Retry keep it.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiErrorInfo, outcomeOf } from '../transport';

export const SPENT_FIELD = 'recruitingAnalysisSpentCredits';
// Kept with the execution: a Retry knows its own batches by what it recorded, never by comparing clocks.
const BATCH_CHARGES_FIELD = 'recruitingAnalysisBatchCharges';

// What writes/ keeps per node run; engine/run.ts's Run holds it, since writes/ stands below engine/.
export interface WriteRun {
	// A bare harness may have no flow context: the total is then the node run's own.
	readonly spentWithoutFlow: IDataObject;
	readonly firstItemOfWrite: Map<string, number>;
	readonly jobsRead: Map<string, Promise<IDataObject | undefined>>;
	addNotice(name: 'failedReport'): void;
}

type Ledger = { readonly spent: number; inFlight: number; addSpent(credits: number): void };

// In flight is per process: n8n saves an execution between nodes, never while one of them runs.
const ledgers = new WeakMap<object, Ledger>();

const EPSILON = 1e-9;
export const keep = (credits: number) => Math.round(credits * 1e6) / 1e6;

export function executionStore(ctx: IExecuteFunctions, run: WriteRun): IDataObject {
	try {
		return ctx.getContext('flow') as IDataObject;
	} catch {
		// A bare harness has no flow context.
		return run.spentWithoutFlow;
	}
}

export function ledgerOf(ctx: IExecuteFunctions, run: WriteRun): Ledger {
	const store = executionStore(ctx, run);
	const known = ledgers.get(store);
	if (known) return known;
	const ledger: Ledger = {
		get spent() {
			const value = Number(store[SPENT_FIELD]);
			return Number.isFinite(value) && value > 0 ? value : 0;
		},
		inFlight: 0,
		addSpent(credits: number) {
			store[SPENT_FIELD] = Math.max(0, keep(ledger.spent + credits));
		},
	};
	ledgers.set(store, ledger);
	return ledger;
}

export function creditsOf(quote: IDataObject | undefined | null): number | undefined {
	const units = Number(quote?.creditUnits);
	const scale = Number(quote?.creditScale);
	if (!Number.isFinite(units) || !Number.isFinite(scale) || scale <= 0) return undefined;
	return units / scale;
}

// An agent, not a person, decides how often a tool runs: a tool that sets no limit keeps this per execution.
export const TOOL_DEFAULT_SPENDING_LIMIT = 10;

function limitOf(ctx: IExecuteFunctions, itemIndex: number) {
	const set = spendingLimitOf(ctx, itemIndex);
	if (set !== undefined) return { credits: set, byDefault: false };
	// n8n names the Tool variant's type "<node>Tool".
	if (ctx.getNode().type.endsWith('Tool'))
		return { credits: TOOL_DEFAULT_SPENDING_LIMIT, byDefault: true };
	return undefined;
}

export function spendingLimitOf(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const value = ctx.getNodeParameter('spendingLimit', itemIndex, 0) as unknown;
	const limit = Number(value ?? 0);
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
	// An expression may give the 0 (no limit) as text.
	return limit === 0 ? undefined : limit;
}

const round = (credits: number) => Math.round(credits * 1000) / 1000;

export const RETRY_SPENDS =
	"n8n's Retry of this execution carries its total on (it may spend only what is left under the limit, and what was already done is recovered, not charged again); a new execution starts from 0.";

function creditWords(credits: number): string {
	const n = round(credits);
	return `${n} ${n === 1 ? 'credit' : 'credits'}`;
}

export type Reservation = ReturnType<typeof reserveCredits>;

export function reserveCredits(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	quote: IDataObject | undefined | null,
	what: string,
) {
	const limit = limitOf(ctx, itemIndex);
	const ledger = ledgerOf(ctx, run);
	const limitError = (message: string, description: string) =>
		explainsRefusal(new NodeOperationError(ctx.getNode(), message, { itemIndex, description }));
	const refusalOf = (credits: number | undefined, held: number, requoted: boolean) => {
		if (limit === undefined) return undefined;
		if (credits === undefined)
			return limitError(
				`The quote of this ${what} gives no price, so the Spending Limit cannot be kept`,
				limit.byDefault
					? `As an agent's tool the node keeps a Spending Limit (${creditWords(limit.credits)} per execution when it sets none), so it sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write). Nothing was sent for this item.`
					: 'With a Spending Limit set, the node sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write), or set the Spending Limit to 0 (no limit). Nothing was sent for this item.',
			);
		const others = ledger.inFlight - held;
		if (ledger.spent + others + credits <= limit.credits + EPSILON) return undefined;
		const spent = round(ledger.spent);
		const whose = limit.byDefault ? " (an agent's tool that sets none keeps this one)" : '';
		const raise = limit.byDefault
			? "To allow more, set this tool's Spending Limit (Credits): the builder's choice, never the model's."
			: 'Raise Spending Limit (Credits) on this node, or run the rest in a later execution.';
		return limitError(
			`Spending Limit of ${creditWords(limit.credits)} reached${whose}: this ${what} costs ${creditWords(credits)}${requoted ? ' (quoted again)' : ''} and ${spent} ${spent === 1 ? 'was' : 'were'} already spent${others > EPSILON ? ` (${round(others)} more in flight)` : ''}. Nothing was sent.`,
			`${raise} What was done is recovered, not charged again. ${RETRY_SPENDS}`,
		);
	};
	let credits = creditsOf(quote);
	const refusal = refusalOf(credits, 0, false);
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
		if (charged) count();
		else if (state === 'held') ledger.inFlight -= amount;
		else if (state === 'counted') ledger.addSpent(-amount);
		state = 'settled';
	};
	return {
		get credits() {
			return amount;
		},
		get priced() {
			return credits !== undefined;
		},
		reprice(next: IDataObject | undefined | null) {
			if (state !== 'held') return;
			const nextCredits = creditsOf(next);
			const refusal = refusalOf(nextCredits, amount, true);
			if (refusal) {
				settle(false);
				throw refusal;
			}
			ledger.inFlight += (nextCredits ?? 0) - amount;
			amount = nextCredits ?? 0;
			credits = nextCredits;
		},
		// Counted as spent before the answer is read, so an error that leaves the node keeps them.
		mayHaveCharged: count,
		charged: () => settle(true),
		release: () => settle(false),
	};
}

export async function chargedWrite(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	quote: IDataObject | undefined | null,
	what: string,
	write: (reprice: (quote: IDataObject) => void) => Promise<IDataObject>,
): Promise<IDataObject> {
	const reservation = reserveCredits(ctx, run, itemIndex, quote, what);
	const outcome = await outcomeOf(async () => await write((next) => reservation.reprice(next)));
	if (!outcome.ok) {
		// A refusal charged nothing; a lost answer may have been charged, so it counts.
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
	return reservation.priced ? { ...result, creditsUsed: round(reservation.credits) } : result;
}

const explainedRefusals = new WeakSet<object>();

export function explainsRefusal<T>(error: T): T {
	if (typeof error === 'object' && error !== null) explainedRefusals.add(error);
	return error;
}

export function wasRefused(error: unknown): boolean {
	if (typeof error === 'object' && error !== null && explainedRefusals.has(error)) return true;
	const status = apiErrorInfo(error)?.status;
	return (
		typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429
	);
}

function batchChargesOf(ctx: IExecuteFunctions, run: WriteRun) {
	const store = executionStore(ctx, run);
	const value = store[BATCH_CHARGES_FIELD];
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		store[BATCH_CHARGES_FIELD] = {};
	return store[BATCH_CHARGES_FIELD] as unknown as Record<string, Record<string, number>>;
}

const countedEarlier = new WeakSet<Reservation>();

// A created batch may have charged: its items count before it is awaited, so a timeout leaves them counted.
export function countBatch(
	ctx: IExecuteFunctions,
	run: WriteRun,
	batchId: string,
	items: Array<{ itemKey: string; reservation: Reservation }>,
): boolean {
	const all = batchChargesOf(ctx, run);
	const earlier = all[batchId] !== undefined;
	const record = (all[batchId] ??= {});
	for (const { itemKey, reservation } of items) {
		if (record[itemKey] !== undefined) {
			countedEarlier.add(reservation);
			reservation.release();
			continue;
		}
		reservation.mayHaveCharged();
		record[itemKey] = keep(reservation.credits);
	}
	return earlier;
}

export function settleBatchItem(
	ctx: IExecuteFunctions,
	run: WriteRun,
	batchId: string,
	itemKey: string,
	reservation: Reservation,
	charged: boolean,
): void {
	if (charged) {
		reservation.charged();
		return;
	}
	const record = batchChargesOf(ctx, run)[batchId];
	const credits = record?.[itemKey];
	if (record && credits !== undefined) delete record[itemKey];
	if (countedEarlier.has(reservation)) {
		if (credits !== undefined) ledgerOf(ctx, run).addSpent(-credits);
	} else reservation.release();
}
