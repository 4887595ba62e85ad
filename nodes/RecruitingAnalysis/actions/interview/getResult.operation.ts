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
import { interviewLocator } from '../common/locators';
import { noticesForInterview } from '../../floor/notices';
import { optionString, optionsParam } from '../common/params';
import { simplifyInterviewResult } from '../common/simplify';
import { idParam } from '../common/checks';
import { candidateNameFor, withCandidateName } from '../common/candidateName';

const properties: INodeProperties[] = [
	unmeasuredNotice,
	...interviewLocator(),
	{
		...simplifyField,
		description:
			'Whether to keep only the axes, decision, recommendation, summary, scores and limitations',
	},
	optionsCollection([concurrencyOption, schemaVersionOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['getResult'] } },
	properties,
);

/**
 * The evaluation of an interview attempt; result is null until evaluation is ready. Transcripts are never returned.
 * The output names the candidate (`candidateName`, common/candidateName.ts).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const options = optionsParam(this, itemIndex);
	const schemaVersion = validateSchemaVersion.call(
		this,
		optionString(options, 'schemaVersion') ?? '1',
		itemIndex,
	);
	const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
	const result = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/interviews/{}/result', interviewId),
		qs: { schemaVersion },
		itemIndex,
	});
	noticesForInterview(this, result);
	const name = await candidateNameFor(this, itemIndex, result.reportId);
	return withCandidateName(simplify ? simplifyInterviewResult(result) : result, name);
}
