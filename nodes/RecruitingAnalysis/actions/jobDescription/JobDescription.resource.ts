import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../shared/types';
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
				description: 'Get a saved job description and its current revision',
				action: 'Get a job description',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List the saved job descriptions of the workspace',
				action: 'Get many job descriptions',
			},
		],
		default: 'getMany',
	},
	...get.description,
	...getMany.description,
];
