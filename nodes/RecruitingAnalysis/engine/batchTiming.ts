export const BATCH_POLL_INITIAL_MS = 100;
const MIN_BATCH_STEP_MS = 25;
const MAX_READ_DELAY_MS = 10_000;

// An analysis batch finishes only when all its analyses have, so its first read is timed from what this run has seen.
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

	observe(offsets: number[]): void {
		if (offsets.length === 0) return;
		const found = offsets[offsets.length - 1];
		const missed = offsets.length > 1 ? offsets[offsets.length - 2] : undefined;
		const next = missed === undefined ? this.firstMs * 0.9 : (missed + found) / 2;
		this.firstMs = Math.min(MAX_READ_DELAY_MS, Math.max(MIN_BATCH_STEP_MS, Math.round(next)));
	}
}
