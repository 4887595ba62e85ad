import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { concurrencyOption, optionsCollection, reportLocator } from '../common/descriptions';
import { idParam } from '../common/checks';
import { refreshUploadUrl } from './resumeUpload';

const properties: INodeProperties[] = [
	...reportLocator('ID of the report whose upload was prepared (starts with rpt_)'),
	optionsCollection([concurrencyOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['refreshUrl'] } },
	properties,
);

/** New signed URL for a prepared upload that is not yet admitted (the 24-hour preparation lifetime is not extended). */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const reportId = idParam(this, 'reportId', itemIndex, 'Report ID');
	return await refreshUploadUrl(this, itemIndex, reportId);
}
