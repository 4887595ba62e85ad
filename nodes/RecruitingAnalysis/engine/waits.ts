/**
 * The report waiter of a node run (engine/waiter.ts): one per run, shared by its items, ended by the engine once
 * the items are settled.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { CAPACITY_WAIT_SECONDS } from './capacity';
import { RunSlot } from '../floor/runState';
import { ReportWaiter } from './waiter';

const waiters = new RunSlot('report waiter', (ctx) => new ReportWaiter(ctx));

/** The waiter shared by every item of this node run. */
export function waiterFor(ctx: IExecuteFunctions): ReportWaiter {
	return waiters.of(ctx);
}

/**
 * Ends this run's waiting (the engine, once the items are settled). With an error (the node stops), every wait
 * still pending rejects with it, and the waiter stays closed for the rest of the run, so no item starts waiting or
 * submits after it; resolves once no read of the waiter is in flight.
 */
export async function endWaiting(ctx: IExecuteFunctions, error?: unknown): Promise<void> {
	const waiter = waiters.peek(ctx);
	if (!waiter) return;
	if (error === undefined) waiters.clear(ctx);
	await waiter.close(
		error ?? new NodeOperationError(ctx.getNode(), 'The waiting of this node run has ended'),
	);
}

/**
 * Runs a start (POST /analyses) of an item, after waiting for a place when this run has learned the workspace's
 * active-analysis limit (see ReportWaiter.withinCapacity), at most CAPACITY_WAIT_SECONDS.
 */
export async function startWithinCapacity(
	ctx: IExecuteFunctions,
	submit: () => Promise<IDataObject>,
): Promise<IDataObject> {
	return await waiterFor(ctx).withinCapacity(Date.now() + CAPACITY_WAIT_SECONDS * 1000, submit);
}

/**
 * While more of this run's lanes wait for a place to start than `held` (ReportWaiter.placeOpening), a promise
 * that settles when the next place opens; otherwise (no waiter, or not enough lanes waiting) undefined.
 */
export function placeOpening(ctx: IExecuteFunctions, held: number): Promise<void> | undefined {
	return waiters.peek(ctx)?.placeOpening(held);
}
