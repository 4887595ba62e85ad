import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiAll } from '../shared/api';
import { limitField, returnAllField } from '../shared/descriptions';
import { checkLimit } from '../shared/validate';

const properties: INodeProperties[] = [returnAllField, limitField];

export const description = updateDisplayOptions({ show: { resource: ['jobDescription'], operation: ['getMany'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	if (limit !== undefined) checkLimit(this, limit, itemIndex);
	return await apiAll(this, {
		method: 'GET',
		path: '/api/v1/job-descriptions',
		returnAll,
		limit,
		itemIndex,
	});
}
