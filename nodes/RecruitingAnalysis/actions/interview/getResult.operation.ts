import { updateDisplayOptions, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { interviewLocator, simplifyInterviewResult } from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import { readResult, resultProperties } from '../common/resultRead';
import type { Run } from '../../engine/run';

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getResult'] } },
	resultProperties(
		interviewLocator(),
		'the axes, decision, recommendation, summary, scores and limitations',
	),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const { result, simplify } = await readResult(
		this,
		itemIndex,
		apiPath('/api/v1/interviews/{}/result', interviewId),
	);
	noticesForInterview(run, result);
	const name = await candidateNameFor(this, run, itemIndex, result.reportId);
	return withCandidateName(simplify ? simplifyInterviewResult(result) : result, name);
}
