// A time-out is reported as timedOut, never as a failure (spec: do not infer report failure from elapsed time).
import { NodeOperationError, sleep } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { growingDelayMs } from './retry';

export const DEFAULT_POLL_INITIAL_DELAY_MS = 1_000;
export const DEFAULT_POLL_MAX_DELAY_MS = 15_000;

export function pollDelayMs(read: number, initialDelayMs: number, maxDelayMs: number): number {
	return growingDelayMs(read - 1, initialDelayMs, maxDelayMs);
}

export interface PollArgs<T> {
	fetch: () => Promise<T>;
	done: (value: T) => boolean;
	timeoutSeconds: number;
	initialDelayMs?: number;
	maxDelayMs?: number;
	firstReadDelayMs?: number;
}

export async function pollUntil<T>(
	this: IExecuteFunctions,
	args: PollArgs<T>,
): Promise<{ value: T; timedOut: boolean }> {
	const initial = Math.max(0, args.initialDelayMs ?? DEFAULT_POLL_INITIAL_DELAY_MS);
	const cap = Math.max(initial, args.maxDelayMs ?? DEFAULT_POLL_MAX_DELAY_MS);
	const deadline = Date.now() + Math.max(0, args.timeoutSeconds) * 1000;
	const first = Math.max(0, args.firstReadDelayMs ?? 0);
	for (let read = 0; ; read++) {
		const delay = read > 0 ? pollDelayMs(read, initial, cap) : first;
		if (delay > 0) {
			const remaining = deadline - Date.now();
			await sleep(Math.max(0, Math.min(delay, remaining)));
		}
		const signal = this.getExecutionCancelSignal?.();
		if (signal?.aborted) {
			throw new NodeOperationError(this.getNode(), 'The execution was cancelled while waiting');
		}
		const value = await args.fetch();
		if (args.done(value)) return { value, timedOut: false };
		if (Date.now() >= deadline) return { value, timedOut: true };
	}
}

// A generic function loses its type parameter through .call.
export async function poll<T>(
	ctx: IExecuteFunctions,
	args: PollArgs<T>,
): Promise<{ value: T; timedOut: boolean }> {
	const typed = pollUntil<T>;
	return await typed.call(ctx, args);
}
