import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import {
	concurrencyOption,
	humanReviewNotice,
	optionsCollection,
	reportLocator,
} from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { idParam } from '../common/checks';
import type { Run } from '../../engine/run';

const properties: INodeProperties[] = [
	humanReviewNotice,
	...reportLocator(),
	optionsCollection([concurrencyOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['getStatus'] } },
	properties,
);

/** Status, attempt and code of a report: queued/processing (wait), completed, requires_action (human review) or failed. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	_checked: unknown,
	run: Run,
) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const status = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/reports/{}/status', reportId),
		itemIndex,
	});
	noticesForReport(run, status);
	return status;
}
