import type { INodeProperties } from 'n8n-workflow';

const DESCRIPTIONS = {
	'report.completed': 'An analysis finished and its result can be read',
	'report.requires_action': 'A human review in the application is needed',
	'report.failed': 'An analysis failed; inspect the code',
	'report.result_ready': 'A versioned result publication is available',
	'report.deleted': 'A report was erased (the body is a tombstone)',
	'interview.invited': 'An interview invitation was created',
	'interview.started': 'The candidate started the interview',
	'interview.completed': 'The candidate completed the interview (evaluation may still be pending)',
	'interview.expired': 'The invitation expired',
	'interview.preparation_failed': 'Question preparation failed',
	'interview.result_failed': 'The evaluation failed',
	'interview.invitation_failed': 'The invitation email could not be delivered',
	'interview.result_ready': 'The interview evaluation is available',
	'batch.completed': 'Every item of a batch reached a terminal state',
	'webhook.test': 'A synthetic test delivery without report or candidate data',
};

export type EventType = keyof typeof DESCRIPTIONS;

// Unknown future types are still accepted where all types are chosen (spec, Versioning 5).
export const EVENT_TYPES = Object.keys(DESCRIPTIONS) as [EventType, ...EventType[]];

function eventTypeName(type: string): string {
	return type
		.split(/[._]/)
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');
}

// Sorted by name, as n8n's lint rules expect.
const EVENT_TYPE_OPTIONS = EVENT_TYPES.map((value) => ({
	name: eventTypeName(value),
	value,
	description: DESCRIPTIONS[value],
})).sort((a, b) => a.name.localeCompare(b.name));

export function eventsField(description: string): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['*'],
		description,
		options: [
			{
				name: 'All Events (Including Future Types)',
				value: '*',
				description: 'Every event, including types this node does not know yet',
			},
			...EVENT_TYPE_OPTIONS,
		],
	};
}

export function eventTypeMatches(type: unknown, selected: readonly string[]): boolean {
	return selected.length === 0 || selected.includes('*') || selected.includes(type as string);
}

export function eventsSubtitle(prefix = ''): string {
	const names: Record<string, string> = { '*': 'All Events' };
	for (const type of EVENT_TYPES) names[type] = eventTypeName(type);
	return `={{ ${JSON.stringify(prefix)} + ($parameter["events"] || []).map((e) => (${JSON.stringify(names)})[e] || e).join(", ") }}`;
}
