import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { apiErrorInfo } from '../transport';
import * as analysis from './analysis/Analysis.resource';
import * as event from './event/Event.resource';
import * as interview from './interview/Interview.resource';
import * as jobDescription from './jobDescription/JobDescription.resource';
import * as report from './report/Report.resource';
import { mapWithConcurrency } from './shared/concurrency';
import {
	BATCH_CHUNK_SIZE,
	type ItemOperation,
	type ItemResult,
	type OperationModule,
	type ChunkState,
	type PipelineStage,
} from './shared/types';
import * as upload from './upload/Upload.resource';
import { endWaiting, Later } from './shared/waiter';

/** Every resource and its operations; the selector options in each resource file list the same keys (a test checks). */
export const resources: Record<string, Record<string, OperationModule>> = {
	analysis: analysis.operations,
	event: event.operations,
	interview: interview.operations,
	jobDescription: jobDescription.operations,
	report: report.operations,
	upload: upload.operations,
};

const DEFAULT_CONCURRENCY = 10;

/**
 * Runs the node: resource and operation are read per item (an expression may send items to different
 * operations), items of the same operation are grouped, item operations run with bounded concurrency and
 * batch operations get chunks of BATCH_CHUNK_SIZE items. Output keeps input order, each item paired.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const continueOnFail = this.continueOnFail();

	const groups = new Map<string, { module?: OperationModule; resource: string; operation: string; indexes: number[] }>();
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
		if (!continueOnFail) throw nodeError;
		outputs[itemIndex] = [errorItem(nodeError, itemIndex)];
	};

	for (const group of groups.values()) {
		const module = group.module;
		if (!module) {
			for (const itemIndex of group.indexes) {
				fail(
					itemIndex,
					new NodeOperationError(this.getNode(), `The operation "${group.operation}" is not known for resource "${group.resource}"`, {
						itemIndex,
					}),
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
					// The whole chunk failed (the envelope was rejected, or a request failed): every item of it fails.
					for (const itemIndex of chunk) fail(itemIndex, settled.error);
					return;
				}
				chunk.forEach((itemIndex, position) => {
					const outcome = settled.value.outcomes[position];
					if (outcome instanceof Error) fail(itemIndex, outcome);
					else outputs[itemIndex] = toItems(outcome ?? {}, itemIndex);
				});
			};
			const settled = await runPipeline(this, module.stages, chunks, continueOnFail);
			settled.forEach((chunk, k) => record(chunks[k], chunk));
			continue;
		}

		await runItems(this, module, group.indexes, readConcurrency(this, group.indexes[0]), outputs, fail);
	}

	return [outputs.flat()];
}

/**
 * Runs an item operation over its items, `concurrency` at a time. An item whose result is still being waited for
 * (a `Later`: Wait for Completion) frees its lane at once; the waits are shared (waiter.ts) and settled after the
 * lanes. Without Continue On Fail the first failure, in a lane or in a wait, stops new items from starting; the
 * other waits then end, with no read left in flight, before the error is thrown.
 */
async function runItems(
	ctx: IExecuteFunctions,
	module: ItemOperation,
	indexes: number[],
	concurrency: number,
	outputs: INodeExecutionData[][],
	fail: (itemIndex: number, error: unknown) => void,
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
				const result = await module.execute.call(ctx, itemIndex);
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

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
	try {
		return { ok: true, value: await promise };
	} catch (error) {
		return { ok: false, error };
	}
}

/**
 * Runs a staged batch operation over its chunks as a pipeline: each stage handles one chunk at a time, in
 * order, and a chunk enters stage i + 1 as soon as it left stage i and the previous chunk left stage i + 1.
 * Without Continue On Fail, the first failure (a stage that throws, or an item that failed) stops the pipeline:
 * stages already running finish, no stage starts after it (so no further batch is submitted or charged for a
 * node run that will fail), and recording then throws at the failing chunk. Resolves once every chunk has
 * settled: no request outlives the node.
 */
async function runPipeline(
	ctx: IExecuteFunctions,
	stages: PipelineStage[],
	chunks: number[][],
	continueOnFail: boolean,
): Promise<Array<Settled<ChunkState>>> {
	let stopped = false;
	const tails: Array<Promise<unknown>> = stages.map(async () => {});
	const finished = chunks.map(async (itemIndexes) => {
		let current: Promise<Settled<ChunkState>> = Promise.resolve({
			ok: true,
			value: { itemIndexes, outcomes: itemIndexes.map(() => ({})) },
		});
		stages.forEach((run, index) => {
			const previous = current;
			const turn = tails[index];
			current = (async (): Promise<Settled<ChunkState>> => {
				const state = await previous;
				await turn;
				if (!state.ok || stopped) return state;
				const next = await settle(run.call(ctx, state.value));
				if (!continueOnFail && (!next.ok || next.value.outcomes.some((outcome) => outcome instanceof Error))) stopped = true;
				return next;
			})();
			tails[index] = current;
		});
		return await current;
	});
	return await Promise.all(finished);
}

function readConcurrency(ctx: IExecuteFunctions, itemIndex: number): number {
	const value = Number(ctx.getNodeParameter('options.concurrency', itemIndex, DEFAULT_CONCURRENCY));
	if (!Number.isFinite(value) || value < 1) return DEFAULT_CONCURRENCY;
	return Math.min(Math.floor(value), 20);
}

function isExecutionData(value: unknown): value is INodeExecutionData {
	return typeof value === 'object' && value !== null && 'json' in value && typeof (value as INodeExecutionData).json === 'object';
}

function toItems(result: ItemResult, itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((entry) => {
		if (isExecutionData(entry)) return { ...entry, pairedItem: { item: itemIndex } };
		return { json: entry as IDataObject, pairedItem: { item: itemIndex } };
	});
}

function toNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), message, { itemIndex });
}

function errorItem(error: NodeApiError | NodeOperationError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	const info = apiErrorInfo(error);
	if (info) {
		json.httpCode = info.status;
		json.code = info.code;
		if (info.reason) json.reason = info.reason;
		if (info.requestId) json.requestId = info.requestId;
	}
	return { json, pairedItem: { item: itemIndex } };
}
