import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { apiErrorInfo, outcomeOf, type Outcome } from '../transport';
import type { WriteRun } from '../writes/spending';
import { duplicateKeyError, itemUserKey } from '../writes/identity';
import { BatchTiming } from './batchTiming';
import {
	BATCH_CHUNK_SIZE,
	mapWithConcurrency,
	quoteGatherer,
	ReportPages,
	ReportWaiter,
} from './capacity';
import { NOTICES, type NoticeName } from './notices';

// One per node execution, passed down: n8n gives each execution, Tool call and sub-workflow its own, so nothing leaks.
export class Run implements WriteRun {
	readonly spentWithoutFlow: IDataObject = {};
	readonly firstItemOfWrite = new Map<string, number>();
	readonly jobsRead = new Map<string, Promise<IDataObject | undefined>>();
	readonly candidateNames = new Map<string, Promise<string | null>>();
	readonly reportPages: ReportPages;
	readonly batchTiming = new BatchTiming();
	readonly quotes: ReturnType<typeof quoteGatherer>;
	private waiter?: ReportWaiter;
	private readonly noticesShown = new Set<NoticeName>();

	constructor(readonly ctx: IExecuteFunctions) {
		this.reportPages = new ReportPages(ctx);
		this.quotes = quoteGatherer(ctx, () => this.waiter);
	}

	addNotice(name: NoticeName): void {
		if (this.noticesShown.has(name)) return;
		this.noticesShown.add(name);
		const type = name === 'requiresAction' || name === 'invitationToken' ? 'warning' : 'info';
		this.ctx.addExecutionHints?.({ message: NOTICES[name], type, location: 'outputPane' });
	}

	reportWaiter(): ReportWaiter {
		return (this.waiter ??= new ReportWaiter(this.ctx, this.reportPages));
	}

	/** With an error the waiter stays closed for the run, so no item starts waiting or submits after the node stopped. */
	async endWaiting(error?: unknown): Promise<void> {
		const waiter = this.waiter;
		if (error === undefined) this.waiter = undefined;
		const ended = 'The waiting of this node run has ended';
		await waiter?.close(error ?? new NodeOperationError(this.ctx.getNode(), ended));
	}
}

export type ItemResult = IDataObject | IDataObject[] | INodeExecutionData[];

interface Operation {
	description: INodeProperties[];
	check?(this: IExecuteFunctions, itemIndex: number, run: Run): Promise<unknown>;
}

export interface ItemOperation extends Operation {
	// `checked` is what `check` returned for this item: the work is handed over, not done twice.
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		checked: unknown,
		run: Run,
	): Promise<ItemResult | Later>;
	mode?: undefined;
}

export interface ChunkState {
	run: Run;
	itemIndexes: number[];
	outcomes: Array<IDataObject | Error>;
	// What `check` returned for each item, by position: the stages take it over instead of reading the items again.
	checked?: unknown[];
}

export type PipelineStage = (this: IExecuteFunctions, chunk: ChunkState) => Promise<ChunkState>;

// Stages take chunks in order: the API's one active batch per kind holds if one stage creates and awaits a batch.
export interface BatchOperation extends Operation {
	mode: 'batch';
	// `never`: each operation's stages take its own chunk type, which extends ChunkState.
	stages: Array<(this: IExecuteFunctions, chunk: never) => Promise<ChunkState>>;
	// At most one chunk is prepared and quoted ahead: quotes age, and preparations count against PENDING_UPLOAD_LIMIT.
	submitStage?: number;
}

export class Later {
	constructor(readonly promise: Promise<ItemResult>) {
		// The engine attaches its handlers when the lane hands this over; never an unhandled rejection meanwhile.
		promise.catch(() => undefined);
	}
}

export type OperationModule = ItemOperation | BatchOperation;

