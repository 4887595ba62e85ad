import { updateDisplayOptions, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { interviewLocator, simplifyInterviewResult } from '../common/descriptions';
import { noticesForInterview } from '../../floor/notices';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import { readResult, resultProperties } from '../common/resultRead';

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getResult'] } },
	resultProperties(
		interviewLocator(),
		'the axes, decision, recommendation, summary, scores and limitations',
	),
);

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const { result, simplify } = await readResult(
		this,
		itemIndex,
		apiPath('/api/v1/interviews/{}/result', interviewId),
	);
	noticesForInterview(this, result);
	const name = await candidateNameFor(this, itemIndex, result.reportId);
	return withCandidateName(simplify ? simplifyInterviewResult(result) : result, name);
}
