/**
 * Workspace setting analysisDurationMs (sandbox control): analyses of that workspace take that long from admission
 * to their outcome (for benchmarks with analyses of realistic length); other workspaces keep the worker's steps.
 */
import { useTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { newWs, start, uploaded, waitStatus } from './setup';

let sb: TestSandbox;
useTestSandbox((started) => (sb = started), { sandbox: { workerDelayMs: 10 } });

test('an analysis lasts the workspace analysisDurationMs; a workspace without it keeps the worker steps', async () => {
	const slow = await newWs(sb);
	const patched = await sb.control.patchWorkspace(slow.workspaceId, { analysisDurationMs: 1500 });
	expect(patched.analysisDurationMs).toBe(1500);
	const fast = await newWs(sb);
	const slowId = await uploaded(slow, { candidate: 'Slow Analysis' });
	const fastId = await uploaded(fast, { candidate: 'Fast Analysis' });
	const t0 = Date.now();
	await start(slow, slowId);
	await start(fast, fastId);
	// The other workspace's analysis finishes in its two 10 ms steps, while this one is still running.
	expect(await waitStatus(fast, fastId, ['completed'])).toEqual(
		expect.objectContaining({ status: 'completed' }),
	);
	const meanwhile = await slow.call('GET', `/api/v1/reports/${slowId}/status`);
	expect(['queued', 'processing']).toContain(meanwhile.body.data.status);
	await waitStatus(slow, slowId, ['completed'], 10_000);
	expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
});

test('analysisDurationMs is validated like the other limits (a non-negative integer)', async () => {
	const ws = await newWs(sb);
	const res = await fetch(`${sb.baseUrl}/_sandbox/workspaces/${ws.workspaceId}`, {
		method: 'PATCH',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ analysisDurationMs: -1 }),
	});
	expect(res.status).toBe(400);
});
