/**
 * A re-run finishes every refusal, whole as well as partial (docs/idempotency.md, "What a re-run does with refused
 * items"): a batch whose every item was refused for the allowance charged nothing, and once the allowance is topped
 * up, running again submits every item, in Start Many, Analyze Many and Invite Many; a third run charges nothing.
 * Through n8n's engine (n8n-core) against the sandbox over HTTP; every run a new execution.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startTestSandbox, useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import type { InputItem } from '../../helpers/n8n-engine';
import {
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	sleep,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let run = 0;
const execution = () => ({ executionId: `whole-refusals-${Date.now()}-${++run}` });

useTestSandbox((started) => (sandbox = started));

/** Reports, analyses and interviews created in the workspace so far. */
async function created(ws: Workspace) {
	const c = await counters(ws);
	return {
		reports: c.reportsCreated,
		attempts: c.attemptsCreated,
		interviews: c.interviewsCreated,
	};
}

/** A person tops the allowance up, seconds later at least (a replayed batch is told by its creation time). */
async function toppedUp(ws: Workspace, allowance: IDataObject): Promise<void> {
	await sleep(2000);
	await sandbox.control.patchWorkspace(ws.workspaceId, allowance);
}

const files = (tag: string, n: number): InputItem[] =>
	Array.from({ length: n }, (_, i) => pdfItem({ candidate: `${tag} ${i}` }, `${tag}-${i}.pdf`));

const fileParams = (ws: Workspace) => ({
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId: ws.jobDescriptionId,
});

function expectRefused(out: IDataObject[]): void {
	expect(out.map((o) => o.errorCode)).toEqual(out.map(() => 'INSUFFICIENT_ALLOWANCE'));
	out.forEach((o) => expect(o.error).toBeUndefined());
}

describe('a batch whose every item was refused for the allowance is submitted again on a re-run after a top-up', () => {
	it('Start Many: every item refused, topped up, run again: every item analysed; a third run charges nothing', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const uploaded = jsonOf(
			await runNode(
				ws,
				{ resource: 'upload', operation: 'uploadMany', ...fileParams(ws) },
				files('whole-start', 3),
				execution(),
			),
		);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 0 });
		const startMany: INodeParameters = {
			resource: 'analysis',
			operation: 'startMany',
			reportId: '={{ $json.reportId }}',
			simplify: false,
		};
		const items = uploaded.map((o) => ({ json: { reportId: o.reportId } }));
		expectRefused(jsonOf(await runNode(ws, startMany, items, execution())));
		await toppedUp(ws, { analysisAllowance: 10, priceVersion: 2 });
		const second = jsonOf(await runNode(ws, startMany, items, execution()));
		for (const o of second) expect(String(o.attemptId)).toMatch(/^att_/);
		expect(await created(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0 });
		const third = jsonOf(await runNode(ws, startMany, items, execution()));
		expect(third.map((o) => o.attemptId)).toEqual(second.map((o) => o.attemptId));
		expect(await created(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0 });
	});

	it('Analyze Many: every item refused, topped up, run again: every file analysed on its report; a third run charges nothing', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		await sandbox.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 0 });
		const params = {
			resource: 'analysis',
			operation: 'analyzeMany',
			simplify: false,
			...fileParams(ws),
		};
		const input = files('whole-analyze', 3);
		const first = jsonOf(await runNode(ws, params, input, execution()));
		expectRefused(first);
		await toppedUp(ws, { analysisAllowance: 10, priceVersion: 2 });
		const second = jsonOf(await runNode(ws, params, input, execution()));
		expect(second.map((o) => o.reportId)).toEqual(first.map((o) => o.reportId));
		for (const o of second) expect(String(o.attemptId)).toMatch(/^att_/);
		expect(await created(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0 });
		const third = jsonOf(await runNode(ws, params, input, execution()));
		expect(third.map((o) => o.attemptId)).toEqual(second.map((o) => o.attemptId));
		expect(await created(ws)).toEqual({ reports: 3, attempts: 3, interviews: 0 });
	});

	it('Invite Many: every candidate refused, topped up, run again: every candidate invited once (one email each); a third run sends nothing', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportIds = [
			await completedReport(ws, { candidate: 'Whole Invite A' }),
			await completedReport(ws, { candidate: 'Whole Invite B' }),
		];
		await sandbox.control.patchWorkspace(ws.workspaceId, { interviewAllowance: 0 });
		const params = {
			resource: 'interview',
			operation: 'inviteMany',
			reportId: '={{ $json.reportId }}',
			candidateEmail: '={{ $json.email }}',
		};
		const items = reportIds.map((reportId, i) => ({
			json: { reportId, email: `whole.${i}@example.com` },
		}));
		expectRefused(jsonOf(await runNode(ws, params, items, execution())));
		await toppedUp(ws, { interviewAllowance: 10, priceVersion: 2 });
		const second = jsonOf(await runNode(ws, params, items, execution()));
		for (const o of second) expect(String(o.interviewId)).toMatch(/^int_/);
		expect((await created(ws)).interviews).toBe(2);
		const third = jsonOf(await runNode(ws, params, items, execution()));
		expect(third.map((o) => o.interviewId)).toEqual(second.map((o) => o.interviewId));
		expect((await created(ws)).interviews).toBe(2);
		const until = Date.now() + 10_000;
		let mail = (await sandbox.control.mail(ws.workspaceId)).items;
		while (mail.length < 2 && Date.now() < until) {
			await sleep(50);
			mail = (await sandbox.control.mail(ws.workspaceId)).items;
		}
		expect(mail.map((m) => m.to).sort()).toEqual(['whole.0@example.com', 'whole.1@example.com']);
	});
});

describe('every expired preparation is renewed', () => {
	it('Analyze Many refused whole for the allowance, run again 25 hours later after a top-up: each file prepared once more (replacesExpiredReportId) and analysed; run again after the receipts are forgotten: nothing new', async () => {
		// Its own sandbox: the clock is moved forward.
		const own = await startTestSandbox();
		try {
			const ws = await newWorkspace(own.baseUrl, { analysisAllowance: 0 });
			const params = {
				resource: 'analysis',
				operation: 'analyzeMany',
				simplify: false,
				...fileParams(ws),
			};
			const input = files('aged-refusal', 2);
			const first = jsonOf(await runNode(ws, params, input, execution()));
			expectRefused(first);
			await own.control.advanceClock(25 * 3600 * 1000);
			await own.control.patchWorkspace(ws.workspaceId, { analysisAllowance: 10 });
			const second = jsonOf(await runNode(ws, params, input, execution()));
			expect(second.map((o) => o.replacesExpiredReportId)).toEqual(first.map((o) => o.reportId));
			for (const o of second) expect(String(o.attemptId)).toMatch(/^att_/);
			expect(await created(ws)).toEqual({ reports: 4, attempts: 2, interviews: 0 });
			await own.control.patchWorkspace(ws.workspaceId, { receiptLifetimeMs: 3600 * 1000 });
			expect((await own.control.forgetReceipts(ws.workspaceId)).kept).toBe(0);
			const third = jsonOf(await runNode(ws, params, input, execution()));
			expect(third.map((o) => [o.reportId, o.attemptId])).toEqual(
				second.map((o) => [o.reportId, o.attemptId]),
			);
			expect(await created(ws)).toEqual({ reports: 4, attempts: 2, interviews: 0 });
		} finally {
			await own.close();
		}
	});
});
