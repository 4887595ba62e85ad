import { interviewAxesNotice } from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { getStatusOperation } from '../common/readOperations';

export const { description, execute } = getStatusOperation(
	'interview',
	interviewAxesNotice,
	noticesForInterview,
);
