/**
 * No decision about money compares the n8n host's clock with the API's (engine/batch.ts isReplayedBatch: a batch's
 * `createdAt` against the Date of the answer that named it, both the API's). With the API's clock 5 s or 5 min
 * behind or ahead of the host's, through n8n's engine against the sandbox: nothing is charged past the Spending
 * Limit, each charged item says what it cost, and a Start Many refused for the allowance is submitted again by a
 * re-run after a top-up.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import { counters, jsonOf, newWorkspace, pdfItem, runNode, type Workspace } from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started));

let run = 0;
const execution = () => ({ executionId: `clock-skew-${Date.now()}-${++run}` });

const SKEWS: Array<[string, number]> = [
	['5 s behind', -5_000],
	['5 s ahead', 5_000],
	['5 min behind', -300_000],
	['5 min ahead', 300_000],
];

afterEach(() => {
	sandbox.clock.offset = 0;
});

async function uploadedReports(ws: Workspace, n: number, tag: string): Promise<string[]> {
	const out = jsonOf(
		await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			},
			Array.from({ length: n }, (_, i) => pdfItem({ candidate: `${tag} ${i}` }, `${tag}-${i}.pdf`)),
			execution(),
		),
	);
	return out.map((o) => String(o.reportId));
}

describe("the Spending Limit and re-runs with the API's clock apart from the host's", () => {
	it.each(SKEWS)(
		'the API %s: Analyze Many of 25 files under a limit of 20 charges 20, and says so item by item',
		async (_label, offsetMs) => {
			sandbox.clock.offset = offsetMs;
			const ws = await newWorkspace(sandbox.baseUrl);
			const files = Array.from({ length: 25 }, (_, i) =>
				pdfItem({ candidate: `Skew ${i}` }, `skew-${i}.pdf`),
			);
			const out = jsonOf(
				await runNode(
					ws,
					{
						resource: 'analysis',
						operation: 'analyzeMany',
						binaryPropertyName: 'data',
						jobDescriptionSource: 'existing',
						jobDescriptionId: ws.jobDescriptionId,
						spendingLimit: 20,
					},
					files,
					{ ...execution(), continueOnFail: true },
				),
			);
			expect((await counters(ws)).attemptsCreated).toBe(20);
			expect(out.filter((o) => o.creditsUsed === 1)).toHaveLength(20);
			expect(
				out.filter((o) => String(o.error ?? '').includes('Spending Limit of 20 credits reached')),
			).toHaveLength(5);
		},
		60_000,
	);

	it.each(SKEWS)(
		'the API %s: a Start Many refused for the allowance is submitted again by a re-run after a top-up',
		async (_label, offsetMs) => {
			sandbox.clock.offset = offsetMs;
			const ws = await newWorkspace(sandbox.baseUrl);
			const reportIds = await uploadedReports(ws, 3, 'skew-allowance');
			const items = reportIds.map((reportId) => ({ json: { reportId } }));
			const startMany: INodeParameters = {
				resource: 'analysis',
				operation: 'startMany',
				reportId: '={{ $json.reportId }}',
				simplify: false,
			};
			await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 0 });
			const first = jsonOf(await runNode(ws, startMany, items, execution()));
			expect(first.map((o) => o.errorCode)).toEqual(Array(3).fill('INSUFFICIENT_ALLOWANCE'));
			const refusedIn = String(first[0].batchId);
			// A person tops the allowance up a few seconds later (by the API's clock).
			sandbox.clock.advance(3_000);
			await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 10 });
			const second = jsonOf(await runNode(ws, startMany, items, execution()));
			for (const o of second)
				expect(o).toMatchObject({
					state: 'succeeded',
					errorCode: null,
					submittedAgainAfterBatch: refusedIn,
				});
			expect((await counters(ws)).attemptsCreated).toBe(3);
		},
		60_000,
	);
});
