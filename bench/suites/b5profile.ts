/**
 * B5 profile: where an acknowledgement's time goes. One n8n started with `--cpu-prof` (NODE_OPTIONS of the n8n
 * process only) receives the B5 load in turn on four receivers, each after a warm-up of its own:
 *   trigger   the Recruiting Analysis Trigger (verification, dedupe in workflow static data, answer, then the run),
 *   webhook   n8n's own Webhook node answering at once (no verification, no state),
 *   isolate   the same Webhook node with one option written as an expression: n8n takes an expression isolate for the
 *             request, as for every trigger that is not its own Webhook node with static parameters,
 *   state     n8n's core nodes keeping state the same way: Webhook (answers at once) → Code node that drops an event
 *             id already held in the workflow's static data and adds it otherwise (no verification),
 * and the CPU profile of the n8n main process written when it stops is cut into each receiver's delivery window
 * (bench/lib/cpuprofile.ts): CPU milliseconds per delivery by category, and the functions with the most self time.
 * Profiling slows n8n down, so the latencies here are not B5's; the figures to compare are the shares.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { N8nInstance, WorkflowJson } from '../../scripts/n8n-host';
import { analyzeWindow, monotonicMicros, readProfile, type ProfileWindow } from '../lib/cpuprofile';
import { credentialsFor, n8nPid, publish, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { plainWebhook, webhookTrigger } from '../lib/workflows';
import { deliver, settledExecutions, summarize, waitRegistered, type B5Result } from './b5';

export type ProfiledReceiver = 'trigger' | 'webhook' | 'isolate' | 'state';

export interface B5ProfileRun {
	receiver: ProfiledReceiver;
	result: B5Result;
	profile?: ProfileWindow;
	/** CPU ms of the n8n main process per delivery in the window (idle excluded). */
	cpuMsPerDelivery?: number;
	/** The delivery window, monotonic µs (the profile's clock). */
	windowUs: [number, number];
}

export interface B5ProfileResults {
	deliveries: number;
	concurrency: number;
	profileFile?: string;
	sampleIntervalUs: number;
	runs: B5ProfileRun[];
	problem?: string;
	source?: {
		command: string;
		startedAt: string;
		gitCommit?: string;
		load: number[];
		loadAtEnd?: number[];
	};
}

/** Webhook (answers at once) → Code node deduplicating by event id in the workflow's static data. */
function staticDataReceiver(o: { name: string; path: string }): WorkflowJson {
	const hook = plainWebhook({ name: o.name, path: o.path });
	const jsCode = [
		"const state = $getWorkflowStaticData('global');",
		'const seen = Array.isArray(state.seenEventIds) ? state.seenEventIds : [];',
		'const id = $input.first().json.body.id;',
		'if (seen.includes(id)) return [];',
		'seen.push(id);',
		'state.seenEventIds = seen.slice(-1000);',
		'return $input.all();',
	].join('\n');
	const code = {
		id: randomUUID(),
		name: 'Dedupe',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [220, 0] as [number, number],
		parameters: { mode: 'runOnceForAllItems', jsCode },
	};
	return {
		...hook,
		nodes: [hook.nodes[0], code],
		connections: { Webhook: { main: [[{ node: 'Dedupe', type: 'main', index: 0 }]] } },
	};
}

export async function runB5Profile(o: {
	boot: (env: NodeJS.ProcessEnv) => Promise<N8nInstance>;
	sb: BenchSandbox;
	deliveries: number;
	concurrency: number;
	profileDir: string;
	log: Log;
}): Promise<B5ProfileResults> {
	const sampleIntervalUs = 1000;
	mkdirSync(o.profileDir, { recursive: true });
	const n8n = await o.boot({
		NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${o.profileDir} --cpu-prof-interval=${sampleIntervalUs}`,
	});
	const pid = n8nPid(n8n);
	const windows: Array<{ receiver: ProfiledReceiver; from: number; to: number; result: B5Result }> =
		[];
	const results: B5ProfileResults = {
		deliveries: o.deliveries,
		concurrency: o.concurrency,
		sampleIntervalUs,
		runs: [],
	};
	try {
		const ws = await freshWorkspace(o.sb);
		const creds = await credentialsFor(n8n, o.sb.baseUrl, ws);
		const receivers: Array<{
			receiver: ProfiledReceiver;
			wf: () => { wf: WorkflowJson; url: string };
		}> = [
			{
				receiver: 'trigger',
				wf: () => {
					const webhookId = randomUUID();
					return {
						wf: webhookTrigger({ name: `bench B5P ${webhookId}`, webhookId, creds }),
						url: `${n8n.baseUrl}/webhook/${webhookId}/webhook`,
					};
				},
			},
			{
				receiver: 'webhook',
				wf: () => {
					const path = `bench-b5p-plain-${randomUUID()}`;
					return {
						wf: plainWebhook({ name: `bench B5P n8n webhook ${path}`, path }),
						url: `${n8n.baseUrl}/webhook/${path}`,
					};
				},
			},
			{
				receiver: 'isolate',
				wf: () => {
					const path = `bench-b5p-isolate-${randomUUID()}`;
					return {
						wf: plainWebhook({
							name: `bench B5P n8n webhook (expression) ${path}`,
							path,
							expressionParameter: true,
						}),
						url: `${n8n.baseUrl}/webhook/${path}`,
					};
				},
			},
			{
				receiver: 'state',
				wf: () => {
					const path = `bench-b5p-state-${randomUUID()}`;
					return {
						wf: staticDataReceiver({ name: `bench B5P static data ${path}`, path }),
						url: `${n8n.baseUrl}/webhook/${path}`,
					};
				},
			},
		];
		let seed = 20;
		for (const r of receivers) {
			const { wf, url } = r.wf();
			const id = await publish(n8n, wf);
			await waitRegistered(url);
			await deliver(url, ws.webhookSecret, 50, o.concurrency, seed++);
			const from = monotonicMicros();
			const d = await deliver(url, ws.webhookSecret, o.deliveries, o.concurrency, seed++);
			const to = monotonicMicros();
			// Executions: ours one per distinct event; the others one per request (the probe and the warm-up included).
			const expected = r.receiver === 'trigger' ? d.distinct + 45 : d.latencies.length + 51;
			const executions = await settledExecutions(n8n, id, expected);
			await n8n.deactivateWorkflow(id);
			const result = summarize(d, executions, o.concurrency, expected);
			windows.push({ receiver: r.receiver, from, to, result });
			o.log(
				`B5 profile ${r.receiver}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.deliveriesPerSecond}/s, ${executions} executions (wanted ${expected})${result.problem ? `, PROBLEM: ${result.problem}` : ''}`,
			);
		}
	} finally {
		await n8n.stop();
	}
	const file = readdirSync(o.profileDir).find(
		(f) => f.endsWith('.cpuprofile') && f.split('.').includes(String(pid)),
	);
	if (!file) {
		results.problem = `no CPU profile of pid ${pid} in ${o.profileDir} (n8n did not exit normally?)`;
		results.runs = windows.map((w) => ({
			receiver: w.receiver,
			result: w.result,
			windowUs: [w.from, w.to],
		}));
		return results;
	}
	results.profileFile = join(o.profileDir, file);
	const profile = readProfile(results.profileFile);
	results.runs = windows.map((w) => {
		const p = analyzeWindow(profile, w.from, w.to);
		return {
			receiver: w.receiver,
			result: w.result,
			windowUs: [w.from, w.to],
			profile: p,
			cpuMsPerDelivery: Math.round((p.busyMs / w.result.deliveries) * 100) / 100,
		};
	});
	return results;
}
