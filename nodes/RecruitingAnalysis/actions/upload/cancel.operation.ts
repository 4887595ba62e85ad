import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { concurrencyOption, optionsCollection, reportLocator } from '../common/descriptions';
import { idParam } from '../common/checks';

const properties: INodeProperties[] = [
	...reportLocator('ID of the report whose prepared upload should be removed (starts with rpt_)'),
	optionsCollection([concurrencyOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['cancel'] } },
	properties,
);

/** Frees preparation capacity; repeating it for an absent preparation is safe, an admitted one answers 409. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	await api(this, {
		method: 'DELETE',
		path: apiPath('/api/v1/uploads/{}', reportId),
		expectEmpty: true,
		itemIndex,
	});
	return { reportId, cancelled: true };
}
