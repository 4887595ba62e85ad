import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** What an operation gives back for one input item: plain JSON objects, or ready n8n items. */
export type ItemResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** An operation that runs once per input item (the router runs these with bounded concurrency). */
export interface ItemOperation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<ItemResult>;
	mode?: undefined;
}

/**
 * An operation that uses one of the API's batch endpoints: the router hands it the indexes of up to
 * BATCH_CHUNK_SIZE input items at a time and expects one outcome per index, in the same order
 * (an Error for an item that failed on its own).
 */
export interface BatchOperation {
	description: INodeProperties[];
	mode: 'batch';
	execute(this: IExecuteFunctions, itemIndexes: number[]): Promise<Array<IDataObject | Error>>;
}

export type OperationModule = ItemOperation | BatchOperation;

/** The spec's batch size limit (1 to 20 items per batch request). */
export const BATCH_CHUNK_SIZE = 20;
