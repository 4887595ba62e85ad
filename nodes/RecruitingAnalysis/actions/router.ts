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
import { addNotice } from './shared/hints';
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

const DEFAULT_CONCURRENCY = 20;

/**
 * Runs the node: resource and operation are read per item (an expression may send items to different
 * operations), items of the same operation are grouped, item operations run with bounded concurrency and
 * batch operations get chunks of BATCH_CHUNK_SIZE items. Output keeps input order, each item paired.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';

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
		const where = itemLocation(this, itemIndex);
		if (!continueOnFail) {
			nodeError.message = stoppingMessage(nodeError, where, items.length);
			throw nodeError;
		}
		outputs[itemIndex] = [errorItem(nodeError, itemIndex, where, errorOutput)];
	};

	// The whole input is checked before the first write: without Continue On Fail a bad item (any item) stops the
	// node before any item of the run is charged; with it, the bad item becomes an error item and is left out.
	for (const group of groups.values()) {
		const module = group.module;
		if (!module?.check) continue;
		const keys = new Map<string, number>();
		const refused = new Set<number>();
		for (const itemIndex of group.indexes) {
			try {
				await module.check.call(this, itemIndex);
				const userKey = userKeyOf(this, itemIndex);
				const earlier = userKey === undefined ? undefined : keys.get(userKey);
				if (earlier !== undefined) throw duplicateKeyError(this, userKey as string, earlier, itemIndex);
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
			const settled = await runPipeline(this, module.stages, chunks, continueOnFail, module.submitStage);
			settled.forEach((chunk, k) => record(chunks[k], chunk));
			continue;
		}

		await runItems(this, module, group.indexes, readConcurrency(this, group.indexes[0]), outputs, fail);
	}

	const output = outputs.flat();
	if (output.some((item) => item.json.recovered === true)) addNotice(this, 'recovered');
	return [output];
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
	submitStage = stages.length - 1,
): Promise<Array<Settled<ChunkState>>> {
	let stopped = false;
	const tails: Array<Promise<unknown>> = stages.map(async () => {});
	// passedSubmit[k] settles when chunk k has left the submitting stage (or stopped before it).
	const passedSubmit: Array<Promise<unknown>> = [];
	const finished = chunks.map(async (itemIndexes, k) => {
		let current: Promise<Settled<ChunkState>> = Promise.resolve({
			ok: true,
			value: { itemIndexes, outcomes: itemIndexes.map(() => ({})) },
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
				if (!continueOnFail && (!next.ok || next.value.outcomes.some((outcome) => outcome instanceof Error))) stopped = true;
				return next;
			})();
			tails[index] = current;
			if (index === Math.min(submitStage, stages.length - 1)) passedSubmit[k] = current;
		});
		return await current;
	});
	return await Promise.all(finished);
}

/** Options > Idempotency Key of an item, as given (checked by the operation's own check). */
function userKeyOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const value = options?.idempotencyKey;
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

function duplicateKeyError(ctx: IExecuteFunctions, key: string, earlier: number, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), '"Idempotency Key" must be different for each item', {
		itemIndex,
		description:
			`Items ${earlier} and ${itemIndex} both have the Idempotency Key "${key.slice(0, 128)}": one key names one write, so the second ` +
			'would be refused or get the first item\'s resource. Use an expression that differs per item (for example the application ID), ' +
			'or leave the option empty to let the node derive a key from each write. Nothing was sent to the Recruiting Analysis API.',
	});
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

/** Where an error happened, as the user sees it: the item number as the editor counts (from 1) and its file. */
interface ItemLocation {
	itemNumber: number;
	fileName?: string;
}

/**
 * The resume file of an item, when it has one: the File Name option, the name of the binary in the operation's
 * Input Binary Field, or the input item's own `fileName` (as Upload Many outputs, for Start Many).
 */
function itemLocation(ctx: IExecuteFunctions, itemIndex: number): ItemLocation {
	const where: ItemLocation = { itemNumber: itemIndex + 1 };
	try {
		const item = ctx.getInputData()[itemIndex];
		const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const property = ctx.getNodeParameter('binaryPropertyName', itemIndex, '') as string;
		const candidates = [options?.fileName, property ? item?.binary?.[property]?.fileName : undefined, item?.json?.fileName];
		const fileName = candidates.find((value) => typeof value === 'string' && value.trim() !== '');
		if (typeof fileName === 'string') where.fileName = fileName.trim();
	} catch {
		// A parameter whose expression fails has its own error; the location then carries the item number only.
	}
	return where;
}

/** n8n's own messages end in " [item N]", counted from 0; ours say where, counted as the editor does. */
const ENGINE_ITEM_SUFFIX = / \[item \d+\]$/;

function locate(message: string, where: ItemLocation): string {
	const text = message.replace(ENGINE_ITEM_SUFFIX, '');
	const file = where.fileName && !text.includes(where.fileName) ? `, ${where.fileName}` : '';
	return `${text} [item ${where.itemNumber}${file}]`;
}

/**
 * The message of an error that stops the node: where it happened and, when other items were in the same run, how
 * to let them through (a key or workspace problem, 401 or 403, concerns every item alike and gets no such advice).
 */
function stoppingMessage(error: NodeApiError | NodeOperationError, where: ItemLocation, itemCount: number): string {
	const located = locate(error.message, where);
	const status = apiErrorInfo(error)?.status;
	if (itemCount < 2 || status === 401 || status === 403) return located;
	const others = where.fileName ? 'files' : 'items';
	return `${located}. To let the other ${others} through, set this node's Settings > On Error to "Continue" or "Continue (using error output)" (this one then becomes an error item)`;
}

function errorItem(error: NodeApiError | NodeOperationError, itemIndex: number, where: ItemLocation, errorOutput: boolean): INodeExecutionData {
	const facts: IDataObject = {};
	if (where.fileName) facts.fileName = where.fileName;
	if (error.description) facts.description = error.description;
	const info = apiErrorInfo(error);
	if (info) {
		facts.httpCode = info.status;
		facts.code = info.code;
		if (info.reason) facts.reason = info.reason;
		if (info.requestId) facts.requestId = info.requestId;
	}
	const message = locate(error.message, where);
	// n8n's "Continue (using error output)" moves an item to the error output only when its json has no keys but
	// error, message and details (n8n then adds the input item's fields): the facts go under details there.
	const json: IDataObject = errorOutput ? { error: message, details: facts } : { error: message, ...facts };
	return { json, pairedItem: { item: itemIndex } };
}
