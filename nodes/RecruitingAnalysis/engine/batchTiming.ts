import type { IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../floor/runState';

const MIN_BATCH_STEP_MS = 25;
const MAX_READ_DELAY_MS = 10_000;

/**
 * When to read an analysis batch first (Analyze Many, Start Many): an analysis batch finishes only when all its
 * analyses have, so the first read is timed from what this run has seen. A batch found finished at its first read
 * moves the next batch's first read earlier (×0.9); one found later puts it between the last read that missed and
 * the read that found it. Later reads of a batch follow every tenth of that time (×1.5 each).
 */
export class BatchTiming {
	private firstMs: number;

	constructor(initialMs: number) {
		this.firstMs = initialMs;
	}

	firstReadMs(): number {
		return this.firstMs;
	}

	stepMs(): number {
		return Math.max(MIN_BATCH_STEP_MS, Math.round(this.firstMs / 10));
	}

	/** `offsets`: when each read of a batch was sent, in ms after its creation was answered (the last one found it finished). */
	observe(offsets: number[]): void {
		if (offsets.length === 0) return;
		const found = offsets[offsets.length - 1];
		const missed = offsets.length > 1 ? offsets[offsets.length - 2] : undefined;
		const next = missed === undefined ? this.firstMs * 0.9 : (missed + found) / 2;
		this.firstMs = Math.min(MAX_READ_DELAY_MS, Math.max(MIN_BATCH_STEP_MS, Math.round(next)));
	}
}

const batchTimings = new RunSlot<BatchTiming | undefined>('analysis batch timing', () => undefined);

/** The analysis-batch timing of this node run (one per run: batches of one operation are alike). */
export function batchTimingFor(ctx: IExecuteFunctions, initialMs: number): BatchTiming {
	let timing = batchTimings.peek(ctx);
	if (!timing) {
		timing = new BatchTiming(initialMs);
		batchTimings.set(ctx, timing);
	}
	return timing;
}
