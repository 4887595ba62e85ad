/**
 * One state per node run. Everything a run shares between its items (the report waiter, the gathered quotes, the
 * report pages it has read, the notices already shown, the batch timing) lives in a slot of that run's state, keyed
 * by n8n's execution context: a new run (a new context) starts empty, and the state goes with the context when n8n
 * drops it, so nothing of one run leaks into the next.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/** The context a run state is keyed by: the action node's execute context (tests may pass any object). */
export type RunContext = IExecuteFunctions | object;

const states = new WeakMap<object, Map<RunSlot<unknown>, unknown>>();

function stateOf(ctx: RunContext): Map<RunSlot<unknown>, unknown> {
	let state = states.get(ctx);
	if (!state) {
		state = new Map();
		states.set(ctx, state);
	}
	return state;
}

/**
 * A named piece of run state, created on first use in a run. Declared once, next to the code that owns it, so the
 * run state never needs to know every module that keeps something in it.
 */
export class RunSlot<T> {
	constructor(
		readonly name: string,
		private readonly create: (ctx: IExecuteFunctions) => T,
	) {}

	/** This run's value (created now when the run has none yet). */
	of(ctx: IExecuteFunctions): T {
		const state = stateOf(ctx);
		if (!state.has(this as RunSlot<unknown>)) state.set(this as RunSlot<unknown>, this.create(ctx));
		return state.get(this as RunSlot<unknown>) as T;
	}

	/** This run's value when it has one, without creating it. */
	peek(ctx: RunContext): T | undefined {
		return states.get(ctx)?.get(this as RunSlot<unknown>) as T | undefined;
	}

	/** Replaces this run's value. */
	set(ctx: RunContext, value: T): void {
		stateOf(ctx).set(this as RunSlot<unknown>, value);
	}

	/** Forgets this run's value (the next `of` creates a new one). */
	clear(ctx: RunContext): void {
		states.get(ctx)?.delete(this as RunSlot<unknown>);
	}
}
