import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

/** What an operation gives back for one input item: plain JSON objects, or ready n8n items. */
export type ItemResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** An operation that runs once per input item (the engine runs these with bounded concurrency). */
export interface ItemOperation {
	description: INodeProperties[];
	/** A `Later` when the item's result is awaited together with the other items' (Wait for Completion). */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<ItemResult | Later>;
	/**
	 * Checks an item's whole input (and the user's key for it) without sending anything. Operations that charge or
	 * create define it: the engine checks every item first, so a bad item stops the node before any item is charged.
	 */
	check?(this: IExecuteFunctions, itemIndex: number): Promise<unknown>;
	mode?: undefined;
}

/** One outcome per input item of a chunk, in the chunk's order (an Error for an item that failed on its own). */
export type ChunkOutcomes = Array<IDataObject | Error>;

/** A chunk of up to BATCH_CHUNK_SIZE input items on its way through a pipelined batch operation. */
export interface ChunkState {
	itemIndexes: number[];
	/** One per item, in the chunk's order: filled in stage by stage (an Error for an item that failed on its own). */
	outcomes: ChunkOutcomes;
}

/** One stage of a pipelined batch operation: takes the chunk as the previous stage left it. */
export type PipelineStage = (this: IExecuteFunctions, chunk: ChunkState) => Promise<ChunkState>;

/** A stage written for an operation's own chunk type (which extends ChunkState). */
export function stage<S extends ChunkState>(
	run: (this: IExecuteFunctions, chunk: S) => Promise<S>,
): PipelineStage {
	return run as unknown as PipelineStage;
}

/**
 * An operation that uses one of the API's batch endpoints: the engine hands it the input items in chunks of up to
 * BATCH_CHUNK_SIZE and runs its stages as a pipeline, so that chunks overlap: while chunk k is in stage i + 1,
 * chunk k + 1 is in stage i (for example: the next upload batch is created while this chunk's files are PUT; the
 * next chunk is quoted while this analysis batch runs). Each stage handles one chunk at a time, in chunk order,
 * so the API's one active batch per kind holds as long as a batch is created and awaited inside one stage.
 */
export interface BatchOperation {
	description: INodeProperties[];
	mode: 'batch';
	stages: PipelineStage[];
	/** As ItemOperation.check: the engine checks every item before the first chunk starts. */
	check?(this: IExecuteFunctions, itemIndex: number): Promise<unknown>;
	/**
	 * The stage that submits (charges) a chunk; the stages before it prepare and quote. A chunk starts only when
	 * the chunk two places before it has left this stage: at most one chunk is prepared and quoted ahead of the
	 * submission (quotes age, preparations count against PENDING_UPLOAD_LIMIT). Default: the last stage.
	 */
	submitStage?: number;
}

/** An item result that is still being waited for: the lane that made it is free. */
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

/** The spec's batch size limit (1 to 20 items per batch request). */
export const BATCH_CHUNK_SIZE = 20;
