/**
 * A webhook trigger and a Feed Trigger sharing one workflow's static data (n8n saves it whole, so each would
 * overwrite the other's state): the webhook trigger marks itself while its webhook exists, and the Feed Trigger
 * refuses to poll beside it, through n8n's hook and poll contexts against the sandbox.
 */
import type { IDataObject } from 'n8n-workflow';

import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { WEBHOOK_TRIGGERS_KEY } from '../../../nodes/RecruitingAnalysis/webhook/besideFeed';
import type { SandboxHandle } from '../../../sandbox/src';
import { createPollSession, runWebhookMethods } from '../../helpers/n8n-engine';
import {
	apiCredential,
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

const webhook = (ws: Workspace, staticData: IDataObject) => ({
	nodeType: new RecruitingAnalysisTrigger(),
	credentialTypes,
	credentials: {
		recruitingAnalysisSigningSecretApi: { secret: ws.webhookSecret, previousSecret: '' },
		recruitingAnalysisApi: apiCredential(ws),
	},
	parameters: { events: ['*'] },
	staticData,
});

const feed = (ws: Workspace, staticData: IDataObject, mode: 'trigger' | 'manual' = 'trigger') => ({
	nodeType: new RecruitingAnalysisFeedTrigger(),
	credentialTypes,
	credentials: { recruitingAnalysisApi: apiCredential(ws) },
	parameters: {
		pollTimes: { item: [{ mode: 'everyMinute' }] },
		events: ['*'],
		startAt: 'oldest',
	},
	staticData,
	mode,
});

describe('a Feed Trigger beside the webhook trigger in one workflow', () => {
	it('refuses to poll, naming the webhook trigger and saying why, and writes no position', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 3);
		const stored: IDataObject = {};
		// Activation: n8n checks the webhook first, then runs the pollers' first poll on the same static data.
		await runWebhookMethods(webhook(ws, stored), 'checkExists');
		expect((stored.global as IDataObject)[WEBHOOK_TRIGGERS_KEY]).toEqual({
			'Recruiting Analysis Trigger': true,
		});
		const session = await createPollSession(feed(ws, stored));
		const refused = await session.tick();
		expect(refused.output).toBeNull();
		expect(refused.error?.message).toBe(
			'This workflow also holds the Recruiting Analysis Trigger "Recruiting Analysis Trigger"; the Feed Trigger refuses to run in the same workflow',
		);
		expect((refused.error as Error & { description?: string }).description).toMatch(
			/saves a workflow's static data whole, without compare-and-set/,
		);
		expect(
			Object.keys(stored).filter((k) => k.startsWith('node:Recruiting Analysis Feed')),
		).toEqual([]);
	});

	it('polls again once the webhook trigger is gone (its webhook deleted on deactivation or removal)', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 3);
		const stored: IDataObject = {};
		await runWebhookMethods(webhook(ws, stored), 'checkExists');
		await runWebhookMethods(webhook(ws, stored), 'delete');
		expect((stored.global as IDataObject | undefined)?.[WEBHOOK_TRIGGERS_KEY]).toBeUndefined();
		const session = await createPollSession(feed(ws, stored));
		const first = await session.tick();
		expect(first.error).toBeUndefined();
		expect(first.output?.[0]).toHaveLength(3);
		expect(first.saved).toBe(true);
	});

	it('a manual test of the Feed Trigger in the editor still works beside it (nothing is saved in manual mode)', async () => {
		const ws = await newWorkspace(sb);
		await seedEvents(ws, 2);
		const stored: IDataObject = {};
		await runWebhookMethods(webhook(ws, stored), 'checkExists');
		const session = await createPollSession(feed(ws, stored, 'manual'));
		const tick = await session.tick();
		expect(tick.error).toBeUndefined();
	});
});
