import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../shared/types';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';

export const operations: Record<string, OperationModule> = { get, getMany, getResult, getStatus };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['report'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get the summary of a report',
				action: 'Get a report',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List reports, newest first',
				action: 'Get many reports',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description: 'Get the detailed evidence result of a completed report',
				action: 'Get a report result',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the status of a report',
				action: 'Get a report status',
			},
		],
		default: 'get',
	},
	...get.description,
	...getMany.description,
	...getStatus.description,
	...getResult.description,
];
