/**
 * Start From Now tells history from new events by the API's own times (feed/cursor.ts: its first read's Date and
 * the newest event that read showed), never by the n8n host's clock: with the API's clock 5 s or 5 min behind or
 * ahead of the host's, through n8n's poll engine against the sandbox, no history is emitted and no event of the
 * first moments after the activation is lost.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import type { SandboxHandle } from '../../../sandbox/src';
import { createPollSession, type PollSession } from '../../helpers/n8n-engine';
import {
	allEvents,
	apiCredential,
	credentialTypes,
	newWorkspace,
	seedEvents,
	withSandbox,
} from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
	sb = await withSandbox();
});
afterAll(async () => {
	sb.clock.offset = 0;
	await sb.close();
});

const idsOf = (output: INodeExecutionData[][] | null) =>
	output ? output[0].map((i) => i.json.id) : [];

async function tickOk(session: PollSession) {
	const r = await session.tick();
	if (r.error) throw r.error;
	return r;
}

const SKEWS: Array<[string, number]> = [
	['5 s behind', -5_000],
	['5 s ahead', 5_000],
	['5 min behind', -300_000],
	['5 min ahead', 300_000],
];

describe("Start From Now with the API's clock apart from the host's", () => {
	afterEach(() => {
		sb.clock.offset = 0;
	});

	it.each(SKEWS)(
		'the API %s: no history emitted, every event after the activation delivered',
		async (_label, offsetMs) => {
			// The API's clock runs apart from the host's from the start, as a real service's does.
			sb.clock.offset = offsetMs;
			const ws = await newWorkspace(sb);
			// More history than one poll walks (20 pages of 100): the walk still seeks the end when new events come. It
			// occurred over a second before the activation (the API's clock moved on): an event of the very second the
			// first read's Date names, beyond that read's page, cannot be told from a new one and is delivered.
			await seedEvents(ws, 2500);
			sb.clock.advance(1500);
			const stored: IDataObject = {};
			const session = await createPollSession({
				nodeType: new RecruitingAnalysisFeedTrigger(),
				credentialTypes,
				credentials: { recruitingAnalysisApi: apiCredential(ws) },
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					events: ['*'],
					startAt: 'now',
				},
				staticData: stored,
				mode: 'trigger',
			});
			const activation = await tickOk(session);
			expect(activation.output).toBeNull();
			// Events of the first moments after the activation (the same second), then later ones.
			await seedEvents(ws, 3);
			const first = await tickOk(session);
			await seedEvents(ws, 2);
			const second = await tickOk(session);
			expect(stored).not.toEqual({});
			const expected = (await allEvents(ws)).slice(2500).map((e) => e.id);
			expect(expected).toHaveLength(5);
			expect([...idsOf(first.output), ...idsOf(second.output)]).toEqual(expected);
		},
	);
});
