import type { IExecuteFunctions } from 'n8n-workflow';

import type { ChunkState, PipelineStage } from './types';

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
	try {
		return { ok: true, value: await promise };
	} catch (error) {
		return { ok: false, error };
	}
}

// After a failure no stage starts, so no batch is charged for a run that will fail; no request outlives the node.
export async function runPipeline(
	ctx: IExecuteFunctions,
	stages: PipelineStage[],
	chunks: number[][],
	continueOnFail: boolean,
	submitStage = stages.length - 1,
	checked: ReadonlyMap<number, unknown> = new Map(),
): Promise<Array<Settled<ChunkState>>> {
	let stopped = false;
	const tails: Array<Promise<unknown>> = stages.map(async () => {});
	const passedSubmit: Array<Promise<unknown>> = [];
	const finished = chunks.map(async (itemIndexes, k) => {
		let current: Promise<Settled<ChunkState>> = Promise.resolve({
			ok: true,
			value: {
				itemIndexes,
				outcomes: itemIndexes.map(() => ({})),
				checked: itemIndexes.map((itemIndex) => checked.get(itemIndex)),
			},
		});
		// Bounded: chunk k starts once chunk k - 2 has been submitted, so one chunk at most waits prepared and quoted.
		const gate = k >= 2 ? passedSubmit[k - 2] : Promise.resolve();
		stages.forEach((run, index) => {
			const previous = current;
			const turn = tails[index];
			current = (async (): Promise<Settled<ChunkState>> => {
				const state = await previous;
				if (index === 0) await gate;
				await turn;
				if (!state.ok || stopped) return state;
				const next = await settle(run.call(ctx, state.value));
				if (
					!continueOnFail &&
					(!next.ok || next.value.outcomes.some((outcome) => outcome instanceof Error))
				)
					stopped = true;
				return next;
			})();
			tails[index] = current;
			if (index === Math.min(submitStage, stages.length - 1)) passedSubmit[k] = current;
		});
		return await current;
	});
	return await Promise.all(finished);
}