// After a failure no stage starts, so no batch is charged for a run that will fail; no request outlives the node.
export async function runPipeline(
	run: Run,
	{ stages, submitStage = stages.length - 1 }: Pick<BatchOperation, 'stages' | 'submitStage'>,
	chunks: number[][],
	continueOnFail: boolean,
	checked: ReadonlyMap<number, unknown> = new Map(),
): Promise<Array<Outcome<ChunkState>>> {
	let stopped = false;
	const tails: Array<Promise<unknown>> = stages.map(async () => {});
	const passedSubmit: Array<Promise<unknown>> = [];
	const checkedOf = (itemIndex: number) => checked.get(itemIndex);
	const finished = chunks.map(async (itemIndexes, k) => {
		const outcomes = itemIndexes.map(() => ({}));
		const value = { run, itemIndexes, outcomes, checked: itemIndexes.map(checkedOf) };
		let current: Promise<Outcome<ChunkState>> = Promise.resolve({ ok: true, value });
		// Bounded: chunk k starts once chunk k - 2 has been submitted, so one chunk at most waits prepared and quoted.
		const gate = k >= 2 ? passedSubmit[k - 2] : Promise.resolve();
		stages.forEach((stage, index) => {
			const previous = current;
			const turn = tails[index];
			current = (async (): Promise<Outcome<ChunkState>> => {
				const state = await previous;
				if (index === 0) await gate;
				await turn;
				if (!state.ok || stopped) return state;
				const next = await outcomeOf(
					async () => await (stage as PipelineStage).call(run.ctx, state.value),
				);
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

// Resource and operation are read per item: an expression may send items to different operations.
export async function runNode(
	this: IExecuteFunctions,
	resources: Record<string, Record<string, OperationModule>>,
): Promise<INodeExecutionData[][]> {
	const run = new Run(this);
	const items = this.getInputData();
	const outputs: INodeExecutionData[][] = items.map(() => []);
	const continueOnFail = this.continueOnFail();
	const errorOutput = this.getNode().onError === 'continueErrorOutput';

	const fail = (itemIndex: number, error: unknown): void => {
		const { nodeError, fileName, message } = locatedError(this, error, itemIndex);
		const info = apiErrorInfo(nodeError);
		if (!continueOnFail) {
			// A 401 or 403 concerns every item alike, so it gets no advice to let the other items through.
			const alike = items.length < 2 || info?.status === 401 || info?.status === 403;
			nodeError.message = alike
				? message
				: `${message}. To let the other ${fileName ? 'files' : 'items'} through, set this node's Settings > On Error to "Continue" or "Continue (using error output)" (this one then becomes an error item)`;
			throw nodeError;
		}
		const facts: IDataObject = {
			...(fileName ? { fileName } : {}),
			...(nodeError.description ? { description: nodeError.description } : {}),
			...(info ? { httpCode: info.status, code: info.code } : {}),
			...(info?.reason ? { reason: info.reason } : {}),
			...(info?.requestId ? { requestId: info.requestId } : {}),
		};
		// n8n moves an item to the error output only if its json is just error, message and details: facts go in details.
		const json = errorOutput ? { error: message, details: facts } : { error: message, ...facts };
		outputs[itemIndex] = [{ json, pairedItem: { item: itemIndex } }];
	};

	const groups = new Map<OperationModule, number[]>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const resource = this.getNodeParameter('resource', itemIndex) as string;
		const operation = this.getNodeParameter('operation', itemIndex) as string;
		const module = resources[resource]?.[operation];
		if (!module) {
			const unknown = `The operation "${operation}" is not known for resource "${resource}"`;
			fail(itemIndex, new NodeOperationError(this.getNode(), unknown, { itemIndex }));
			continue;
		}
		groups.set(module, [...(groups.get(module) ?? []), itemIndex]);
	}

	// The whole input is checked before the first write, so a bad item stops the node before any item is charged.
	const checked = new Map<number, unknown>();
	for (const [module, indexes] of groups) {
		if (!module.check) continue;
		const keys = new Map<string, number>();
		for (const itemIndex of indexes) {
			try {
				const result = await module.check.call(this, itemIndex, run);
				const userKey = itemUserKey(this, itemIndex);
				const earlier = userKey === undefined ? undefined : keys.get(userKey);
				if (earlier !== undefined)
					throw duplicateKeyError(this, userKey as string, earlier, itemIndex);
				if (userKey !== undefined) keys.set(userKey, itemIndex);
				checked.set(itemIndex, result);
			} catch (error) {
				fail(itemIndex, error);
			}
		}
		const valid = indexes.filter((itemIndex) => checked.has(itemIndex));
		groups.set(module, valid);
	}

	for (const [module, indexes] of groups) {
		if (indexes.length === 0) continue;
		if (module.mode === 'batch') {
			const chunks = Array.from({ length: Math.ceil(indexes.length / BATCH_CHUNK_SIZE) }, (_, k) =>
				indexes.slice(k * BATCH_CHUNK_SIZE, (k + 1) * BATCH_CHUNK_SIZE),
			);
			const settled = await runPipeline(run, module, chunks, continueOnFail, checked);
			settled.forEach((chunk, k) => {
				chunks[k].forEach((itemIndex, position) => {
					if (!chunk.ok) return fail(itemIndex, chunk.error);
					const outcome = chunk.value.outcomes[position];
					if (outcome instanceof Error) fail(itemIndex, outcome);
					else outputs[itemIndex] = toItems(outcome ?? {}, itemIndex);
				});
			});
			continue;
		}

		// A Later frees its lane at once (shared waits: engine/capacity.ts); after a failure the other waits end first.
		const waits: Array<Promise<void>> = [];
		let stop: { error: unknown } | undefined;
		// `fail` throws when the node stops at this item: the other lanes and waits then end.
		const failOrStop = (itemIndex: number, error: unknown): void => {
			if (stop) return;
			try {
				fail(itemIndex, error);
			} catch (nodeError) {
				stop = { error: nodeError };
				void run.endWaiting(nodeError);
			}
		};
		const asked = Number(this.getNodeParameter('options.concurrency', indexes[0], 20));
		const lanes = Number.isFinite(asked) && asked >= 1 ? Math.min(Math.floor(asked), 20) : 20;
		try {
			await mapWithConcurrency(indexes, lanes, async (itemIndex) => {
				if (stop) return;
				try {
					const result = await module.execute.call(this, itemIndex, checked.get(itemIndex), run);
					const settled = result instanceof Later ? result.promise : Promise.resolve(result);
					waits.push(
						settled.then(
							(value) => void (outputs[itemIndex] = toItems(value, itemIndex)),
							(error: unknown) => failOrStop(itemIndex, error),
						),
					);
				} catch (error) {
					failOrStop(itemIndex, error);
				}
			});
			await Promise.all(waits);
		} finally {
			await run.endWaiting(stop?.error);
		}
		if (stop) throw stop.error;
	}

	const output = outputs.flat();
	if (output.some((item) => item.json.recovered === true)) run.addNotice('recovered');
	return [output];
}

export function toItems(result: ItemResult, itemIndex: number): INodeExecutionData[] {
	return (Array.isArray(result) ? result : [result]).map((entry) =>
		typeof entry.json === 'object'
			? { ...(entry as INodeExecutionData), pairedItem: { item: itemIndex } }
			: { json: entry as IDataObject, pairedItem: { item: itemIndex } },
	);
}

// n8n's own messages end in " [item N]" counted from 0; ours count as the editor does, and name the item's file.
function locatedError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	const thrown = error instanceof Error ? error.message : String(error);
	const nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(ctx.getNode(), thrown, { itemIndex });
	if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
	let fileName: string | undefined;
	try {
		const item = ctx.getInputData()[itemIndex];
		const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const property = ctx.getNodeParameter('binaryPropertyName', itemIndex, '') as string;
		const candidates = [
			options?.fileName,
			property ? item?.binary?.[property]?.fileName : undefined,
			item?.json?.fileName,
		];
		const found = candidates.find((value) => typeof value === 'string' && value.trim() !== '');
		if (typeof found === 'string') fileName = found.trim();
	} catch {
		// A parameter whose expression fails has its own error; the location then carries the item number only.
	}
	const text = nodeError.message.replace(/ \[item \d+\]$/, '');
	const file = fileName && !text.includes(fileName) ? `, ${fileName}` : '';
	return { nodeError, fileName, message: `${text} [item ${itemIndex + 1}${file}]` };
}
