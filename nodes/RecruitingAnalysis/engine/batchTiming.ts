export const BATCH_POLL_INITIAL_MS = 100;
const MIN_BATCH_STEP_MS = 25;

// An analysis batch finishes only when all its analyses have, so its first read is timed from what this run has seen.
export class BatchTiming {
	constructor(private firstMs = BATCH_POLL_INITIAL_MS) {}

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
		this.firstMs = Math.min(10_000, Math.max(MIN_BATCH_STEP_MS, Math.round(next)));
	}
}
