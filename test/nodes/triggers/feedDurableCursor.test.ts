/**
 * The feed trigger under n8n's *durable poll cursors*, next to the default static-data behaviour that
 * feedTrigger.test.ts covers through the harness.
 *
 * n8n-core 2.41.1's real `PollContext` and `PollTriggerExecutor` run the poll. What packages/cli adds
 * when durable cursors are on (TriggerExecutionContextFactory.getExecutePollFunctions +
 * PollCursorService) is not in n8n-core, so `durableScope` below models it, following that source:
 * - `__runPoll` stages a deep copy of the committed cursor (seeded from the node's static data the
 *   first time) in an async scope; `getWorkflowStaticData('node')` returns that copy;
 * - `__emit` takes the staged copy (if it changed) and commits it together with the execution row;
 * - `__commitCursor` (called after a scheduled poll that returned nothing) commits it alone;
 * - a poll that throws, and the activation's test poll that returns nothing, commit nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import type { SandboxHandle } from '../../../sandbox/src';
import { buildSingleNodeWorkflow } from '../../helpers/engine/single-node';
import {
	allEvents,
	apiCredential,
	control,
	credentialTypes,
	newWorkspace,
	seedEvents,
	withSandbox,
	type Workspace,
} from './helpers';

let sb: SandboxHandle;
beforeAll(async () => {
	sb = await withSandbox();
});
afterAll(async () => {
	await sb.close();
});

interface DurableStore {
	committed: IDataObject | null;
	executions: INodeExecutionData[][][];
	commits: number;
}

async function durableScope(ws: Workspace, parameters: IDataObject, store: DurableStore) {
	const loaded = await buildSingleNodeWorkflow({
		nodeType: new RecruitingAnalysisFeedTrigger(),
		credentialTypes,
		credentials: { recruitingAnalysisApi: apiCredential(ws) },
		parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
	});
	const { workflow, node, additionalData } = loaded;
	const staging = new AsyncLocalStorage<{ snapshot: IDataObject; seed: string }>();
	const take = (): IDataObject | null => {
		const staged = staging.getStore();
		if (!staged || JSON.stringify(staged.snapshot) === staged.seed) return null;
		staged.seed = JSON.stringify(staged.snapshot);
		return JSON.parse(staged.seed) as IDataObject;
	};
	const errors: Error[] = [];
	const pollFunctions = new PollContext(
		workflow,
		node,
		additionalData,
		'trigger',
		'activate',
		(data) => {
			const cursor = take();
			if (cursor) {
				store.committed = cursor;
				store.commits++;
			}
			store.executions.push(data);
		},
		(error) => {
			errors.push(error);
		},
		async () => {
			const cursor = take();
			if (cursor) {
				store.committed = cursor;
				store.commits++;
			}
		},
		async (poll) => {
			const seed = store.committed ?? workflow.getStaticData('node', node);
			const snapshot = JSON.parse(JSON.stringify(seed)) as IDataObject;
			return await staging.run({ snapshot, seed: JSON.stringify(snapshot) }, poll);
		},
		() => {
			const staged = staging.getStore();
			if (!staged) throw new Error('static data read outside a poll');
			return staged.snapshot;
		},
	);
	const execute = Container.get(PollTriggerExecutor).create(
		workflow,
		node,
		pollFunctions,
		() => true,
	);
	return {
		/** The activation poll (errors fail the activation). */
		activate: async () => await execute(true),
		/** A scheduled poll (errors become error executions). */
		tick: async () => {
			const before = errors.length;
			await execute(false);
			return errors.slice(before);
		},
	};
}

const delivered = (store: DurableStore) =>
	store.executions.flatMap((run) => run[0].map((item) => item.json));

describe('feed trigger with durable poll cursors', () => {
	it('every event exactly once across failing polls and restarts (start at the oldest event)', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 7);
		const store: DurableStore = { committed: null, executions: [], commits: 0 };
		const parameters = {
			events: ['*'],
			startAt: 'oldest',
			options: { maxEventsPerPoll: 5, pageSize: 2 },
		};

		let trigger = await durableScope(ws, parameters, store);
		await trigger.activate(); // emits the first five and commits them with their execution
		expect(delivered(store)).toHaveLength(5);

		// The API refuses the next poll: nothing is committed, nothing is delivered.
		await control(ws, 'PUT', '/_sandbox/faults', {
			rules: [{ method: 'GET', path: '/api/v1/events', status: 400, count: 1 }],
		});
		const failed = await trigger.tick();
		await control(ws, 'DELETE', '/_sandbox/faults');
		expect(failed).toHaveLength(1);
		expect(delivered(store)).toHaveLength(5);

		await seedEvents(ws, 3);
		trigger = await durableScope(ws, parameters, store); // n8n restarted: only the committed cursor survives
		expect(await trigger.tick()).toEqual([]);
		expect(await trigger.tick()).toEqual([]);
		expect(await trigger.tick()).toEqual([]); // nothing new: commits nothing

		expect(delivered(store).map((e) => e.id)).toEqual((await allEvents(ws)).map((e) => e.id));
	});

	it('polls that deliver nothing still commit their position (the spec: save nextCursor even for an empty page)', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 4, 'report.completed');
		const store: DurableStore = { committed: null, executions: [], commits: 0 };
		const parameters = { events: ['report.failed', 'batch.completed'], startAt: 'oldest' };
		let trigger = await durableScope(ws, parameters, store);
		await trigger.activate(); // the test poll delivers nothing: n8n commits nothing for it
		expect(store.commits).toBe(0);
		await trigger.tick(); // a scheduled poll delivers nothing: its position is committed alone
		expect(store.commits).toBe(1);
		expect(store.committed?.feed).toMatchObject({ phase: 'following', lastEventId: null });

		trigger = await durableScope(ws, parameters, store); // restart
		await seedEvents(ws, 1, 'report.failed');
		await trigger.tick();
		expect(delivered(store).map((e) => e.type)).toEqual(['report.failed']);
		expect(store.committed?.feed).toMatchObject({ lastEventId: delivered(store)[0].id });
	});

	it('known limit: with "Start From: Now" the starting point is set by the first scheduled poll', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 3);
		const store: DurableStore = { committed: null, executions: [], commits: 0 };
		const trigger = await durableScope(ws, { events: ['*'], startAt: 'now' }, store);
		await trigger.activate(); // walks to the end; n8n discards what a test poll staged
		expect(store.committed).toBeNull();
		await seedEvents(ws, 1); // published between activation and the first scheduled poll
		await trigger.tick(); // walks to the (new) end again and commits it
		await seedEvents(ws, 2);
		await trigger.tick();
		const feed = (await allEvents(ws)).map((e) => e.id);
		expect(delivered(store).map((e) => e.id)).toEqual(feed.slice(4)); // feed[3] was not delivered
	});
});
