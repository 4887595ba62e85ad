import type { IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { savedJobLocator } from '../common/descriptions';
import { idParam } from '../common/checks';

export const description = savedJobLocator({
	displayName: 'Job Description',
	description: 'The saved job description',
});

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const jobDescriptionId = idParam(this, 'jobDescriptionId', itemIndex, 'Job Description ID');
	return await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/job-descriptions/{}', jobDescriptionId),
		itemIndex,
	});
}
