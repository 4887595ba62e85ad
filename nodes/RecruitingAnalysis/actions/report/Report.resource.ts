import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/types';
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
				description:
					"Use to read a report's summary: candidate, job, status and score. Needs the report ID; scope reports:read.",
				action: 'Get a report',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'Use to find reports, newest first, for example those of one application or created in a date range. Needs nothing but optional filters; scope reports:read.',
				action: 'Get many reports',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description:
					'Use to read the detailed evidence of a completed analysis (rubric, highlights, follow-up questions, limitations). Needs the report ID; scope reports:read.',
				action: 'Get a report result',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description:
					"Use to check whether a report's analysis has finished (queued, processing, completed, requires_action, failed). Needs the report ID; scope reports:read.",
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
