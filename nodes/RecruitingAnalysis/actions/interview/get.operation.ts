import type { INodeProperties } from 'n8n-workflow';

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
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	interviewAxesNotice,
	...interviewLocator(),
	optionsCollection([concurrencyOption]),
];

export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const interview = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/interviews/{}', interviewId),
		itemIndex,
	});
	noticesForInterview(run, interview);
	const name = await candidateNameFor(this, run, itemIndex, interview.reportId);
	return withCandidateName(interview, name);
};
