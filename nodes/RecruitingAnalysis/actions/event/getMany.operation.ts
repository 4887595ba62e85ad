import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { validateCursor, validateEventType, validateId, validateLimit } from '../../validation';
import { listPages } from '../../transport';
import { optionString, optionsParam } from '../common/params';
import {
	filtersCollection,
	limitField,
	optionsCollection,
	returnAllField,
} from '../common/descriptions';
import { EVENT_TYPES } from '../../events/eventTypes';

export const description: INodeProperties[] = [
	{
		...returnAllField,
		hint: 'On: drain every retained page (following the cursor while "hasMore" is true). Off: read one page.',
	},
	{
		...limitField,
		typeOptions: { minValue: 1, maxValue: 100 },
		hint: 'The size of the page to read: 1 to 100',
	},
	filtersCollection(
		[
			{
				displayName: 'Event Type',
				name: 'type',
				type: 'options',
				// The raw type names, sorted as n8n's lint rules expect.
				options: [...EVENT_TYPES].sort().map((type) => ({ name: type, value: type })),
				default: 'report.completed',
				description: 'Only events of this type',
			},
			{
				displayName: 'Interview ID',
				name: 'interviewId',
				type: 'string',
				default: '',
				placeholder: 'int_...',
				description: 'Only events about this interview attempt',
			},
			{
				displayName: 'Report ID',
				name: 'reportId',
				type: 'string',
				default: '',
				placeholder: 'rpt_...',
				description: 'Only events about this report',
			},
		],
		'Filters are bound to the cursor: keep them unchanged while following a cursor',
	),
	optionsCollection([
		{
			displayName: 'Cursor',
			name: 'cursor',
			type: 'string',
			default: '',
			description:
				'Position to continue from: the "nextCursor" saved from an earlier read (with the same filters). Leave empty to start at the oldest retained event.',
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			options: [
				{
					name: 'One Item per Event',
					value: 'events',
					description: 'Each event becomes an output item',
				},
				{
					name: 'One Item per Read',
					value: 'page',
					description:
						'A single item with "items", "nextCursor" and "hasMore", so you can save the position',
				},
			],
			default: 'events',
			description: 'How the events are output',
		},
	]),
];

/** Safety stop for draining: 1,000 pages of 100 events, far beyond 30 days of a workspace's retained events. */
const MAX_DRAIN_PAGES = 1000;

// Unknown event types pass through unchanged; tombstones keep only id, type and occurredAt.
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? 100
		: validateLimit.call(this, this.getNodeParameter('limit', itemIndex, 50), itemIndex);
	const filters = optionsParam(this, itemIndex, 'filters');
	const options = optionsParam(this, itemIndex);
	const type = optionString(filters, 'type');
	if (type !== undefined) validateEventType.call(this, type, itemIndex);
	const reportId = optionString(filters, 'reportId');
	if (reportId !== undefined) validateId.call(this, reportId, itemIndex, 'Report ID');
	const interviewId = optionString(filters, 'interviewId');
	if (interviewId !== undefined) validateId.call(this, interviewId, itemIndex, 'Interview ID');
	const cursor = optionString(options, 'cursor');
	if (cursor !== undefined) validateCursor.call(this, cursor, itemIndex);

	const events: IDataObject[] = [];
	let hasMore = false;
	let nextCursor: string | null = cursor ?? null;
	let pages = 0;
	for await (const page of listPages.call(this, {
		method: 'GET',
		path: '/api/v1/events',
		qs: { type, reportId, interviewId },
		pageSize: limit,
		cursor,
		itemIndex,
	})) {
		events.push(...page.items);
		hasMore = page.hasMore === true;
		// The feed keeps its position even on an empty page; keep the one it returns.
		nextCursor = page.nextCursor ?? nextCursor;
		if (!returnAll || ++pages >= MAX_DRAIN_PAGES) break;
	}

	if (options.output === 'page') return { items: events, nextCursor, hasMore };
	return events;
}
