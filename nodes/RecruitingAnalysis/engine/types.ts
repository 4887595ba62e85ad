import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

export type ItemResult = IDataObject | IDataObject[] | INodeExecutionData[];

export interface ItemOperation {
	description: INodeProperties[];
	// `checked` is what `check` returned for this item: the work is handed over, not done twice.
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		checked?: unknown,
	): Promise<ItemResult | Later>;
	// The engine checks every item first, so a bad item stops the node before any item is charged.
	check?(this: IExecuteFunctions, itemIndex: number): Promise<unknown>;
	mode?: undefined;
}

export type ChunkOutcomes = Array<IDataObject | Error>;

export interface ChunkState {
	itemIndexes: number[];
	outcomes: ChunkOutcomes;
	// What `check` returned for each item, by position: the stages take it over instead of reading the items again.
	checked?: unknown[];
}

export type PipelineStage = (this: IExecuteFunctions, chunk: ChunkState) => Promise<ChunkState>;

export function stage<S extends ChunkState>(
	run: (this: IExecuteFunctions, chunk: S) => Promise<S>,
): PipelineStage {
	return run as unknown as PipelineStage;
}

// Stages take chunks in order: the API's one active batch per kind holds if one stage creates and awaits a batch.
export interface BatchOperation {
	description: INodeProperties[];
	mode: 'batch';
	stages: PipelineStage[];
	check?(this: IExecuteFunctions, itemIndex: number): Promise<unknown>;
	// At most one chunk is prepared and quoted ahead: quotes age, and preparations count against PENDING_UPLOAD_LIMIT.
	submitStage?: number;
}

export class Later {
	constructor(readonly promise: Promise<ItemResult>) {
		// The engine attaches its handlers when the lane hands this over; never an unhandled rejection meanwhile.
		promise.catch(() => undefined);
	}
}

export function later(promise: Promise<ItemResult>): Later {
	return new Later(promise);
}
export type OperationModule = ItemOperation | BatchOperation;

export const BATCH_CHUNK_SIZE = 20;
