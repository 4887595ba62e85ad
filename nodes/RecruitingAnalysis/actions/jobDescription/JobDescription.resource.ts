import { operationSelector } from '../common/descriptions';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export const operations = { get, getMany };

export const selector = operationSelector('jobDescription', 'getMany', [
	{
		name: 'Get',
		value: 'get',
		description: 'Read one saved job with its full description',
		action: 'Get a job description',
	},
	{
		name: 'Get Many',
		value: 'getMany',
		description: 'List the saved jobs, and which accept resumes',
		action: 'Get many job descriptions',
	},
]);
