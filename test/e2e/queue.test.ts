/**
 * Queue mode: one stack serves every test of this file. Redis, PostgreSQL, the main, two workers and
 * two webhook processes (scripts/n8n-host/queue.ts), binary data in database mode, our package installed once
 * from the tarball. Manual runs are started as the editor starts them and run on a worker (which one: its log);
 * production webhooks reach the webhook processes only; the feed trigger polls from the main.
 * The worker lock is shortened (10 s instead of 60 s) so that a killed worker is noticed within seconds.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
	createWriteStream,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Webhook } from 'standardwebhooks';

import { delay, nodeOutput, type ExecutionDetail, type WorkflowJson } from '../../scripts/n8n-host';
import { APPROVE, answerForm, runAsEditor, settled, waitingForm } from '../../scripts/start-kit';
import { makePdf } from '../fixtures/resumes';
import { bootRealN8n, NODE_TYPES, triggerPath, type RealN8n } from './helpers';

let env: RealN8n;
let filesDir: string;
let monitor: ChildProcess | undefined;
let monitorLog: string;
const reportIds: string[] = [];
const wf: Record<string, { id: string; path?: string; endpointId?: string; wf: WorkflowJson }> = {};
const MB = 2 ** 20;

const stack = () => env.stack!;
const counters = async () => {
	const c = await env.sandbox.control.counters(env.sandbox.seed.workspaceId);
	return c as Record<string, number>;
};

/** `count` distinct small PDFs (or of `sizeBytes`) in a folder of filesDir; returns the glob. */
function writeResumes(
	name: string,
	count: number,
	o: { sizeBytes?: number; score?: (i: number) => number } = {},
): string {
	const dir = join(filesDir, name);
	mkdirSync(dir, { recursive: true });
	for (let i = 0; i < count; i++) {
		const candidate = `${name} ${String(i).padStart(3, '0')}`;
		writeFileSync(
			join(dir, `${name}-${String(i).padStart(3, '0')}.pdf`),
			makePdf({ candidate, outcome: 'completed', score: o.score?.(i), sizeBytes: o.sizeBytes }),
		);
	}
	return join(dir, '*.pdf');
}

