/**
 * The action node's writes under failures injected by the sandbox: a 503 then success, and a write that
 * is committed but whose connection is dropped. The node's idempotency keys make every retry land on the
 * same resource (counted by the sandbox), and the storage PUT never carries the API key.
 */
import { transportSettings } from '../../../nodes/RecruitingAnalysis/transport';
import type { TestSandbox } from '../../helpers/sandbox';
import type { IDataObject } from 'n8n-workflow';
import {
	analyzeParams,
	apiCall,
	completedReport,
	counters,
	jsonOf,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;

useSandboxWorkspace((started) => ({ sandbox, ws } = started), { clearFaultsAfterEach: true });

const route = (c: { requests: Record<string, number> }, r: string) => c.requests[r] ?? 0;

describe('Analyze Resume under injected failures', () => {
	it('the injected 503 does reach the node: with retries switched off it stops on it', async () => {
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analyses',
					status: 503,
					rate: 1,
					count: 1,
					mode: 'before',
				},
			],
		});
		const saved = { ...transportSettings.retry };
		transportSettings.retry = { ...saved, maxAttempts: 1 };
		try {
			const result = await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'No Retry 503' })]);
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.message).toContain('503');
		} finally {
			transportSettings.retry = saved;
		}
	});

	it('a 503 on the start is retried with the same key: one attempt', async () => {
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/analyses',
					status: 503,
					rate: 1,
					count: 1,
					mode: 'before',
				},
			],
		});
		const before = await counters(ws);
		const result = await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Retry 503' })]);
		const [item] = jsonOf(result);
		// Without a retry the node would stop on the 503 (the sandbox's request counter only counts processed requests).
		expect(result.error).toBeUndefined();
		expect(item.attemptId).toMatch(/^att_/);
		const after = await counters(ws);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
	});

	it('a committed preparation whose answer is lost is retried with the same key: exactly one report', async () => {
		await sandbox.control.setFaults({
			rules: [
				{ method: 'POST', path: '/api/v1/uploads', rate: 1, count: 1, mode: 'commit-then-drop' },
			],
		});
		const before = await counters(ws);
		const [item] = jsonOf(
			await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Dropped Prepare' })]),
		);
		expect(item.reportId).toMatch(/^rpt_/);
		const after = await counters(ws);
		expect(route(after, 'POST /api/v1/uploads') - route(before, 'POST /api/v1/uploads')).toBe(2);
		expect(after.reportsCreated - before.reportsCreated).toBe(1);
		expect(after.idempotentReplays - before.idempotentReplays).toBeGreaterThanOrEqual(1);
	});

	it('a committed start whose answer is lost is retried with the same key: exactly one attempt', async () => {
		await sandbox.control.setFaults({
			rules: [
				{ method: 'POST', path: '/api/v1/analyses', rate: 1, count: 1, mode: 'commit-then-drop' },
			],
		});
		const before = await counters(ws);
		const [item] = jsonOf(
			await runNode(ws, analyzeParams(ws), [pdfItem({ candidate: 'Dropped Start' })]),
		);
		expect(item.attemptId).toMatch(/^att_/);
		const after = await counters(ws);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(1);
		expect(after.storageAuthorizationHeaders).toBe(0);
	});

	it('a committed upload batch whose answer is lost is retried with the same key: exactly one batch', async () => {
		await sandbox.control.setFaults({
			rules: [
				{
					method: 'POST',
					path: '/api/v1/upload-batches',
					rate: 1,
					count: 1,
					mode: 'commit-then-drop',
				},
			],
		});
		const before = await counters(ws);
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
				[pdfItem({ candidate: 'B1' }, 'b1.pdf'), pdfItem({ candidate: 'B2' }, 'b2.pdf')],
			),
		);
		expect(out.every((o) => o.uploaded === true)).toBe(true);
		const after = await counters(ws);
		expect(after.batchesCreated - before.batchesCreated).toBe(1);
		expect(after.reportsCreated - before.reportsCreated).toBe(2);
	});
});

describe('Invite under injected failures', () => {
	it('an invitation committed while every answer was lost is recovered by the re-run with the same key: one interview, one email', async () => {
		const reportId = await completedReport(ws, { candidate: 'Lost Invitation' });
		const params = {
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: 'lost.invitation@example.com',
			options: { idempotencyKey: `lost-invite-${reportId}` },
		};
		// Every attempt of the first run is committed and then its connection is dropped.
		await sandbox.control.setFaults({
			rules: [{ method: 'POST', path: '/api/v1/interviews', rate: 1, mode: 'commit-then-drop' }],
		});
		const before = await counters(ws);
		const first = await runNode(ws, params);
		expect(first.error?.message).toContain('Could not get an answer');
		await sandbox.control.clearFaults();

		// The re-run quotes again; the quote no longer matches the committed body, so the API refuses the replay
		// (409 IDEMPOTENCY_KEY_REUSED) and the node outputs the invitation that exists.
		const [item] = jsonOf(await runNode(ws, params));
		const after = await counters(ws);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(1);
		expect(item).toMatchObject({
			reportId,
			recovered: true,
			recoveredFrom: 'IDEMPOTENCY_KEY_REUSED',
			delivery: 'email',
		});
		const { items: interviews } = (
			await apiCall(ws, 'GET', `/api/v1/interviews?reportId=${reportId}`)
		).body.data as {
			items: IDataObject[];
		};
		expect(interviews.map((i) => i.id)).toEqual([item.interviewId]);
		const mail = (await sandbox.control.mail(ws.workspaceId)).items.filter(
			(m) => m.to === 'lost.invitation@example.com',
		);
		expect(mail).toHaveLength(1);
	});
});
