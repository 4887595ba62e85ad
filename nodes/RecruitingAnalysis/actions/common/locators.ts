import type { INodeProperties } from 'n8n-workflow';

/**
 * ID parameters of the action node. Node version 1 saved them as plain text fields; version 2 shows them as
 * resource locators (From List, By ID). Both are kept, each shown only for its own version (n8n's
 * `@version` display option), so a workflow saved by version 1 opens and runs as it was saved. The readers
 * (`stringParam`, and so `idParam`) accept either shape: a plain string or `{__rl, mode, value}`.
 */

/**
 * The versions of the action node; the newest is the default for new nodes. 2.1: a fresh Tool node starts on a free
 * read (actions/common/toolMode.ts resourceSelectors); the plain node is the same as 2.
 */
export const ACTION_NODE_VERSIONS = [1, 1.1, 2, 2.1];
const V1 = { '@version': [{ _cnd: { lt: 2 } }] };
const V2 = { '@version': [{ _cnd: { gte: 2 } }] };

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
	/** Version 1's label and description of the text field (kept as they were). */
	v1DisplayName: string;
	v1Description?: string;
	description: string;
	placeholder: string;
	/** The methods.listSearch entry of From List. */
	searchListMethod: string;
	listHint: string;
}

/** The version-1 text field and the version-2 resource locator of one ID parameter. */
function idLocator(
	spec: LocatorSpec,
	show: Record<string, Array<string | boolean>> = {},
): INodeProperties[] {
	const v1: INodeProperties = {
		displayName: spec.v1DisplayName,
		name: spec.name,
		type: 'string',
		required: true,
		default: '',
		placeholder: spec.placeholder,
		description: spec.v1Description ?? spec.description,
		displayOptions: { show: { ...show, ...V1 } },
	};
	const v2: INodeProperties = {
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
		displayOptions: { show: { ...show, ...V2 } },
	};
	return [v1, v2];
}

/** The saved job of an upload or analysis (only ACTIVE jobs accept resumes; others are marked in the list). */
export function savedJobLocator(
	labels: {
		displayName: string;
		description: string;
		v1DisplayName: string;
		v1Description: string;
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
		v1DisplayName: 'Report ID',
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
		v1DisplayName: 'Interview ID',
		description,
		placeholder: 'int_...',
		searchListMethod: 'searchInterviews',
		listHint: 'Most recent first. Type to filter by ID, report or state.',
	});
}
