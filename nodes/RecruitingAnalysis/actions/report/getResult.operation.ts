import { simplifyReportResult } from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { getResultOperation } from '../common/readOperations';

export const { description, execute } = getResultOperation({
	resource: 'report',
	keeps: 'the score, its scale, the summary, the human review recommendation and the limitations',
	notices: (run, result) => noticesForReport(run, result, { limitations: true }),
	simplified: simplifyReportResult,
	reportIdOf: (reportId) => reportId,
});
