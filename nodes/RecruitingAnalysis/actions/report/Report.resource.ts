import { operationSelector } from '../common/descriptions';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';

export const operations = { get, getMany, getResult, getStatus };

export const selector = operationSelector('report', 'get', [
	{
		name: 'Get',
		value: 'get',
		description: "Read a report's summary: candidate, job, status and score",
		action: 'Get a report',
	},
	{
		name: 'Get Many',
		value: 'getMany',
		description: 'Find reports, newest first',
		action: 'Get many reports',
	},
	{
		name: 'Get Result',
		value: 'getResult',
		description: 'Read the detailed evidence of a finished analysis',
		action: 'Get a report result',
	},
	{
		name: 'Get Status',
		value: 'getStatus',
		description: "Check whether a report's analysis has finished",
		action: 'Get a report status',
	},
]);
