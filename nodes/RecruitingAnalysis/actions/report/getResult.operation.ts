import { updateDisplayOptions, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { reportLocator, simplifyReportResult } from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import { readResult, resultProperties } from '../common/resultRead';
import type { Run } from '../../engine/run';

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['getResult'] } },
	resultProperties(
		reportLocator(),
		'the score, its scale, the summary, the human review recommendation and the limitations',
	),
);

/**
 * The detailed evidence result, with the candidate's name. Read it after status completed (or report.result_ready);
 * null result means pending or failed.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const { result, simplify } = await readResult(
		this,
		itemIndex,
		apiPath('/api/v1/reports/{}/result', reportId),
	);
	noticesForReport(run, result, { limitations: true });
	// The result holds no candidate: the name comes from the input item or the report summary (common/candidateName.ts).
	const name = await candidateNameFor(this, run, itemIndex, reportId);
	return withCandidateName(simplify ? simplifyReportResult(result) : result, name);
}
