import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { validateSchemaVersion } from '../../validation';
import { api } from '../../transport/api';
import {
	concurrencyOption,
	optionsCollection,
	schemaVersionOption,
	simplifyField,
	unmeasuredNotice,
} from '../common/descriptions';
import { reportLocator } from '../common/locators';
import { noticesForReport } from '../../floor/notices';
import { optionString, optionsParam } from '../common/params';
import { simplifyReportResult } from '../common/simplify';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';

const properties: INodeProperties[] = [
	unmeasuredNotice,
	...reportLocator(),
	{
		...simplifyField,
		description:
			'Whether to keep only the score, its scale, the summary, the human review recommendation and the limitations',
	},
	optionsCollection([concurrencyOption, schemaVersionOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['getResult'] } },
	properties,
);

/**
 * The detailed evidence result, with the candidate's name. Read it after status completed (or report.result_ready);
 * null result means pending or failed.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const options = optionsParam(this, itemIndex);
	const schemaVersion = validateSchemaVersion.call(
		this,
		optionString(options, 'schemaVersion') ?? '1',
		itemIndex,
	);
	const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
	const result = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/reports/{}/result', reportId),
		qs: { schemaVersion },
		itemIndex,
	});
	noticesForReport(this, result, { limitations: true });
	// The result holds no candidate: the name comes from the input item or the report summary (common/candidateName.ts).
	const name = await candidateNameFor(this, itemIndex, reportId);
	return withCandidateName(simplify ? simplifyReportResult(result) : result, name);
}
