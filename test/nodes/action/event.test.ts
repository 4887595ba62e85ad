/**
 * Event resource against the sandbox: Get Many as one page or drained across pages (hasMore), filters,
 * continuing from a saved cursor, and the 410 EVENT_CURSOR_EXPIRED error.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	jsonOf,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;
let reportId: string;

useSandboxWorkspace((started) => ({ sandbox, ws } = started));
beforeAll(async () => {
	const [item] = jsonOf(
		await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [
			pdfItem({ candidate: 'Evented' }),
		]),
	);
	reportId = String(item.reportId);
	await sandbox.control.seedEvents(ws.workspaceId, 230, 'batch.completed');
});

describe('Event > Get Many', () => {
	it('one page: Limit events, one item each, and a page form with the cursor to save', async () => {
		const page = jsonOf(
			await runNode(ws, { resource: 'event', operation: 'getMany', returnAll: false, limit: 10 }),
		);
		expect(page).toHaveLength(10);
		for (const event of page) {
			expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
			expect(event.schemaVersion).toBe(1);
			expect(event.type).toEqual(expect.any(String));
		}
		const asPage = jsonOf(
			await runNode(ws, {
				resource: 'event',
				operation: 'getMany',
				returnAll: false,
				limit: 10,
				options: { output: 'page' },
			}),
		);
		expect(asPage).toHaveLength(1);
		expect((asPage[0].items as IDataObject[]).map((e) => e.id)).toEqual(page.map((e) => e.id));
		expect(asPage[0].hasMore).toBe(true);
		expect(asPage[0].nextCursor).toEqual(expect.any(String));

		const next = jsonOf(
			await runNode(ws, {
				resource: 'event',
				operation: 'getMany',
				returnAll: false,
				limit: 10,
				options: { cursor: String(asPage[0].nextCursor) },
			}),
		);
		expect(next).toHaveLength(10);
		expect(next.map((e) => e.id).some((id) => page.map((e) => e.id).includes(id))).toBe(false);
	});

	it('Return All drains every retained page while hasMore, in feed order without duplicates', async () => {
		const before = await counters(ws);
		const all = jsonOf(
			await runNode(ws, { resource: 'event', operation: 'getMany', returnAll: true }),
		);
		expect(all.length).toBeGreaterThanOrEqual(230);
		expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
		const after = await counters(ws);
		expect(
			(after.requests['GET /api/v1/events'] ?? 0) - (before.requests['GET /api/v1/events'] ?? 0),
		).toBeGreaterThanOrEqual(3);
		// The same as the API's own feed order.
		const direct = await apiCall(ws, 'GET', '/api/v1/events?limit=100');
		const firstIds = ((direct.body.data as IDataObject).items as IDataObject[]).map((e) => e.id);
		expect(all.slice(0, 100).map((e) => e.id)).toEqual(firstIds);
	});

	it('filters by type and by report', async () => {
		const completed = jsonOf(
			await runNode(ws, {
				resource: 'event',
				operation: 'getMany',
				returnAll: true,
				filters: { type: 'report.completed' },
			}),
		);
		expect(completed.length).toBeGreaterThanOrEqual(1);
		expect(completed.every((e) => e.type === 'report.completed')).toBe(true);
		const forReport = jsonOf(
			await runNode(ws, {
				resource: 'event',
				operation: 'getMany',
				returnAll: true,
				filters: { reportId },
			}),
		);
		expect(forReport.length).toBeGreaterThanOrEqual(1);
		expect(forReport.every((e) => (e.data as IDataObject).reportId === reportId)).toBe(true);
	});

	it('a cursor older than the retained history gives 410 EVENT_CURSOR_EXPIRED with the recovery hint', async () => {
		const asPage = jsonOf(
			await runNode(ws, {
				resource: 'event',
				operation: 'getMany',
				returnAll: false,
				limit: 1,
				options: { output: 'page' },
			}),
		);
		await sandbox.control.advanceClock(31 * 24 * 3600 * 1000);
		const result = await runNode(
			ws,
			{
				resource: 'event',
				operation: 'getMany',
				returnAll: false,
				limit: 1,
				options: { cursor: String(asPage[0].nextCursor) },
			},
			[{ json: {} }],
			{ continueOnFail: true },
		);
		const [item] = jsonOf(result);
		expect(item.httpCode).toBe(410);
		expect(item.code).toBe('EVENT_CURSOR_EXPIRED');
		expect(String(item.description)).toContain('fresh position');
	});
});
