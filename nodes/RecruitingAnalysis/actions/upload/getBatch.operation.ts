import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { getBatch } from '../shared/batch';
import { batchIdField } from '../shared/descriptions';
import { stringParam } from '../shared/params';
import { checkId } from '../shared/validate';

const properties: INodeProperties[] = [batchIdField()];

export const description = updateDisplayOptions({ show: { resource: ['upload'], operation: ['getBatch'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const batchId = checkId(this, stringParam(this, 'batchId', itemIndex), itemIndex, 'Batch ID');
	return await getBatch(this, 'uploads', batchId, itemIndex);
}
