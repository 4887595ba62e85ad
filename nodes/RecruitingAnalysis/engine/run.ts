import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { addNotice } from '../floor/notices';
import { duplicateKeyError, userKeyOf } from '../writes/userKeys';
import { mapWithConcurrency } from './concurrency';
import { errorItem, itemLocation, stoppingMessage, toItems, toNodeError } from './errorItems';
import { runPipeline, type Settled } from './pipeline';
import {
	BATCH_CHUNK_SIZE,
	Later,
	type ChunkState,
	type ItemOperation,
	type OperationModule,
} from './types';
import { endWaiting } from './capacity';

const DEFAULT_CONCURRENCY = 20;

// Resource and operation are read per item: an expression may send items to different operations.
export async function runNode(
	this: IExecuteFunctions,
	resources: Record<string, Record<string, OperationModule>>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';

	const groups = new Map<
		string,
		{ module?: OperationModule; resource: string; operation: string; indexes: number[] }
	>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const resource = this.getNodeParameter('resource', itemIndex) as string;
		const operation = this.getNodeParameter('operation', itemIndex) as string;
		const key = `${resource}:${operation}`;
		let group = groups.get(key);
		if (!group) {
			group = { module: resources[resource]?.[operation], resource, operation, indexes: [] };
			groups.set(key, group);
		}
		group.indexes.push(itemIndex);
	}

	const fail = (itemIndex: number, error: unknown): void => {
		const nodeError = toNodeError(this, error, itemIndex);
		const where = itemLocation(this, itemIndex);
		if (!continueOnFail) {
			nodeError.message = stoppingMessage(nodeError, where, items.length);
			throw nodeError;
		}
		outputs[itemIndex] = [errorItem(nodeError, itemIndex, where, errorOutput)];
	};

	// The whole input is checked before the first write, so a bad item stops the node before any item is charged.
	const checked = new Map<number, unknown>();
	for (const group of groups.values()) {
		const module = group.module;
		if (!module?.check) continue;
		const keys = new Map<string, number>();
		const refused = new Set<number>();
		for (const itemIndex of group.indexes) {
			try {
				checked.set(itemIndex, await module.check.call(this, itemIndex));
				const userKey = userKeyOf(this, itemIndex);
				const earlier = userKey === undefined ? undefined : keys.get(userKey);
				if (earlier !== undefined)
					throw duplicateKeyError(this, userKey as string, earlier, itemIndex);
				if (userKey !== undefined) keys.set(userKey, itemIndex);
			} catch (error) {
				fail(itemIndex, error);
				refused.add(itemIndex);
			}
		}
		group.indexes = group.indexes.filter((itemIndex) => !refused.has(itemIndex));
	}

	for (const group of groups.values()) {
		const module = group.module;
		if (group.indexes.length === 0) continue;
		if (!module) {
			for (const itemIndex of group.indexes) {
				fail(
					itemIndex,
					new NodeOperationError(
						this.getNode(),
						`The operation "${group.operation}" is not known for resource "${group.resource}"`,
						{
							itemIndex,
						},
					),
				);
			}
			continue;
		}

		if (module.mode === 'batch') {
			const chunks: number[][] = [];
			for (let start = 0; start < group.indexes.length; start += BATCH_CHUNK_SIZE) {
				chunks.push(group.indexes.slice(start, start + BATCH_CHUNK_SIZE));
			}
			const record = (chunk: number[], settled: Settled<ChunkState>): void => {
				if (!settled.ok) {
					for (const itemIndex of chunk) fail(itemIndex, settled.error);
					return;
				}
				chunk.forEach((itemIndex, position) => {
					const outcome = settled.value.outcomes[position];
					if (outcome instanceof Error) fail(itemIndex, outcome);
					else outputs[itemIndex] = toItems(outcome ?? {}, itemIndex);
				});
			};
			const settled = await runPipeline(
				this,
				module.stages,
				chunks,
				continueOnFail,
				module.submitStage,
				checked,
			);
			settled.forEach((chunk, k) => record(chunks[k], chunk));
			continue;
		}

		await runItems(
			this,
			module,
			group.indexes,
			readConcurrency(this, group.indexes[0]),
			outputs,
			fail,
			checked,
		);
	}

	const output = outputs.flat();
	if (output.some((item) => item.json.recovered === true)) addNotice(this, 'recovered');
	return [output];
}

// A Later frees its lane at once (shared waits: engine/capacity.ts); after a failure the other waits end first.
async function runItems(
	ctx: IExecuteFunctions,
	module: ItemOperation,
	indexes: number[],
	concurrency: number,
	outputs: INodeExecutionData[][],
	fail: (itemIndex: number, error: unknown) => void,
	checked: ReadonlyMap<number, unknown>,
): Promise<void> {
	const waits: Array<Promise<void>> = [];
	let stopError: unknown;
	let stopped = false;
	const stop = (error: unknown): void => {
		if (stopped) return;
		stopped = true;
		stopError = error;
		void endWaiting(ctx, error);
	};
	try {
		await mapWithConcurrency(indexes, concurrency, async (itemIndex) => {
			if (stopped) return;
			try {
				const result = await module.execute.call(ctx, itemIndex, checked.get(itemIndex));
				if (result instanceof Later) {
					waits.push(
						result.promise.then(
							(value) => {
								outputs[itemIndex] = toItems(value, itemIndex);
							},
							(error: unknown) => {
								if (stopped) return;
								try {
									fail(itemIndex, error);
								} catch (nodeError) {
									stop(nodeError);
								}
							},
						),
					);
					return;
				}
				outputs[itemIndex] = toItems(result, itemIndex);
			} catch (error) {
				try {
					fail(itemIndex, error);
				} catch (nodeError) {
					stop(nodeError);
				}
			}
		});
		await Promise.all(waits);
	} finally {
		await endWaiting(ctx, stopped ? stopError : undefined);
	}
	if (stopped) throw stopError;
}

function readConcurrency(ctx: IExecuteFunctions, itemIndex: number): number {
	const value = Number(ctx.getNodeParameter('options.concurrency', itemIndex, DEFAULT_CONCURRENCY));
	if (!Number.isFinite(value) || value < 1) return DEFAULT_CONCURRENCY;
	return Math.min(Math.floor(value), 20);
}
