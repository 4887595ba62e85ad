import { apiErrorInfo } from './request';

// The spec leaves the sub-condition's placement open, so both error.reason and error.code are read.
export function apiErrorConditions(error: unknown): string[] {
	if (typeof error !== 'object' || error === null) return [];
	const found = new Set<string>();
	const info = apiErrorInfo(error);
	if (info?.reason) found.add(info.reason);
	if (info?.code) found.add(info.code);
	const visit = (value: unknown, depth: number): void => {
		if (depth > 4 || typeof value !== 'object' || value === null) return;
		const record = value as Record<string, unknown>;
		for (const key of ['reason', 'code']) {
			if (typeof record[key] === 'string') found.add(record[key] as string);
		}
		for (const key of ['context', 'cause', 'error', 'errorResponse', 'body']) {
			if (key in record) visit(record[key], depth + 1);
		}
	};
	visit(error, 0);
	return [...found];
}

export function hasApiCondition(error: unknown, condition: string): boolean {
	return apiErrorConditions(error).includes(condition);
}

export async function onApiCondition<T>(
	condition: string,
	first: () => Promise<T>,
	recover: (error: unknown) => Promise<T>,
): Promise<T> {
	const outcome = await outcomeOf(first);
	if (outcome.ok) return outcome.value;
	if (!hasApiCondition(outcome.error, condition)) throw outcome.error;
	return await recover(outcome.error);
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function outcomeOf<T>(run: () => Promise<T>): Promise<Outcome<T>> {
	return await run().then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
}
