import type { IDataObject } from 'n8n-workflow';

import { createPollSession, runPoll } from '../../helpers/n8n-engine';
import { EchoApi, FeedPollNode, useEchoServer, type EchoServer } from './fixtures';

let server: EchoServer;
useEchoServer((started) => (server = started));

const base = () => ({
	nodeType: new FeedPollNode(),
	credentialTypes: [new EchoApi()],
	credentials: { echoApi: { apiKey: 'svc_test_poll', baseUrl: server.baseUrl } },
});

describe('runPoll / createPollSession: static data persisted as n8n persists it', () => {
	it('trigger mode: a poll that returns data saves the static data (n8n saves before starting the execution)', async () => {
		const staticData: IDataObject = {};
		const first = await runPoll({
			...base(),
			parameters: { emit: 'always' },
			staticData,
			mode: 'trigger',
		});
		expect(first).toEqual([
			[
				{
					json: {
						cursor: 1,
						authorization: 'Bearer svc_test_poll',
						mode: 'trigger',
						activation: 'activate',
					},
				},
			],
		]);
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 1 } });

		const second = await runPoll({
			...base(),
			parameters: { emit: 'always' },
			staticData,
			mode: 'trigger',
		});
		expect(second?.[0][0].json.cursor).toBe(2);
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 2 } });
		expect(server.requests.map((r) => r.url)).toEqual(['/feed?cursor=1', '/feed?cursor=2']);
	});

	it('trigger mode: a poll that returns null writes nothing; only the in-memory workflow keeps the change', async () => {
		const staticData: IDataObject = { 'node:Feed Poll': { cursor: 5 } };
		const session = await createPollSession({
			...base(),
			parameters: { emit: 'never' },
			staticData,
			mode: 'trigger',
		});

		const first = await session.tick();
		expect(first).toEqual({ output: null, error: undefined, saved: false });
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 5 } });
		expect(session.workflowStaticData['node:Feed Poll']).toEqual({ cursor: 6 });

		const second = await session.tick();
		expect(second.saved).toBe(false);
		expect(session.workflowStaticData['node:Feed Poll']).toEqual({ cursor: 7 });
		expect(server.requests.map((r) => r.url)).toEqual(['/feed?cursor=6', '/feed?cursor=7']);

		// A restart reloads the stored data: the unsaved cursor moves are lost, as in n8n.
		await session.restart();
		await session.tick();
		expect(server.requests.map((r) => r.url).at(-1)).toBe('/feed?cursor=6');
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 5 } });
	});

	it('manual mode ("Fetch Test Event") runs through WorkflowExecute and never writes static data', async () => {
		const staticData: IDataObject = { 'node:Feed Poll': { cursor: 41 } };
		const output = await runPoll({
			...base(),
			parameters: { emit: 'always' },
			staticData,
			mode: 'manual',
		});
		expect(output?.[0][0].json).toMatchObject({ cursor: 42, mode: 'manual', activation: 'manual' });
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 41 } });
		const again = await runPoll({
			...base(),
			parameters: { emit: 'always' },
			staticData,
			mode: 'manual',
		});
		expect(again?.[0][0].json.cursor).toBe(42);
	});

	it('manual mode returns null when the poll has nothing', async () => {
		const staticData: IDataObject = {};
		await expect(
			runPoll({ ...base(), parameters: { emit: 'never' }, staticData, mode: 'manual' }),
		).resolves.toBeNull();
		expect(staticData).toEqual({});
	});

	it('a failing poll throws its NodeApiError and writes nothing', async () => {
		server.failNext('/feed', 500);
		const staticData: IDataObject = { 'node:Feed Poll': { cursor: 1 } };
		await expect(
			runPoll({ ...base(), parameters: { emit: 'always' }, staticData, mode: 'trigger' }),
		).rejects.toMatchObject({
			name: 'NodeApiError',
		});
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 1 } });
	});

	it('after activation, a failing cron tick is reported (error execution) instead of thrown', async () => {
		const staticData: IDataObject = {};
		const session = await createPollSession({
			...base(),
			parameters: { emit: 'always' },
			staticData,
			mode: 'trigger',
		});
		expect((await session.tick()).saved).toBe(true);
		server.failNext('/feed', 503);
		const failed = await session.tick();
		expect(failed.output).toBeNull();
		expect(failed.error).toMatchObject({ name: 'NodeApiError' });
		expect(staticData).toEqual({ 'node:Feed Poll': { cursor: 1 } });
	});
});
