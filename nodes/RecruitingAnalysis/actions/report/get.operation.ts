import type { INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { concurrencyOption, optionsCollection, reportLocator } from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { optionsParam } from '../common/params';
import { idParam } from '../common/checks';
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	...reportLocator(),
	optionsCollection([
		concurrencyOption,
		{
			displayName: 'Include External Reference',
			name: 'includeReference',
			type: 'boolean',
			default: false,
			description: 'Whether to include the external reference (your application ID) in the output',
		},
	]),
];

/** The report summary (status, candidate, job, compact result). A null result is not a zero score. */
export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const options = optionsParam(this, itemIndex);
	const report = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/reports/{}', reportId),
		qs: options.includeReference === true ? { include: 'reference' } : undefined,
		itemIndex,
	});
	noticesForReport(run, report);
	return report;
};
