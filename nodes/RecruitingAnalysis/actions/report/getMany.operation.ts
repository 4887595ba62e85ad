import type { INodeProperties } from 'n8n-workflow';

import { validateCreatedRange } from '../../validation';
import { apiAll } from '../../transport';
import { inTimezone } from './dates';
import {
	externalReferenceOptions,
	filtersCollection,
	limitField,
	optionsCollection,
	returnAllField,
	simplifyField,
	simplifyReportSummary,
} from '../common/descriptions';
import { noticesForReport } from '../../engine/notices';
import { optionString, optionsParam } from '../common/params';
import { checkExternalReference, checkListSize } from '../common/checks';
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	returnAllField,
	limitField,
	{
		...simplifyField,
		description:
			'Whether to return only ID, date, status, candidate name, job title, score and summary of each report',
	},
	filtersCollection([
		{
			displayName: 'Created After',
			name: 'createdAfter',
			type: 'dateTime',
			default: '',
			description:
				"Only reports created after this moment (exclusive). A value without a timezone is read in the workflow's timezone; a date alone means the start of that day.",
		},
		{
			displayName: 'Created Before',
			name: 'createdBefore',
			type: 'dateTime',
			default: '',
			description:
				"Only reports created before this moment (exclusive); must be later than Created After. A value without a timezone is read in the workflow's timezone; a date alone means the start of that day.",
		},
		...externalReferenceOptions,
	]),
	optionsCollection([
		{
			displayName: 'Include External Reference',
			name: 'includeReference',
			type: 'boolean',
			default: false,
			description: 'Whether to include the external reference (your application ID) of each report',
		},
	]),
];

export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const size = checkListSize(this, itemIndex);
	const filters = optionsParam(this, itemIndex, 'filters');
	const reference = checkExternalReference(this, filters, itemIndex);
	const zoned = (name: string) => inTimezone(optionString(filters, name), this.getTimezone());
	const range = validateCreatedRange.call(
		this,
		{ createdAfter: zoned('createdAfter'), createdBefore: zoned('createdBefore') },
		itemIndex,
	);
	const reports = await apiAll(this, {
		method: 'GET',
		path: '/api/v1/reports',
		// The transport drops the parameters left unset.
		qs: {
			...reference,
			...range,
			include: optionsParam(this, itemIndex).includeReference === true ? 'reference' : undefined,
		},
		...size,
		itemIndex,
	});
	for (const report of reports) noticesForReport(run, report);
	return this.getNodeParameter('simplify', itemIndex, false) === true
		? reports.map(simplifyReportSummary)
		: reports;
};
