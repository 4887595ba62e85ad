import { humanReviewNotice } from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { getStatusOperation } from '../common/readOperations';

/** Status, attempt and code: queued/processing (wait), completed, requires_action (human review) or failed. */
export const { description, execute } = getStatusOperation(
	'report',
	humanReviewNotice,
	noticesForReport,
);