/** Manual trigger → Read/Write Files (binaries into n8n's store: the database here) → our node. */
function filesWorkflow(
	name: string,
	glob: string,
	parameters: Record<string, unknown>,
	settings: Record<string, unknown> = {},
): WorkflowJson {
	return {
		name,
		nodes: [
			{
				id: randomUUID(),
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomUUID(),
				name: 'Read Resumes',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [200, 0],
				parameters: {
					operation: 'read',
					fileSelector: glob,
					options: { dataPropertyName: 'data' },
				},
			},
			{
				id: randomUUID(),
				name: 'Recruiting Analysis',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [400, 0],
				parameters,
				credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
			},
		],
		connections: {
			Run: { main: [[{ node: 'Read Resumes', type: 'main', index: 0 }]] },
			'Read Resumes': { main: [[{ node: 'Recruiting Analysis', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', ...settings },
	};
}

const analyzeMany = (glob: string, settings: Record<string, unknown> = {}) =>
	filesWorkflow(
		`queue: Analyze Many ${glob}`,
		glob,
		{
			resource: 'analysis',
			operation: 'analyzeMany',
			spendingLimit: 0,
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: env.sandbox.seed.jobDescriptionId,
			options: {},
		},
		settings,
	);

/** The binary ids the Read/Write Files node stored (`database:…` in database mode). */
function binaryIds(run: ExecutionDetail): string[] {
	const items = run.data.resultData.runData['Read Resumes']?.[0]?.data?.main?.[0] ?? [];
	return items.map((i) => String((i.binary?.data as { id?: string } | undefined)?.id));
}

function signedDelivery(event: Record<string, unknown>): {
	headers: Record<string, string>;
	body: string;
} {
	const body = JSON.stringify(event);
	const now = new Date();
	const id = String(event.id);
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': new Webhook(env.sandbox.seed.webhookSecret).sign(id, now, body),
		},
	};
}

async function deliver(
	baseUrl: string,
	path: string,
	event: Record<string, unknown>,
): Promise<number> {
	const { headers, body } = signedDelivery(event);
	const res = await fetch(`${baseUrl}/webhook/${path}`, { method: 'POST', headers, body });
	await res.arrayBuffer();
	return res.status;
}

/** Every finished execution of a workflow (the list is paged by 100; these tests stay below that). */
async function finished(workflowId: string, atLeast: number, timeoutMs = 120_000) {
	return env.n8n.waitForExecutions(workflowId, atLeast, timeoutMs);
}

beforeAll(async () => {
	filesDir = mkdtempSync(join(tmpdir(), 'ra-queue-files-'));
	env = await bootRealN8n('e2e-queue', {
		queue: {
			workers: 2,
			webhooks: 2,
			env: {
				N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
				QUEUE_WORKER_LOCK_DURATION: '10000',
				QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
				QUEUE_WORKER_STALLED_INTERVAL: '5000',
			},
		},
	});
	// Every command Redis receives from here on, for the secret check at the end.
	monitorLog = join(env.userFolder, 'redis-monitor.log');
	monitor = spawn('redis-cli', ['-h', '127.0.0.1', '-p', String(stack().redis.port), 'monitor'], {
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	monitor.stdout!.pipe(createWriteStream(monitorLog));
	const { n8n, sandbox } = env;
	for (const [key, file] of [
		['a', 'analyze-one-resume.json'],
		['d', 'upload-many-start-many.json'],
		['b', 'report-result-to-ats.json'],
		['e', 'interview-result-decision.json'],
		['c', 'feed-route-by-event-type.json'],
	] as const) {
		const imported = await env.importExample(file);
		wf[key] = { id: imported.id, wf: imported.wf };
	}
	for (const key of ['b', 'e']) {
		await n8n.activateWorkflow(wf[key].id);
		const path = triggerPath(wf[key].wf);
		// The webhook processes read registrations from PostgreSQL: each must stop answering 404.
		for (const p of stack().webhooks) await p.instance.waitForWebhook(path, 30_000, 'POST');
		const events = wf[key].wf.nodes.find((node) => node.parameters.events)!.parameters
			.events as string[];
		const endpoint = await sandbox.control.registerWebhook(
			sandbox.seed.workspaceId,
			`${stack().webhooks[0].instance.baseUrl}/webhook/${path}`,
			events,
		);
		wf[key].path = path;
		wf[key].endpointId = endpoint.id;
	}
	await n8n.activateWorkflow(wf.c.id);
}, 420_000);

afterAll(async () => {
	monitor?.kill();
	await env?.close();
	if (filesDir) rmSync(filesDir, { recursive: true, force: true });
});

/**
 * Runs a manual example as the editor does; when it stops at the recruiter's approval form (examples that invite
 * candidates), answers it with yes and follows the execution to its end.
 */
async function runApproved(workflowId: string): Promise<ExecutionDetail & { worker?: string }> {
	const main = stack().main.instance;
	const first = await runAsEditor(main, workflowId, 'Run Example');
	const form = waitingForm(first, main.baseUrl);
	if (form) await answerForm(form, [APPROVE]);
	const done = form ? await settled(main, first.id) : first;
	return { ...done, worker: stack().whoRan(done.id) };
}

test('every example runs to success on a worker: analyze one resume, Upload Many + Start Many', async () => {
	const a = await runApproved(wf.a.id);
	expect(a.status).toBe('success');
	expect(a.worker).toMatch(/^worker-\d$/);
	const analyzed = nodeOutput(a.data, 'Analyze Resume');
	expect(analyzed[0].score).toBe(8);
	expect(nodeOutput(a.data, 'Invite to Interview')).toHaveLength(1);
	const d = await stack().runManually(wf.d.id, 'Run Example');
	expect(d.status).toBe('success');
	expect(d.worker).toMatch(/^worker-\d$/);
	expect(nodeOutput(d.data, 'Start Many')).toHaveLength(3);
	process.stderr.write(
		`[queue] analyze-one-resume ran on ${a.worker} (execution ${a.id}), upload-many-start-many on ${d.worker} (execution ${d.id})\n`,
	);
});

test('signed webhooks through the webhook process start the trigger examples, which run on a worker; a forged one gets 401', async () => {
	const [b] = await finished(wf.b.id, 1);
	expect(b.mode).toBe('webhook');
	expect(b.status).toBe('success');
	expect(stack().whoRan(b.id)).toMatch(/^worker-\d$/);
	// The main serves no production webhook (N8N_DISABLE_PRODUCTION_MAIN_PROCESS): the webhook process took it.
	const mainAnswer = await fetch(`${env.n8n.baseUrl}/webhook/${wf.b.path}`, {
		method: 'POST',
		body: '{}',
	});
	expect(mainAnswer.status).toBe(404);
	// The first result_ready delivered may be of any report the examples above made: its row carries that report's
	// own score, as the API gives it.
	const rows = nodeOutput((await env.n8n.getExecution(b.id)).data, 'Append ATS Row');
	const report = await fetch(`${env.sandbox.baseUrl}/api/v1/reports/${String(rows[0].reportId)}`, {
		headers: { authorization: `Bearer ${env.sandbox.seed.apiKey}` },
	});
	const { data } = (await report.json()) as { data: { result: { score: number } | null } };
	expect(data.result?.score).toEqual(expect.any(Number));
	expect(rows[0]).toMatchObject({ status: 'completed', score: data.result!.score });
	const forged = signedDelivery({ id: randomUUID(), type: 'report.result_ready', data: {} });
	forged.headers['webhook-signature'] = `v1,${Buffer.alloc(32).toString('base64')}`;
	const res = await fetch(`${stack().webhooks[1].instance.baseUrl}/webhook/${wf.b.path}`, {
		method: 'POST',
		...forged,
	});
	expect(res.status).toBe(401);
	// interview.result_ready for the interview the first example invited.
	const interviews = await env.sandbox.control.call<{ items: Array<{ interviewId: string }> }>(
		'GET',
		`/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/mail`,
	);
	const interviewId = interviews.items[0].interviewId;
	for (const type of ['interview.started', 'interview.completed', 'interview.result_ready']) {
		await env.sandbox.control.interviewEvent(interviewId, type);
	}
	const [e] = await finished(wf.e.id, 1);
	expect(e.status).toBe('success');
	expect(stack().whoRan(e.id)).toMatch(/^worker-\d$/);
	// The later tests analyse 160 files: their events need not run these two workflows on a 2-core machine.
	for (const key of ['b', 'e'])
		await env.sandbox.control.call('DELETE', `/_sandbox/webhook-endpoints/${wf[key].endpointId}`);
});

test('Analyze Many with 100 files from database-mode binaries, on a worker', async () => {
	const glob = writeResumes('many', 100, { score: (i) => i % 11 });
	const created = await env.n8n.createWorkflow(analyzeMany(glob));
	const before = await counters();
	const run = await stack().runManually(created.id, 'Run', 420_000);
	expect(run.status).toBe('success');
	expect(run.worker).toMatch(/^worker-\d$/);
	const ids = binaryIds(run);
	expect(ids).toHaveLength(100);
	for (const id of ids) expect(id).toMatch(/^database:/);
	const out = nodeOutput(run.data, 'Recruiting Analysis') as Array<{
		analysisState: string;
		reportId: string;
	}>;
	expect(out).toHaveLength(100);
	expect(out.filter((o) => o.analysisState === 'succeeded')).toHaveLength(100);
	reportIds.push(...out.map((o) => o.reportId));
	const after = await counters();
	expect(after.attemptsCreated - before.attemptsCreated).toBe(100);
	expect(after.storagePuts - before.storagePuts).toBe(100);
	process.stderr.write(
		`[queue] Analyze Many 100 files on ${run.worker}: ${Date.parse(run.stoppedAt!) - Date.parse(run.startedAt)} ms\n`,
	);
});

test('Upload Resume streams 10 MB files out of database-mode binaries on a worker', async () => {
	const glob = writeResumes('big', 4, { sizeBytes: 10 * MB });
	const created = await env.n8n.createWorkflow(
		filesWorkflow('queue: Upload Resume 10 MB', glob, {
			resource: 'upload',
			operation: 'uploadResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: env.sandbox.seed.jobDescriptionId,
			options: {},
		}),
	);
	const before = await counters();
	const run = await stack().runManually(created.id, 'Run');
	expect(run.status).toBe('success');
	expect(run.worker).toMatch(/^worker-\d$/);
	for (const id of binaryIds(run)) expect(id).toMatch(/^database:/);
	expect(nodeOutput(run.data, 'Recruiting Analysis')).toHaveLength(4);
	const after = await counters();
	expect(after.storagePuts - before.storagePuts).toBe(4);
	expect(after.storageAuthorizationHeaders - before.storageAuthorizationHeaders).toBe(0);
});

// ---------------------------------------------------------------------------------------------
// Two webhook processes serving the same workflow
// ---------------------------------------------------------------------------------------------

test('the same event at both webhook processes at once, and a burst with redeliveries: executions and charged writes per event id', async () => {
	expect(reportIds.length).toBeGreaterThanOrEqual(30);
	// report.result_ready → Invite (email): the charged write a duplicate execution would repeat.
	const webhookId = randomUUID();
	const workflow: WorkflowJson = {
		name: 'queue: invite on report.result_ready',
		nodes: [
			{
				id: randomUUID(),
				name: 'Report Ready',
				type: NODE_TYPES.trigger,
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: { events: ['report.result_ready'], options: {} },
				credentials: {
					recruitingAnalysisSigningSecretApi: env.credentials.recruitingAnalysisSigningSecretApi,
				},
			},
			{
				id: randomUUID(),
				name: 'Invite',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [200, 0],
				parameters: {
					resource: 'interview',
					operation: 'invite',
					spendingLimit: 0,
					reportId: '={{ $json.data.reportId }}',
					candidateEmail: '={{ "cand-" + $json.data.reportId + "@example.com" }}',
					delivery: 'email',
					quoteAutomatically: true,
					options: {},
				},
				credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
			},
		],
		connections: { 'Report Ready': { main: [[{ node: 'Invite', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
	const created = await env.n8n.createWorkflow(workflow);
	await env.n8n.activateWorkflow(created.id);
	const path = `${webhookId}/webhook`;
	const [w1, w2] = stack().webhooks.map((p) => p.instance.baseUrl);
	for (const p of stack().webhooks) await p.instance.waitForWebhook(path, 30_000, 'POST');
	const event = (reportId: string) => ({
		id: randomUUID(),
		type: 'report.result_ready',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { reportId, attemptId: 'att_queue', resultRevision: 'a'.repeat(64) },
	});
	const before = await counters();
	// (1) Ten events, each delivered to both processes at the same moment.
	const simultaneous = reportIds.slice(0, 10).map(event);
	const statuses: number[] = [];
	await Promise.all(
		simultaneous.map(async (e) =>
			statuses.push(...(await Promise.all([deliver(w1, path, e), deliver(w2, path, e)]))),
		),
	);
	// (2) A burst: 20 events at random processes, each redelivered once or twice within 2 s, all interleaved.
	const burst = reportIds.slice(10, 30).map(event);
	let seed = 7;
	const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	const sends: Array<Promise<void>> = [];
	let deliveries = 0;
	for (const e of burst) {
		const times = 2 + Math.floor(rand() * 2);
		for (let k = 0; k < times; k++) {
			const at = k === 0 ? rand() * 500 : rand() * 2000;
			const target = rand() < 0.5 ? w1 : w2;
			deliveries++;
			sends.push(delay(at).then(async () => void statuses.push(await deliver(target, path, e))));
		}
	}
	await Promise.all(sends);
	// Each copy is acknowledged, or answered 503 while its first copy is still in flight in that process (the sender
	// retries it: docs/triggers.md); the counts below show every event ran.
	expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
	const all = [...simultaneous, ...burst];
	// Every distinct event ran at least once; wait for the executions to settle.
	let executions = await finished(created.id, all.length, 240_000);
	await delay(5000);
	executions = await finished(created.id, all.length, 60_000);
	const perEvent = new Map<string, number>();
	const failedRuns: string[] = [];
	for (const ex of executions) {
		const run = await env.n8n.getExecution(ex.id);
		const trigger = nodeOutput(run.data, 'Report Ready')[0] as { id: string } | undefined;
		if (trigger) perEvent.set(trigger.id, (perEvent.get(trigger.id) ?? 0) + 1);
		if (ex.status !== 'success')
			failedRuns.push(`${ex.id}: ${run.data.resultData.error?.message ?? ex.status}`);
	}
	const after = await counters();
	const simultaneousRuns = simultaneous.map((e) => perEvent.get(e.id) ?? 0);
	const burstRuns = burst.map((e) => perEvent.get(e.id) ?? 0);
	const mail = await env.sandbox.control.call<{
		items: Array<{ to: string; interviewId: string }>;
	}>('GET', `/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/mail`);
	const emailsPerAddress = new Map<string, number>();
	for (const m of mail.items)
		if (m.to.startsWith('cand-')) emailsPerAddress.set(m.to, (emailsPerAddress.get(m.to) ?? 0) + 1);
	const figures = {
		distinctEvents: all.length,
		deliveries: simultaneous.length * 2 + deliveries,
		executions: executions.length,
		simultaneous: {
			events: simultaneous.length,
			executions: simultaneousRuns.reduce((x, y) => x + y, 0),
			max: Math.max(...simultaneousRuns),
		},
		burst: {
			events: burst.length,
			deliveries,
			executions: burstRuns.reduce((x, y) => x + y, 0),
			max: Math.max(...burstRuns),
		},
		failedExecutions: failedRuns.length,
		interviewsCreated: after.interviewsCreated - before.interviewsCreated,
		emailsSent: after.emailsSent - before.emailsSent,
		maxEmailsPerAddress: Math.max(...emailsPerAddress.values()),
		idempotentReplays: after.idempotentReplays - before.idempotentReplays,
	};
	process.stderr.write(
		`[queue] dedupe across two webhook processes: ${JSON.stringify(figures)}\n${failedRuns.slice(0, 5).join('\n')}\n`,
	);
	writeFigures('dedupe', figures);
	// Every event ran; the effect is exactly once: one interview and one email per event, and a duplicate execution
	// gets the same interview back through its key (a replay), so it succeeds instead of failing on a 409.
	for (const e of all) expect(perEvent.get(e.id) ?? 0).toBeGreaterThanOrEqual(1);
	expect(figures.interviewsCreated).toBe(all.length);
	expect(figures.emailsSent).toBe(all.length);
	expect(figures.maxEmailsPerAddress).toBe(1);
	expect(failedRuns).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// A worker killed in the middle of Analyze Many
// ---------------------------------------------------------------------------------------------

test('a worker killed (SIGKILL) during Analyze Many of 60 files: what n8n records, what Retry does, and 0 duplicates charged by the re-run', async () => {
	const glob = writeResumes('kill', 60, { score: (i) => i % 11 });
	const created = await env.n8n.createWorkflow(analyzeMany(glob));
	const before = await counters();
	const started = await env.n8n.rest<{ executionId: string }>(
		'POST',
		`/workflows/${created.id}/run`,
		{ triggerToStartFrom: { name: 'Run' } },
	);
	const executionId = started.executionId;
	// Wait until the worker has charged the first analyses, then kill that worker (and its task runner).
	const deadline = Date.now() + 180_000;
	let worker: string | undefined;
	for (;;) {
		worker ??= stack().whoRan(executionId);
		const c = await counters();
		if (worker && c.attemptsCreated - before.attemptsCreated >= 1) break;
		if (Date.now() > deadline) throw new Error('Analyze Many never started analyses');
		await delay(200);
	}
	const victim = stack().workers.find((w) => w.name === worker)!;
	await stack().kill(victim);
	const atKill = await counters();
	// n8n runs jobs with maxStalledCount 0: once the dead worker's lock expires, the job fails and the main records
	// the execution as an error, keeping no node's data (FailedRunFactory writes a run with the error only).
	const crashed = await stack().waitForExecution(executionId, 180_000);
	const recorded = {
		status: crashed.status,
		error: crashed.data.resultData.error?.message,
		lastNodeExecuted: crashed.data.resultData.lastNodeExecuted ?? null,
	};
	expect(recorded.status).toBe('error');
	expect(recorded.error).toMatch(/failed to be processed too many times/);
	// A replacement worker, as an orchestrator would start one.
	await stack().startWorker();
	// The user's first move, Retry in the executions list: with no node recorded there is nothing to resume, so
	// n8n's Retry ends at once with the same error (ExecutionService.retry keeps the error without lastNodeExecuted).
	const retried = await env.n8n.rest<{ id: string; status: string; retryOf: string }>(
		'POST',
		`/executions/${executionId}/retry`,
		{ loadWorkflow: false },
	);
	expect(retried.retryOf).toBe(executionId);
	const retry = await stack().waitForExecution(retried.id, 120_000);
	expect(retry.status).toBe('error');
	const afterRetry = await counters();
	expect(afterRetry.attemptsCreated).toBe(atKill.attemptsCreated);
	// What works: run the workflow again on the same files. The writes already made are recovered by their keys.
	const rerun = await stack().runManually(created.id, 'Run', 420_000);
	expect(rerun.status).toBe('success');
	const out = nodeOutput(rerun.data, 'Recruiting Analysis') as Array<{
		analysisState: string;
		reportId: string;
	}>;
	expect(out).toHaveLength(60);
	const after = await counters();
	const figures = {
		killedWorker: worker,
		analysesChargedBeforeKill: atKill.attemptsCreated - before.attemptsCreated,
		recorded,
		retry: {
			execution: retried.id,
			status: retry.status,
			error: retry.data.resultData.error?.message,
		},
		rerun: {
			execution: rerun.id,
			worker: rerun.worker,
			succeeded: out.filter((o) => o.analysisState === 'succeeded').length,
		},
		analysesCharged: after.attemptsCreated - before.attemptsCreated,
		reportsCreated: after.reportsCreated - before.reportsCreated,
		idempotentReplays: after.idempotentReplays - before.idempotentReplays,
	};
	process.stderr.write(`[queue] worker kill: ${JSON.stringify(figures)}\n`);
	writeFigures('worker-kill', figures);
	// Every file analysed once in the re-run's output, and the killed run's analyses were all charged.
	expect(new Set(out.map((o) => o.reportId)).size).toBe(60);
	expect(figures.analysesChargedBeforeKill).toBeGreaterThanOrEqual(20);
	// Exactly once across the crash: the re-run's keys name the business write (the file, the job; the report and
	// its quote), as the killed run's did, so its uploads and analyses are recovered, not charged again. (With keys
	// derived from the execution, as they once were, this re-run charged 80 analyses and created 100 reports.)
	expect(figures.analysesCharged).toBe(60);
	expect(figures.reportsCreated).toBe(60);
	expect(figures.idempotentReplays).toBeGreaterThan(0);
});

// ---------------------------------------------------------------------------------------------
// The feed trigger across a restart of the main; secrets
// ---------------------------------------------------------------------------------------------

test('the feed trigger polls from the main and keeps its position across a restart of the main', async () => {
	const readState = () => {
		const out = execFileSync(
			join(stack().postgres.binDir, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(stack().postgres.port),
				'-U',
				stack().postgres.user,
				'-d',
				stack().postgres.database,
				'-tAc',
				`SELECT "staticData" FROM workflow_entity WHERE id = '${wf.c.id}'`,
			],
			{ encoding: 'utf8' },
		);
		return out.trim();
	};
	// One poll with events has happened by now (activated minutes ago; the examples above published events).
	const first = await finished(wf.c.id, 1, 150_000);
	const stateBefore = readState();
	expect(stateBefore).toMatch(/cursor/i);
	const restartAt = Date.now();
	await stack().restartMain();
	// Kept, not reset: the same position (started at the same time, same filters), at the same event or, when a poll
	// of the old main ended between the read above and the kill, further on (never back).
	const feedOf = (state: string) =>
		(
			JSON.parse(state) as Record<
				string,
				{ feed: { filterKey: string; positionSince: string; lastEventAt: string } }
			>
		)['node:Event Feed'].feed;
	const before = feedOf(stateBefore);
	const kept = feedOf(readState());
	expect({ filterKey: kept.filterKey, positionSince: kept.positionSince }).toEqual({
		filterKey: before.filterKey,
		positionSince: before.positionSince,
	});
	expect(Date.parse(kept.lastEventAt)).toBeGreaterThanOrEqual(Date.parse(before.lastEventAt));
	// New events after the restart: an interview for a report analysed earlier.
	const a = await runApproved(wf.a.id);
	expect(a.status).toBe('success');
	const executions = await finished(wf.c.id, first.length + 1, 150_000);
	const fresh = executions.filter((e) => Date.parse(e.startedAt) > restartAt);
	expect(fresh.length).toBeGreaterThan(0);
	const seen = new Map<string, number>();
	for (const e of executions) {
		expect(stack().whoRan(e.id)).toMatch(/^worker-\d$/);
		const run = await env.n8n.getExecution(e.id);
		for (const ev of nodeOutput(run.data, 'Event Feed'))
			seen.set(String(ev.id), (seen.get(String(ev.id)) ?? 0) + 1);
	}
	// No event twice across the restart: the position was kept, not restarted.
	expect([...seen.values()].every((n) => n === 1)).toBe(true);
	const afterRestart = (
		await Promise.all(
			fresh.map(async (e) => nodeOutput((await env.n8n.getExecution(e.id)).data, 'Event Feed')),
		)
	).flat();
	for (const ev of afterRestart)
		expect(Date.parse(String(ev.occurredAt))).toBeGreaterThanOrEqual(restartAt - 60_000);
	expect(readState()).not.toBe(stateBefore);
	process.stderr.write(
		`[queue] feed: ${first.length} poll(s) before the restart, ${fresh.length} after; ${seen.size} distinct events, none twice\n`,
	);
});

test('the API key is nowhere in PostgreSQL (the whole database, execution data included) nor in Redis', async () => {
	const { postgres, redis } = stack();
	const dump = execFileSync(
		join(postgres.binDir, 'pg_dump'),
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(postgres.port),
			'-U',
			postgres.user,
			'--data-only',
			postgres.database,
		],
		{ encoding: 'utf8', maxBuffer: 1024 * MB },
	);
	// The dump does hold the execution data (a report id of the runs above), in plain text.
	expect(dump).toContain(reportIds[0]);
	expect(dump).not.toContain(env.sandbox.seed.apiKey);
	monitor?.kill();
	await delay(500);
	const traffic = readFileSync(monitorLog, 'utf8');
	expect(traffic).toMatch(/bull/);
	expect(traffic).not.toContain(env.sandbox.seed.apiKey);
	const keys = execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(redis.port), '--scan'], {
		encoding: 'utf8',
	})
		.split('\n')
		.filter(Boolean);
	expect(keys.length).toBeGreaterThan(0);
	for (const key of keys) {
		const type = execFileSync('redis-cli', ['-p', String(redis.port), 'TYPE', key], {
			encoding: 'utf8',
		}).trim();
		const read = {
			string: ['GET'],
			hash: ['HGETALL'],
			list: ['LRANGE', '0', '-1'],
			set: ['SMEMBERS'],
			zset: ['ZRANGE', '0', '-1'],
		}[type];
		if (!read) continue;
		const [cmd, ...args] = read;
		const value = execFileSync('redis-cli', ['-p', String(redis.port), cmd, key, ...args], {
			encoding: 'utf8',
			maxBuffer: 256 * MB,
		});
		expect(value).not.toContain(env.sandbox.seed.apiKey);
	}
});

/** Figures of this run for docs/scaling.md, written beside the run's n8n logs (never into the repository). */
function writeFigures(name: string, figures: unknown): void {
	writeFileSync(join(env.userFolder, `queue-${name}.json`), JSON.stringify(figures, null, 2));
}
