import type { INodeProperties } from 'n8n-workflow';

export const ACTION_NODE_VERSION = 1;

const ID_RULE = {
	type: 'regex',
	properties: {
		regex: '^\\S.{0,99}$',
		errorMessage: 'An ID is 1 to 100 characters, without leading spaces',
	},
};

interface LocatorSpec {
	name: string;
	displayName: string;
	description: string;
	placeholder: string;
	searchListMethod: string;
	listHint: string;
}

function idLocator(
	spec: LocatorSpec,
	show: Record<string, Array<string | boolean>> = {},
): INodeProperties[] {
	const locator: INodeProperties = {
		displayName: spec.displayName,
		name: spec.name,
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description: spec.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				hint: spec.listHint,
				typeOptions: { searchListMethod: spec.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: spec.placeholder,
				validation: [ID_RULE],
			},
		],
		...(Object.keys(show).length > 0 ? { displayOptions: { show } } : {}),
	};
	return [locator];
}

export function savedJobLocator(
	labels: {
		displayName: string;
		description: string;
	},
	show: Record<string, Array<string | boolean>> = {},
): INodeProperties[] {
	return idLocator(
		{
			name: 'jobDescriptionId',
			...labels,
			placeholder: 'jd_...',
			searchListMethod: 'searchJobDescriptions',
			listHint:
				'Type to filter by title, company or location. Jobs that are not ACTIVE are marked and refused for uploads.',
		},
		show,
	);
}

export function reportLocator(
	description = 'ID of the report (starts with rpt_)',
): INodeProperties[] {
	return idLocator({
		name: 'reportId',
		displayName: 'Report',
		description,
		placeholder: 'rpt_...',
		searchListMethod: 'searchReports',
		listHint: 'Most recent first. Type to filter by candidate, job or ID.',
	});
}

export function interviewLocator(
	description = 'ID of the interview attempt (starts with int_), not the report ID',
): INodeProperties[] {
	return idLocator({
		name: 'interviewId',
		displayName: 'Interview',
		description,
		placeholder: 'int_...',
		searchListMethod: 'searchInterviews',
		listHint: 'Most recent first. Type to filter by ID, report or state.',
	});
}
