/**
 * One list of event types, shared by both triggers, and the same list as the sandbox and the OpenAPI
 * description use (the spec's "Events" > "Event types").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import { parse } from 'yaml';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { EVENT_TYPES } from '../../../nodes/RecruitingAnalysis/events/eventTypes';
import { EVENT_TYPES as SANDBOX_EVENT_TYPES } from '../../../sandbox/src/events';

function eventOptions(properties: INodeProperties[]): unknown[] {
	const events = properties.find((p) => p.name === 'events');
	return (events?.options ?? []).map((o) => ('value' in o ? o.value : undefined));
}

describe('event types', () => {
	it('both triggers offer "all" first, then every listed type sorted by name (n8n lint order)', () => {
		const expected = ['*', ...[...EVENT_TYPES].sort()];
		expect(eventOptions(new RecruitingAnalysisTrigger().description.properties)).toEqual(expected);
		expect(eventOptions(new RecruitingAnalysisFeedTrigger().description.properties)).toEqual(
			expected,
		);
	});

	it('match the sandbox publisher', () => {
		expect([...EVENT_TYPES].sort()).toEqual([...SANDBOX_EVENT_TYPES].sort());
	});

	it('match the OpenAPI description', () => {
		const doc = parse(
			readFileSync(path.resolve(__dirname, '../../../openapi/openapi.yaml'), 'utf8'),
		) as {
			components: { schemas: { EventType: { examples: string[] } } };
		};
		expect([...EVENT_TYPES].sort()).toEqual([...doc.components.schemas.EventType.examples].sort());
	});
});
