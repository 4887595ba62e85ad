// Keyed by n8n's execution context, so nothing of one run leaks into the next.
import type { IExecuteFunctions } from 'n8n-workflow';

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

export class RunSlot<T> {
	constructor(
		readonly name: string,
		private readonly create: (ctx: IExecuteFunctions) => T,
	) {}

	of(ctx: IExecuteFunctions): T {
		const state = stateOf(ctx);
		if (!state.has(this as RunSlot<unknown>)) state.set(this as RunSlot<unknown>, this.create(ctx));
		return state.get(this as RunSlot<unknown>) as T;
	}

	peek(ctx: RunContext): T | undefined {
		return states.get(ctx)?.get(this as RunSlot<unknown>) as T | undefined;
	}

	set(ctx: RunContext, value: T): void {
		stateOf(ctx).set(this as RunSlot<unknown>, value);
	}

	clear(ctx: RunContext): void {
		states.get(ctx)?.delete(this as RunSlot<unknown>);
	}
}
