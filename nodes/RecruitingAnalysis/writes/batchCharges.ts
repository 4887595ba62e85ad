import type { IExecuteFunctions } from 'n8n-workflow';

import { executionStore, keep, ledgerOf, type Reservation, type WriteRun } from './spending';

// Kept with the execution: a Retry knows its own batches by what it recorded, never by comparing clocks.
export const BATCH_CHARGES_FIELD = 'recruitingAnalysisBatchCharges';

type BatchCharges = Record<string, Record<string, number>>;

function batchChargesOf(ctx: IExecuteFunctions, run: WriteRun): BatchCharges {
	const store = executionStore(ctx, run);
	const value = store[BATCH_CHARGES_FIELD];
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		store[BATCH_CHARGES_FIELD] = {};
	return store[BATCH_CHARGES_FIELD] as unknown as BatchCharges;
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
