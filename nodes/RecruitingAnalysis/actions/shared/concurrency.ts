/**
 * Runs `worker` over `values`, at most `limit` at a time. The first thrown error stops new work from
 * starting; work already in flight is awaited before the error is rethrown (no dangling requests).
 */
export async function mapWithConcurrency<T>(values: T[], limit: number, worker: (value: T) => Promise<void>): Promise<void> {
	let next = 0;
	let firstError: unknown;
	let failed = false;
	const lanes = Array.from({ length: Math.max(1, Math.min(limit, values.length)) }, async () => {
		while (!failed && next < values.length) {
			const value = values[next++];
			try {
				await worker(value);
			} catch (error) {
				if (!failed) {
					failed = true;
					firstError = error;
				}
			}
		}
	});
	await Promise.all(lanes);
	if (failed) throw firstError;
}
