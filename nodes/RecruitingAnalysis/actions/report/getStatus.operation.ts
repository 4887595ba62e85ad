import { humanReviewNotice } from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { getStatusOperation } from '../common/readOperations';

export const { description, execute } = getStatusOperation(
	'report',
	humanReviewNotice,
	noticesForReport,
);
