import type { INodeProperties } from 'n8n-workflow';

/**
 * ID parameters of the action node, as resource locators (From List, By ID). The readers (`stringParam`, and so
 * `idParam`) accept either shape: a plain string (an expression's result) or `{__rl, mode, value}`.
 */

/** The action node's one version (docs/versioning.md). */
export const ACTION_NODE_VERSION = 1;

/** The spec's rule for resource IDs in a path: 1 to 100 characters (opaque, no other rule). */
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
	/** The methods.listSearch entry of From List. */
	searchListMethod: string;
	listHint: string;
}

/** The resource locator of one ID parameter. */
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

/** The saved job of an upload or analysis (only ACTIVE jobs accept resumes; others are marked in the list). */
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
