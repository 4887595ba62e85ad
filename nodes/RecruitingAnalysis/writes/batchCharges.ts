/**
 * The Spending Limit's record of the batches an execution created (writes/spending.ts keeps the total): each
 * batch's items count from the moment the batch was created, and are given back only when its answer shows them
 * uncharged.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { executionStore, keep, ledgerOf, type Reservation } from './spending';

/**
 * The credits each item of the batches this execution created counts, by batch id and item key, kept with the
 * execution beside its total: a batch answered again in a Retry (or after a Wait) of the same execution is known as
 * this execution's own by what it recorded, never by comparing clocks, so its items are not counted twice, and an
 * item it refused gives its credits back when the batch is read.
 */
export const BATCH_CHARGES_FIELD = 'recruitingAnalysisBatchCharges';

type BatchCharges = Record<string, Record<string, number>>;

function batchChargesOf(ctx: IExecuteFunctions): BatchCharges {
	const store = executionStore(ctx);
	const value = store[BATCH_CHARGES_FIELD];
	if (typeof value === 'object' && value !== null && !Array.isArray(value))
		return value as unknown as BatchCharges;
	const fresh: BatchCharges = {};
	store[BATCH_CHARGES_FIELD] = fresh as unknown as IDataObject;
	return fresh;
}

/** Reservations whose credits an earlier attempt of this execution counted for the same batch item. */
const countedEarlier = new WeakSet<Reservation>();

/**
 * A batch was created (answered with its id): from now on it may have charged, so each item's credits count as
 * spent in the saved total before the batch is awaited (a timeout or a failed read then leaves them counted).
 * Returns whether this execution had created the batch before (its items were counted then, not again now).
 */
export function countBatch(
	ctx: IExecuteFunctions,
	batchId: string,
	items: Array<{ itemKey: string; reservation: Reservation }>,
): boolean {
	const all = batchChargesOf(ctx);
	const earlier = all[batchId] !== undefined;
	const record = all[batchId] ?? {};
	for (const { itemKey, reservation } of items) {
		if (record[itemKey] !== undefined) {
			countedEarlier.add(reservation);
			reservation.release();
			continue;
		}
		reservation.mayHaveCharged();
		record[itemKey] = keep(reservation.credits);
	}
	all[batchId] = record;
	return earlier;
}

/**
 * An item of a counted batch was answered: `charged` keeps its credits counted; otherwise (the batch refused it, or
 * it was an earlier execution's write) they are given back, whichever attempt of this execution counted them.
 */
export function settleBatchItem(
	ctx: IExecuteFunctions,
	batchId: string,
	itemKey: string,
	reservation: Reservation,
	charged: boolean,
): void {
	if (charged) {
		reservation.charged();
		return;
	}
	const record = batchChargesOf(ctx)[batchId];
	const credits = record?.[itemKey];
	if (record && credits !== undefined) delete record[itemKey];
	if (countedEarlier.has(reservation)) {
		if (credits !== undefined) ledgerOf(ctx).addSpent(-credits);
	} else reservation.release();
}
