/**
 * The router through n8n's engine: resource and operation read per item, Continue On Fail keeping
 * pairedItem and the API's error fields, stop on the first error without it, bounded concurrency.
 */
import type { IDataObject, IExecuteFunctions, INodeParameters } from 'n8n-workflow';

import { router } from '../../../nodes/RecruitingAnalysis/actions/router';

import type { TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
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
		await runNode(ws, analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }), [pdfItem()]),
	);
	reportId = String(item.reportId);
});

describe('router', () => {
	it('reads resource and operation per item (not from item 0 only)', async () => {
		// n8n's editor and engine cannot give items different resources through expressions (displayOptions
		// resolve on the raw parameter), so this one check drives the router with a minimal execute context
		// whose parameters differ per item. Each item fails validation with its own operation's field name,
		// which shows it reached its own operation; nothing is sent.
		const perItem: IDataObject[] = [
			{ resource: 'report', operation: 'get', reportId: '' },
			{ resource: 'jobDescription', operation: 'get', jobDescriptionId: '' },
			{ resource: 'interview', operation: 'getStatus', interviewId: '' },
			{ resource: 'report', operation: 'get', reportId: '' },
		];
		const node = {
			id: 'n1',
			name: 'Recruiting Analysis',
			type: 'recruitingAnalysis',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const context = {
			getInputData: () => perItem.map(() => ({ json: {} })),
			getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
				const value = name
					.split('.')
					.reduce<unknown>((v, key) => (v as IDataObject | undefined)?.[key], perItem[itemIndex]);
				return value === undefined ? fallback : value;
			},
			continueOnFail: () => true,
			getNode: () => node,
		} as unknown as IExecuteFunctions;
		const [out] = await router.call(context);
		expect(out.map((i) => String(i.json.error))).toEqual([
			'"Report ID" must not be empty [item 1]',
			'"Job Description ID" must not be empty [item 2]',
			'"Interview ID" must not be empty [item 3]',
			'"Report ID" must not be empty [item 4]',
		]);
		expect(out.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
	});

	it('Continue On Fail: an API error becomes an error item with status, code, requestId; the others succeed', async () => {
		const result = await runNode(
			ws,
			{ resource: 'report', operation: 'getStatus', reportId: '={{ $json.id }}' },
			[
				{ json: { id: reportId } },
				{ json: { id: 'rpt_does_not_exist' } },
				{ json: { id: reportId } },
			],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const out = jsonOf(result);
		expect(out[0].status).toBe('completed');
		expect(out[1]).toEqual(
			expect.objectContaining({
				httpCode: 404,
				code: 'NOT_FOUND',
				requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
				error: expect.any(String),
			}),
		);
		expect(out[2].status).toBe('completed');
		expect(result.output[0].map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	it('without Continue On Fail the node stops with a NodeApiError naming the item', async () => {
		const result = await runNode(
			ws,
			{ resource: 'report', operation: 'getStatus', reportId: '={{ $json.id }}' },
			[{ json: { id: reportId } }, { json: { id: 'rpt_missing' } }],
		);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toContain('404');
		expect((result.error as unknown as { context?: IDataObject }).context?.itemIndex).toBe(1);
	});

	it('a key without a needed scope gets 403 naming the missing scope (Analyze Resume waiting needs reports:read)', async () => {
		const { apiKey } = await sandbox.control.createKey(ws.workspaceId, {
			scopes: ['analyses:write'],
		});
		const limited = { ...ws, apiKey };
		const uploadOnly = jsonOf(
			await runNode(limited, analyzeParams(limited), [pdfItem({ candidate: 'Scoped' })]),
		);
		expect(uploadOnly[0].attemptId).toMatch(/^att_/);
		const waiting = await runNode(
			limited,
			analyzeParams(limited, { waitForCompletion: true, waitTimeout: 10 }),
			[pdfItem({ candidate: 'Scoped Wait' })],
			{
				continueOnFail: true,
			},
		);
		const [item] = jsonOf(waiting);
		expect(item.httpCode).toBe(403);
		expect(`${item.error} ${item.description}`).toContain('reports:read');
	});

	it('many items run with bounded concurrency (option Concurrency, default 20)', async () => {
		const items = Array.from({ length: 20 }, () => ({ json: { id: reportId } }));
		// Each status read is held by the sandbox until `gather` reads are held at once (or 20 s pass), then they go
		// together; the sandbox counts the most it held at once: the node's concurrency as the server saw it, however
		// slowly a loaded machine sends them.
		const holdStatusReads = (gather: number) =>
			sandbox.control.setFaults({
				rules: [
					{
						method: 'GET',
						path: '/api/v1/reports/{id}/status',
						mode: 'latency',
						latencyMs: 20_000,
						gather,
						rate: 1,
					},
				],
			});
		try {
			const mostAtOnce = async (options: INodeParameters, expected: number) => {
				await holdStatusReads(expected);
				const result = await runNode(
					ws,
					{ resource: 'report', operation: 'getStatus', reportId: '={{ $json.id }}', options },
					items,
				);
				expect(jsonOf(result)).toHaveLength(20);
				const [rule] = (await sandbox.control.faults()).rules;
				return { reads: rule.fired, mostAtOnce: rule.heldMax };
			};
			expect(await mostAtOnce({ concurrency: 1 }, 1)).toEqual({ reads: 20, mostAtOnce: 1 });
			expect(await mostAtOnce({ concurrency: 10 }, 10)).toEqual({ reads: 20, mostAtOnce: 10 });
			expect(await mostAtOnce({}, 20)).toEqual({ reads: 20, mostAtOnce: 20 });
		} finally {
			await sandbox.control.clearFaults();
		}
	});
});
