import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/types';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export const operations: Record<string, OperationModule> = { get, getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['jobDescription'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Use to read one saved job (title, company, full description, current revision). Needs the saved job ID; scope job-descriptions:read.',
				action: 'Get a job description',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'Use to find which saved jobs exist (and which are ACTIVE) before analyzing resumes against one. Needs nothing; scope job-descriptions:read.',
				action: 'Get many job descriptions',
			},
		],
		default: 'getMany',
	},
	...get.description,
	...getMany.description,
];
