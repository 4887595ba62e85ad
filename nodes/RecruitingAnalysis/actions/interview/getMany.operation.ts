import type { INodeProperties } from 'n8n-workflow';

import { interviewLifecycleSchema, validateId, validateInput } from '../../validation';
import { apiAll } from '../../transport';
import {
	externalReferenceOptions,
	filtersCollection,
	limitField,
	returnAllField,
} from '../common/descriptions';
import { noticesForInterview } from '../../engine/notices';
import { optionString, optionsParam } from '../common/params';
import { checkExternalReference, checkListSize } from '../common/checks';
import type { ItemOperation } from '../../engine/run';

export const description: INodeProperties[] = [
	returnAllField,
	limitField,
	filtersCollection([
		...externalReferenceOptions,
		{
			displayName: 'Lifecycle',
			name: 'lifecycle',
			type: 'options',
			options: [
				{ name: 'Completed', value: 'completed' },
				{ name: 'Expired', value: 'expired' },
				{ name: 'In Progress', value: 'in_progress' },
				{ name: 'Invited', value: 'invited' },
				{ name: 'Superseded', value: 'superseded' },
			],
			default: 'invited',
			description: 'Only interviews in this lifecycle state',
		},
		{
			displayName: 'Report ID',
			name: 'reportId',
			type: 'string',
			default: '',
			placeholder: 'rpt_...',
			description: 'Only interviews of this report',
		},
	]),
];

export const execute: ItemOperation['execute'] = async function (itemIndex, _checked, run) {
	const size = checkListSize(this, itemIndex);
	const filters = optionsParam(this, itemIndex, 'filters');
	const reportId = optionString(filters, 'reportId');
	if (reportId !== undefined) validateId.call(this, reportId, itemIndex, 'Report ID');
	// The spec lists every lifecycle value: an unknown one (e.g. from an expression) is refused before any request.
	const lifecycle = optionString(filters, 'lifecycle');
	if (lifecycle !== undefined)
		validateInput.call(this, interviewLifecycleSchema, lifecycle, itemIndex, 'Lifecycle');
	const reference = checkExternalReference(this, filters, itemIndex);
	const interviews = await apiAll(this, {
		method: 'GET',
		path: '/api/v1/interviews',
		qs: { reportId, lifecycle, ...reference },
		...size,
		itemIndex,
	});
	for (const interview of interviews) noticesForInterview(run, interview);
	return interviews;
};
