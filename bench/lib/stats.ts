/** Small statistics helpers for the benchmarks (pure). */

export function median(values: number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
	return sorted[rank - 1];
}

export const round = (n: number, digits = 0): number => {
	const f = 10 ** digits;
	return Math.round(n * f) / f;
};

export const ms = (n: number): string =>
	Number.isFinite(n) ? `${Math.round(n).toLocaleString('en-US')} ms` : 'n/a';
export const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
