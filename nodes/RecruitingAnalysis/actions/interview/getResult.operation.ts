import { simplifyInterviewResult } from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { getResultOperation } from '../common/readOperations';

export const { description, execute } = getResultOperation({
	resource: 'interview',
	keeps: 'the axes, decision, recommendation, summary, scores and limitations',
	notices: noticesForInterview,
	simplified: simplifyInterviewResult,
	reportIdOf: (_interviewId, result) => result.reportId,
});
