import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiAll } from '../../transport';
import {
	limitField,
	returnAllField,
	simplifyField,
	simplifyJobDescription,
} from '../common/descriptions';
import { checkListSize } from '../common/checks';

export const description: INodeProperties[] = [
	returnAllField,
	limitField,
	{
		...simplifyField,
		description:
			'Whether to return only ID, title, company, location, status, revision and update time of each job (no description text)',
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const jobs = await apiAll(this, {
		method: 'GET',
		path: '/api/v1/job-descriptions',
		...checkListSize(this, itemIndex),
		itemIndex,
	});
	return this.getNodeParameter('simplify', itemIndex, false) === true
		? jobs.map(simplifyJobDescription)
		: jobs;
}
