import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import {
	concurrencyOption,
	interviewAxesNotice,
	optionsCollection,
	interviewLocator,
} from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { idParam } from '../common/checks';
import type { Run } from '../../engine/run';

const properties: INodeProperties[] = [
	interviewAxesNotice,
	...interviewLocator(),
	optionsCollection([concurrencyOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getStatus'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const interview = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/interviews/{}/status', interviewId),
		itemIndex,
	});
	noticesForInterview(run, interview);
	return interview;
}
