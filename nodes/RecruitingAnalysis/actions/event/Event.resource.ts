import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/run';
import * as getMany from './getMany.operation';

export const operations: Record<string, OperationModule> = { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['event'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'Read recent events, such as finished reports and interviews',
				action: 'Get many events',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
