/**
 * Every example workflow of examples/ in a real n8n (the package installed from its tarball) against the
 * sandbox: the manual examples through `n8n execute`, the trigger examples activated and fed by the sandbox's
 * own signed webhook deliveries at n8n's production webhook URL, and by the event feed.
 * The tests share one n8n and run in order: (a) creates the report and interview the triggers react to.
 */
import { randomBytes } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

import { delay, nodeOutput, type ExecutionSummary } from '../../scripts/n8n-host';
import { bootRealN8n, triggerPath, type RealN8n } from './helpers';

let env: RealN8n;
const wf: Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f', { id: string; path?: string; endpointId?: string }> = {} as never;
let feedActivatedAt = 0;
let reportId = '';
let interviewId = '';

beforeAll(async () => {
	env = await bootRealN8n('e2e-examples');
	const { n8n, sandbox } = env;
	const a = await env.importExample('analyze-one-resume.json');
	const d = await env.importExample('upload-many-start-many.json');
	const f = await env.importExample('analyze-many-resumes.json');
	const b = await env.importExample('report-result-to-ats.json');
	const e = await env.importExample('interview-result-decision.json');
	const c = await env.importExample('feed-route-by-event-type.json');
	wf.a = { id: a.id };
	wf.d = { id: d.id };
	wf.f = { id: f.id };
	for (const [key, imported] of [['b', b], ['e', e]] as const) {
		await n8n.activateWorkflow(imported.id);
		const path = triggerPath(imported.wf);
		// A production webhook exists once n8n stops answering 404 on it.
		await n8n.waitForWebhook(path, 30_000, 'POST');
		const events = imported.wf.nodes.find((node) => node.parameters.events)!.parameters.events as string[];
		const endpoint = await sandbox.control.registerWebhook(sandbox.seed.workspaceId, `${n8n.baseUrl}/webhook/${path}`, events);
		wf[key] = { id: imported.id, path, endpointId: endpoint.id };
	}
	await n8n.activateWorkflow(c.id);
	feedActivatedAt = Date.now();
	wf.c = { id: c.id };
}, 300_000);

afterAll(async () => {
	await env?.close();
});

test('(a) analyze one resume: Analyze Resume waits for the score, the IF invites the candidate', async () => {
	const result = await env.n8n.executeWorkflow(wf.a.id, { timeoutMs: 300_000 });
	expect(result.run).toBeDefined();
	const failure = { code: result.code, signal: result.signal, error: result.run!.data.resultData.error?.message };
	expect({ ok: result.ok, ...(result.ok ? {} : failure) }).toEqual({ ok: true });
	const run = result.run!.data;
	const analyzed = nodeOutput(run, 'Analyze Resume');
	expect(analyzed).toHaveLength(1);
	expect(analyzed[0].status).toBe('completed');
	// The example's resume carries RA-SANDBOX-SCORE=8, above the threshold of 7.
	expect((analyzed[0].result as { score: number }).score).toBe(8);
	reportId = String(analyzed[0].reportId ?? analyzed[0].id);
	expect(reportId).toMatch(/^rpt_/);
	expect(nodeOutput(run, 'Not Invited')).toHaveLength(0);
	const invited = nodeOutput(run, 'Invite to Interview');
	expect(invited).toHaveLength(1);
	interviewId = String(invited[0].interviewId);
	expect(interviewId).not.toBe('undefined');
	expect(invited[0].reportId).toBe(reportId);
	// Email delivery: the token is a bearer secret and must not be in the output.
	expect(invited[0].invitationToken ?? null).toBeNull();
	const mail = await env.sandbox.control.call<{ items: Array<{ to: string; interviewId: string }> }>(
		'GET',
		`/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/mail`,
	);
	expect(mail.items.some((m) => m.to === 'ada.example@example.com' && m.interviewId === interviewId)).toBe(true);
});

test('(b) the webhook trigger takes the signed report.result_ready at the production URL and appends the ATS row', async () => {
	expect(reportId).not.toBe('');
	const [execution] = await env.n8n.waitForExecutions(wf.b.id, 1, 60_000);
	expect(execution.mode).toBe('webhook');
	expect(execution.status).toBe('success');
	const run = (await env.n8n.getExecution(execution.id)).data;
	const event = nodeOutput(run, 'Report Result Ready')[0];
	expect(event.type).toBe('report.result_ready');
	expect((event.data as { reportId: string }).reportId).toBe(reportId);
	const rows = nodeOutput(run, 'Append ATS Row');
	expect(rows).toHaveLength(1);
	expect(rows[0]).toMatchObject({ reportId, status: 'completed', score: 8, scoreMaximum: 10 });
	const deliveries = await env.sandbox.control.deliveries(wf.b.endpointId!);
	const delivered = deliveries.items.find((d) => d.eventId === event.id);
	expect(delivered?.state).toMatch(/succeeded|delivered/);
	expect(delivered?.attempts.at(-1)?.status).toBe(200);
});

test('a forged or unsigned delivery is answered 401 and starts no execution', async () => {
	const before = (await env.n8n.listExecutions(wf.b.id)).length;
	const url = `${env.n8n.baseUrl}/webhook/${wf.b.path}`;
	const body = JSON.stringify({
		id: '5f0c8c36-9a4e-4d0c-b0f5-000000000001',
		type: 'report.result_ready',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { reportId, attemptId: 'att_forged', resultRevision: 'f'.repeat(64) },
	});
	const forger = new Webhook(`whsec_${randomBytes(24).toString('base64')}`);
	const now = new Date();
	const forged = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': 'msg_forged',
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': forger.sign('msg_forged', now, body),
		},
		body,
	});
	expect(forged.status).toBe(401);
	const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
	expect(unsigned.status).toBe(401);
	// Signed with the real secret but a body changed afterwards: still rejected.
	const genuine = new Webhook(env.sandbox.seed.webhookSecret);
	const tampered = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': 'msg_tampered',
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': genuine.sign('msg_tampered', now, body),
		},
		body: body.replace('att_forged', 'att_changed'),
	});
	expect(tampered.status).toBe(401);
	await delay(3000);
	expect((await env.n8n.listExecutions(wf.b.id)).length).toBe(before);
});

