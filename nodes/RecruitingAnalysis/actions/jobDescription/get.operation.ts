import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { savedJobLocator } from '../common/descriptions';
import { idParam } from '../common/checks';

const properties: INodeProperties[] = [
	...savedJobLocator({
		displayName: 'Job Description',
		description: 'The saved job description',
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['jobDescription'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const jobDescriptionId = idParam(this, 'jobDescriptionId', itemIndex, 'Job Description ID');
	return await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/job-descriptions/{}', jobDescriptionId),
		itemIndex,
	});
}
