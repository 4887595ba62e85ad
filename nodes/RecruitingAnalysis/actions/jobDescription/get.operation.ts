import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { api } from '../shared/api';
import { idParam } from '../shared/validate';

const properties: INodeProperties[] = [
	{
		displayName: 'Job Description ID',
		name: 'jobDescriptionId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'jd_...',
		description: 'ID of the saved job description (starts with jd_)',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['jobDescription'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const jobDescriptionId = idParam(this, 'jobDescriptionId', itemIndex, 'Job Description ID');
	return await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/job-descriptions/{}', jobDescriptionId),
		itemIndex,
	});
}