test('(e) interview.result_ready starts the interview workflow, which reads the result and decides', async () => {
	expect(interviewId).not.toBe('');
	for (const type of ['interview.started', 'interview.completed', 'interview.result_ready']) {
		await env.sandbox.control.interviewEvent(interviewId, type);
	}
	const [execution] = await env.n8n.waitForExecutions(wf.e.id, 1, 60_000);
	expect(execution.status).toBe('success');
	const run = (await env.n8n.getExecution(execution.id)).data;
	const event = nodeOutput(run, 'Interview Result Ready')[0];
	expect(event.type).toBe('interview.result_ready');
	const result = nodeOutput(run, 'Get Interview Result')[0] as { id: string; result: { scores: { readiness: number } } | null };
	expect(result.id).toBe(interviewId);
	expect(result.result).not.toBeNull();
	const advanced = nodeOutput(run, 'Advance Candidate');
	const review = nodeOutput(run, 'Human Review');
	expect(advanced.length + review.length).toBe(1);
	const decision = (advanced[0] ?? review[0]) as { interviewId: string; decision: string; readiness: number };
	expect(decision.interviewId).toBe(interviewId);
	expect(decision.decision).toBe(result.result!.scores.readiness >= 70 ? 'advance' : 'review');
});

test('(d) many resumes: Upload Many then Start Many through the batch endpoints', async () => {
	const countersBefore = await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
	const result = await env.n8n.executeWorkflow(wf.d.id, { timeoutMs: 300_000 });
	expect(result.run).toBeDefined();
	expect(result.ok).toBe(true);
	const run = result.run!.data;
	const uploaded = nodeOutput(run, 'Upload Many');
	expect(uploaded).toHaveLength(3);
	const uploadedIds = uploaded.map((u) => String(u.reportId));
	for (const id of uploadedIds) expect(id).toMatch(/^rpt_/);
	const started = nodeOutput(run, 'Start Many');
	expect(started).toHaveLength(3);
	expect(started.map((s) => String(s.reportId)).sort()).toEqual([...uploadedIds].sort());
	for (const item of started) expect(item.error).toBeUndefined();
	const countersAfter = await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
	// One upload batch and one analysis batch for the three resumes.
	expect(Number(countersAfter.batchesCreated) - Number(countersBefore.batchesCreated)).toBe(2);
});

test('(f) many resumes: Analyze Many uploads and analyzes 25 files in pipelined batches, the shortlist keeps scores of 7 and more', async () => {
	const countersBefore = await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
	const result = await env.n8n.executeWorkflow(wf.f.id, { timeoutMs: 300_000 });
	expect(result.ok).toBe(true);
	const run = result.run!.data;
	const analyzed = nodeOutput(run, 'Analyze Many') as Array<{ state: string; reportId: string; report?: { status: string; result: { score: number } } }>;
	expect(analyzed).toHaveLength(25);
	for (const item of analyzed) {
		expect(item.state).toBe('succeeded');
		expect(item.report?.status).toBe('completed');
	}
	// The Code node gives candidate i the score 3 + (i mod 7): 9 of the 25 score 7, 8 or 9.
	const scores = analyzed.map((item) => item.report!.result.score);
	expect(scores).toEqual(Array.from({ length: 25 }, (_, i) => 3 + (i % 7)));
	const shortlist = nodeOutput(run, 'Shortlist') as Array<{ candidate: string; score: number }>;
	expect(shortlist).toHaveLength(9);
	expect(shortlist.map((s) => s.score)).toEqual([...shortlist.map((s) => s.score)].sort((a, b) => b - a));
	expect(shortlist[0]).toEqual(expect.objectContaining({ candidate: 'Candidate 07', score: 9 }));
	const countersAfter = await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
	// Two upload batches and two analysis batches (20 + 5).
	expect(Number(countersAfter.batchesCreated) - Number(countersBefore.batchesCreated)).toBe(4);
});

test('(c) the feed trigger picks up events published after activation and routes them by type', async () => {
	// Polls run every minute; the events of (a), (d) and (e) all came after activation.
	const executions: ExecutionSummary[] = await env.n8n.waitForExecutions(wf.c.id, 1, 150_000);
	const runs = await Promise.all(executions.map(async (e) => (await env.n8n.getExecution(e.id)).data));
	const events = runs.flatMap((run) => nodeOutput(run, 'Event Feed')) as Array<{ id: string; type: string; occurredAt: string }>;
	expect(events.length).toBeGreaterThan(0);
	for (const event of events) expect(Date.parse(event.occurredAt)).toBeGreaterThanOrEqual(feedActivatedAt - 1000);
	expect(events.map((e) => e.type)).toContain('report.result_ready');
	const reportRoute = runs.flatMap((run) => nodeOutput(run, 'Report Events'));
	expect(reportRoute.length).toBeGreaterThan(0);
	for (const routed of reportRoute) expect(String(routed.type)).toMatch(/^report\./);
	for (const routed of runs.flatMap((run) => nodeOutput(run, 'Interview Events'))) {
		expect(String(routed.type)).toMatch(/^interview\./);
	}
});
