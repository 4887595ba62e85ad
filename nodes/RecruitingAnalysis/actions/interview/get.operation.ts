import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import {
	concurrencyOption,
	interviewAxesNotice,
	optionsCollection,
	interviewLocator,
} from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	interviewAxesNotice,
	...interviewLocator(),
	optionsCollection([concurrencyOption]),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const interview = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/interviews/{}', interviewId),
		itemIndex,
	});
	noticesForInterview(run, interview);
	return withCandidateName(
		interview,
		await candidateNameFor(this, run, itemIndex, interview.reportId),
	);
}
