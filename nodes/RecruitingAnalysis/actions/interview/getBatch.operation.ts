import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { getBatch } from '../../engine/batch';
import { batchIdField } from '../common/descriptions';
import { idParam } from '../common/checks';

const properties: INodeProperties[] = [batchIdField()];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getBatch'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const batchId = idParam(this, 'batchId', itemIndex, 'Batch ID');
	return await getBatch(this, 'interviews', batchId, itemIndex);
}
