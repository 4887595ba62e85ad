import { updateDisplayOptions, type IExecuteFunctions } from 'n8n-workflow';

import { apiAll } from '../../transport';
import {
	limitField,
	returnAllField,
	simplifyField,
	simplifyJobDescription,
} from '../common/descriptions';
import { validateTotalLimit } from '../../validation';

export const description = updateDisplayOptions(
	{ show: { resource: ['jobDescription'], operation: ['getMany'] } },
	[
		returnAllField,
		limitField,
		{
			...simplifyField,
			description:
				'Whether to return only ID, title, company, location, status, revision and update time of each job (no description text)',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? undefined
		: validateTotalLimit.call(this, this.getNodeParameter('limit', itemIndex, 50), itemIndex);
	const jobs = await apiAll(this, {
		method: 'GET',
		path: '/api/v1/job-descriptions',
		returnAll,
		limit,
		itemIndex,
	});
	return this.getNodeParameter('simplify', itemIndex, false) === true
		? jobs.map(simplifyJobDescription)
		: jobs;
}
