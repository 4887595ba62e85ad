import { operationSelector } from '../common/descriptions';
import * as getMany from './getMany.operation';

export const operations = { getMany };

export const selector = operationSelector('event', 'getMany', [
	{
		name: 'Get Many',
		value: 'getMany',
		description: 'Read recent events, such as finished reports and interviews',
		action: 'Get many events',
	},
]);
