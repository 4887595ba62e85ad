import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import {
	concurrencyOption,
	humanReviewNotice,
	optionsCollection,
	reportLocator,
} from '../common/descriptions';
import { noticesForReport } from '../../floor/notices';
import { idParam } from '../common/checks';

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
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	const status = await api(this, {
		method: 'GET',
		path: apiPath('/api/v1/reports/{}/status', reportId),
		itemIndex,
	});
	noticesForReport(this, status);
	return status;
}
