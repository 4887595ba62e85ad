import { sleep } from 'n8n-workflow';

// Work in flight is awaited before the error is rethrown: no dangling requests.
export async function mapWithConcurrency<T>(
	values: T[],
	limit: number,
	worker: (value: T) => Promise<void>,
): Promise<void> {
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

const SLEEP_STEP_MS = 250;

// Cut into steps: n8n's sleep cannot be cancelled, and no timer may outlive a finished run by more than one step.
export async function sleepOrWake(ms: number, wake: Promise<unknown>): Promise<void> {
	let woken = false;
	const woke = wake.then(
		() => (woken = true),
		() => (woken = true),
	);
	const until = Date.now() + ms;
	for (;;) {
		const left = until - Date.now();
		if (woken || left <= 0) return;
		await Promise.race([sleep(Math.min(SLEEP_STEP_MS, left)), woke]);
	}
}
