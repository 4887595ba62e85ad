/**
 * The batch pipeline on its own (engine/run.ts runPipeline): stages take one chunk at a time in chunk order, chunks overlap
 * across stages, at most one chunk is prepared ahead of the submitting stage, and without Continue On Fail the first
 * failure starts no further stage.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	Run,
	runPipeline,
	type ChunkState,
	type PipelineStage,
} from '../../../nodes/RecruitingAnalysis/engine/run';

const ctx = {} as IExecuteFunctions;
const nodeRun = new Run(ctx);
const tick = async () => await new Promise((resolve) => setImmediate(resolve));

/** Stages that log "stage:chunk:start|end" and finish when the test releases them. */
function controlledStages(count: number) {
	const log: string[] = [];
	const pending = new Map<string, () => void>();
	const active = new Array(count).fill(0);
	const maxActive = new Array(count).fill(0);
	const stages: PipelineStage[] = Array.from(
		{ length: count },
		(_, index) =>
			async function (chunk: ChunkState) {
				const name = `${index}:${chunk.itemIndexes[0]}`;
				active[index]++;
				maxActive[index] = Math.max(maxActive[index], active[index]);
				log.push(`${name}:start`);
				await new Promise<void>((resolve) => pending.set(name, resolve));
				active[index]--;
				log.push(`${name}:end`);
				return chunk;
			},
	);
	const release = async (stage: number, chunk: number) => {
		const name = `${stage}:${chunk}`;
		for (let i = 0; i < 20 && !pending.has(name); i++) await tick();
		const resolve = pending.get(name);
		if (!resolve) throw new Error(`stage ${name} has not started; log: ${log.join(' ')}`);
		pending.delete(name);
		resolve();
		await tick();
	};
	return {
		stages,
		log,
		release,
		maxActive,
		started: (name: string) => log.includes(`${name}:start`),
	};
}

describe('the batch pipeline', () => {
	it('overlaps chunks across stages while each stage handles one chunk at a time, in chunk order', async () => {
		const { stages, log, release, maxActive, started } = controlledStages(2);
		const running = runPipeline(nodeRun, { stages }, [[0], [20], [40]], false);
		await release(0, 0);
		// Chunk 0 is in stage 1 and chunk 20 in stage 0 at the same time.
		await tick();
		expect(started('1:0')).toBe(true);
		expect(started('0:20')).toBe(true);
		await release(0, 20);
		await release(1, 0);
		await release(1, 20);
		await release(0, 40);
		await release(1, 40);
		const settled = await running;
		expect(settled.map((chunk) => chunk.ok)).toEqual([true, true, true]);
		expect(maxActive).toEqual([1, 1]);
		const stageOneOrder = log.filter((entry) => entry.startsWith('1:') && entry.endsWith(':start'));
		expect(stageOneOrder).toEqual(['1:0:start', '1:20:start', '1:40:start']);
	});

	it('starts a chunk only once the chunk two places before it has left the submitting stage', async () => {
		const { stages, release, started } = controlledStages(2);
		const running = runPipeline(nodeRun, { stages, submitStage: 1 }, [[0], [20], [40]], false);
		await release(0, 0);
		await release(0, 20);
		// Chunk 0 is still being submitted (stage 1): chunk 40 must not be prepared yet.
		for (let i = 0; i < 5; i++) await tick();
		expect(started('0:40')).toBe(false);
		await release(1, 0);
		for (let i = 0; i < 5; i++) await tick();
		expect(started('0:40')).toBe(true);
		await release(1, 20);
		await release(0, 40);
		await release(1, 40);
		await running;
	});

	it('without Continue On Fail, starts no stage after the first failure and still settles every chunk', async () => {
		const calls: string[] = [];
		const failing: PipelineStage = async function (chunk) {
			calls.push(`prepare:${chunk.itemIndexes[0]}`);
			if (chunk.itemIndexes[0] === 20) throw new Error('refused');
			return chunk;
		};
		const submit: PipelineStage = async function (chunk) {
			calls.push(`submit:${chunk.itemIndexes[0]}`);
			return chunk;
		};
		const settled = await runPipeline(
			nodeRun,
			{ stages: [failing, submit] },
			[[0], [20], [40], [60]],
			false,
		);
		expect(settled[1].ok).toBe(false);
		expect(calls).not.toContain('submit:20');
		expect(calls).not.toContain('prepare:60');
		expect(calls).not.toContain('submit:40');
	});

	it('without Continue On Fail an item that failed its checks stops the stages after it; with it, they go on', async () => {
		const calls: string[] = [];
		const check: PipelineStage = async function (chunk: ChunkState) {
			const outcomes = chunk.itemIndexes.map((itemIndex) =>
				itemIndex === 1 ? new Error('bad') : {},
			);
			return { ...chunk, outcomes };
		};
		const submit: PipelineStage = async function (chunk: ChunkState) {
			calls.push(`submit:${chunk.itemIndexes[0]}`);
			return chunk;
		};
		await runPipeline(nodeRun, { stages: [check, submit] }, [[0, 1]], false);
		expect(calls).toEqual([]);
		await runPipeline(nodeRun, { stages: [check, submit] }, [[0, 1]], true);
		expect(calls).toEqual(['submit:0']);
	});

	it('with Continue On Fail, a failed chunk does not stop the others', async () => {
		const prepare: PipelineStage = async function (chunk) {
			if (chunk.itemIndexes[0] === 20) throw new Error('refused');
			return chunk;
		};
		const submit: PipelineStage = async function (chunk) {
			return { ...chunk, outcomes: chunk.itemIndexes.map((itemIndex) => ({ itemIndex })) };
		};
		const settled = await runPipeline(
			nodeRun,
			{ stages: [prepare, submit] },
			[[0], [20], [40]],
			true,
		);
		expect(settled.map((chunk) => chunk.ok)).toEqual([true, false, true]);
		expect(settled[2].ok && settled[2].value.outcomes).toEqual([{ itemIndex: 40 }]);
	});
});
