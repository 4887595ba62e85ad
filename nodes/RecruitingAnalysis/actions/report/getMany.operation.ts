import { updateDisplayOptions, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { validateCreatedRange, validateExternalReferenceFilter } from '../../validation';
import { apiAll } from '../shared/api';
import { externalReferenceOptions, limitField, optionsCollection, returnAllField } from '../shared/descriptions';
import { noticesForReport } from '../shared/hints';
import { compactQuery, optionString, optionsParam } from '../shared/params';
import { checkLimit } from '../shared/validate';

const properties: INodeProperties[] = [
	returnAllField,
	limitField,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'Only reports created after this moment (exclusive). A value without a timezone is read as UTC.',
			},
			{
				displayName: 'Created Before',
				name: 'createdBefore',
				type: 'dateTime',
				default: '',
				description: 'Only reports created before this moment (exclusive); must be later than Created After. A value without a timezone is read as UTC.',
			},
			...externalReferenceOptions,
		],
	},
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

export const description = updateDisplayOptions({ show: { resource: ['report'], operation: ['getMany'] } }, properties);

/** n8n's dateTime picker gives local times without a zone; the API needs one, so those are read as UTC. */
function withTimezone(value: string | undefined): string | undefined {
	if (!value) return undefined;
	return /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
}

/** Reports of the workspace, newest first, with filters; Return All follows the cursor to the end. */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : checkLimit(this, this.getNodeParameter('limit', itemIndex, 50), itemIndex);
	const filters = optionsParam(this, itemIndex, 'filters');
	const options = optionsParam(this, itemIndex);
	const reference = validateExternalReferenceFilter.call(
		this,
		{
			externalReferenceSource: optionString(filters, 'externalReferenceSource'),
			externalReferenceId: optionString(filters, 'externalReferenceId'),
		},
		itemIndex,
	);
	const range = validateCreatedRange.call(
		this,
		{
			createdAfter: withTimezone(optionString(filters, 'createdAfter')),
			createdBefore: withTimezone(optionString(filters, 'createdBefore')),
		},
		itemIndex,
	);
	const qs: IDataObject = compactQuery({
		...reference,
		...range,
		include: options.includeReference === true ? 'reference' : undefined,
	});
	const reports = await apiAll(this, {
		method: 'GET',
		path: '/api/v1/reports',
		qs,
		returnAll,
		limit,
		itemIndex,
	});
	for (const report of reports) noticesForReport(this, report);
	return reports;
}
