/**
 * B5's loads (bench/suites/b5.ts, bench/suites/b5fair.ts): signed deliveries to one receiver in a real n8n, what n8n
 * ran for them, and their summary.
 */
import { randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';

import { mulberry32 } from '../../sandbox/src/faults';
import { delay, type N8nInstance } from '../../scripts/n8n-host';
import { executionCount, publish, type BoundCredentials } from '../lib/n8n';
import type { Workspace } from '../lib/sandbox';
import { median, percentile } from '../lib/stats';
import { plainWebhook, webhookTrigger } from '../lib/workflows';

export interface B5Result {
	deliveries: number;
	distinctEvents: number;
	redeliveries: number;
	concurrency: number;
	executions: number;
	statuses: Record<string, number>;
	p50Ms: number;
	p99Ms: number;
	maxMs: number;
	wallMs: number;
	deliveriesPerSecond: number;
	ok: boolean;
	problem?: string;
	/** Event ids the trigger's dedupe memory (workflow static data) held in n8n's database after the deliveries. */
	storedSeenIds?: number;
	/** The five slowest acknowledgements: position in the send order, when sent (ms after the first), how long. */
	slowest?: Slow[];
	/** Every round trip (kept while rounds are pooled, not written to results.json). */
	latencies?: number[];
}

export interface Slow {
	position: number;
	sentAtMs: number;
	ms: number;
	status: string;
	redelivery: boolean;
}

export interface Delivered {
	latencies: number[];
	slow: Slow[];
	statuses: Record<string, number>;
	wallMs: number;
	distinct: number;
	redeliveries: number;
}

/** Sends `deliveries` signed deliveries (10 % redeliveries of acknowledged events) to `url`, `concurrency` at a time. */
export async function deliver(
	url: string,
	secret: string,
	deliveries: number,
	concurrency: number,
	seed: number,
): Promise<Delivered> {
	const redeliveries = Math.round(deliveries / 10);
	const distinct = deliveries - redeliveries;
	const events = Array.from({ length: distinct }, () => {
		const id = randomUUID();
		const hex = id.replace(/-/g, '');
		return {
			id,
			body: JSON.stringify({
				id,
				type: 'report.completed',
				schemaVersion: 1,
				occurredAt: new Date().toISOString(),
				data: {
					reportId: `rpt_${hex.slice(0, 24)}`,
					attemptId: `att_${hex.slice(8, 32)}`,
					status: 'completed',
					code: null,
				},
			}),
		};
	});
	// Originals in order; each redelivery repeats an event from the first 40 % and goes into the last 40 %.
	const order: number[] = events.map((_, i) => i);
	const random = mulberry32(seed);
	for (let r = 0; r < redeliveries; r++) {
		const source = Math.floor(random() * Math.floor(distinct * 0.4));
		const at = Math.floor(order.length * 0.6) + Math.floor(random() * (order.length * 0.4));
		order.splice(at, 0, source);
	}
	const wh = new Webhook(secret);
	const agent = new Agent({ connections: concurrency });
	const latencies: number[] = [];
	const statuses: Record<string, number> = {};
	const slow: Slow[] = [];
	const seenIndexes = new Set<number>();
	let next = 0;
	const t0 = performance.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < order.length) {
				const position = next++;
				const redelivery = seenIndexes.has(order[position]);
				seenIndexes.add(order[position]);
				const event = events[order[position]];
				const now = new Date();
				const headers = {
					'content-type': 'application/json',
					'webhook-id': event.id,
					'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
					'webhook-signature': wh.sign(event.id, now, event.body),
				};
				const started = performance.now();
				let status = 'ERROR';
				try {
					const res = await request(url, {
						method: 'POST',
						headers,
						body: event.body,
						dispatcher: agent,
						headersTimeout: 30_000,
						bodyTimeout: 30_000,
					});
					await res.body.text();
					status = String(res.statusCode);
				} catch (error) {
					status = (error as { code?: string }).code ?? 'ERROR';
				}
				statuses[status] = (statuses[status] ?? 0) + 1;
				const ms = performance.now() - started;
				latencies.push(ms);
				slow.push({
					position,
					sentAtMs: Math.round(started - t0),
					ms: Math.round(ms),
					status,
					redelivery,
				});
				slow.sort((a, b) => b.ms - a.ms);
				slow.splice(5);
			}
		}),
	);
	const wallMs = performance.now() - t0;
	await agent.close();
	return { latencies, slow, statuses, wallMs, distinct, redeliveries };
}

/** Executions run after the acknowledgement: waits until the count stops moving (bounded). */
export async function settledExecutions(
	n8n: N8nInstance,
	workflowId: string,
	expected: number,
): Promise<number> {
	let executions = -1;
	let stableSince = Date.now();
	const deadline = Date.now() + 180_000;
	while (Date.now() < deadline) {
		const count = await executionCount(n8n, workflowId);
		if (count !== executions) {
			executions = count;
			stableSince = Date.now();
		} else if (count >= expected && Date.now() - stableSince > 3000) break;
		else if (Date.now() - stableSince > 20_000) break;
		await delay(500);
	}
	return executions;
}

export async function waitRegistered(url: string): Promise<void> {
	// Registered once an unsigned probe gets anything but 404 (our trigger refuses it with 401, starting nothing).
	for (let i = 0; i < 100; i++) {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		await res.arrayBuffer();
		if (res.status !== 404) return;
		await delay(200);
	}
	throw new Error(`${url} still 404`);
}

export function summarize(
	d: Delivered,
	executions: number,
	concurrency: number,
	expectedExecutions: number,
): B5Result {
	const deliveries = d.latencies.length;
	const acked = Object.entries(d.statuses)
		.filter(([code]) => /^2\d\d$/.test(code))
		.reduce((a, [, n]) => a + n, 0);
	const problem =
		acked !== deliveries
			? `${acked} of ${deliveries} deliveries acknowledged (${JSON.stringify(d.statuses)})`
			: executions !== expectedExecutions
				? `${executions} executions, wanted ${expectedExecutions}`
				: undefined;
	return {
		deliveries,
		distinctEvents: d.distinct,
		redeliveries: d.redeliveries,
		concurrency,
		executions,
		statuses: d.statuses,
		p50Ms: Math.round(median(d.latencies) * 10) / 10,
		p99Ms: Math.round(percentile(d.latencies, 99) * 10) / 10,
		maxMs: Math.round(Math.max(...d.latencies)),
		wallMs: Math.round(d.wallMs),
		deliveriesPerSecond: Math.round((deliveries / d.wallMs) * 1000 * 10) / 10,
		ok: !problem,
		problem,
		slowest: d.slow,
		latencies: d.latencies,
	};
}

/** Several runs of one receiver as one: latencies pooled, throughput over the summed wall time. */
export function pooled(runs: B5Result[]): B5Result {
	const all = runs.flatMap((r) => r.latencies ?? []);
	const statuses: Record<string, number> = {};
	for (const r of runs)
		for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
	const wallMs = runs.reduce((a, r) => a + r.wallMs, 0);
	const deliveries = runs.reduce((a, r) => a + r.deliveries, 0);
	const problems = runs.filter((r) => r.problem).map((r) => r.problem);
	return {
		deliveries,
		distinctEvents: runs.reduce((a, r) => a + r.distinctEvents, 0),
		redeliveries: runs.reduce((a, r) => a + r.redeliveries, 0),
		concurrency: runs[0].concurrency,
		executions: runs.reduce((a, r) => a + r.executions, 0),
		statuses,
		p50Ms: Math.round(median(all) * 10) / 10,
		p99Ms: Math.round(percentile(all, 99) * 10) / 10,
		maxMs: Math.round(Math.max(...all)),
		wallMs,
		deliveriesPerSecond: Math.round((deliveries / wallMs) * 1000 * 10) / 10,
		ok: problems.length === 0,
		problem: problems.length ? problems.join('; ') : undefined,
		storedSeenIds: runs.every((r) => r.storedSeenIds !== undefined)
			? runs.reduce((a, r) => a + (r.storedSeenIds ?? 0), 0)
			: undefined,
		slowest: runs
			.flatMap((r) => r.slowest ?? [])
			.sort((a, b) => b.ms - a.ms)
			.slice(0, 5),
	};
}

/** One load on a freshly published Recruiting Analysis Trigger (version 2, as a user adds it). */
export async function triggerLoad(o: {
	n8n: N8nInstance;
	ws: Workspace;
	creds: BoundCredentials;
	deliveries: number;
	concurrency: number;
	seed: number;
	/** The trigger's Options (e.g. Remembered Event IDs). */
	options?: Record<string, unknown>;
	/** Runs after the workflow is created and before it is published (e.g. to fill its static data). */
	beforePublish?: (workflowId: string) => Promise<void>;
}): Promise<B5Result> {
	const { n8n, ws } = o;
	const webhookId = randomUUID();
	const wf = webhookTrigger({ name: `bench B5 ${webhookId}`, webhookId, creds: o.creds });
	if (o.options) wf.nodes[0].parameters = { ...wf.nodes[0].parameters, options: o.options };
	const { id: wfId } = await n8n.createWorkflow(wf);
	await o.beforePublish?.(wfId);
	await n8n.activateWorkflow(wfId);
	const url = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
	await waitRegistered(url);
	const d = await deliver(url, ws.webhookSecret, o.deliveries, o.concurrency, o.seed);
	const executions = await settledExecutions(n8n, wfId, d.distinct);
	// What the dedupe memory looks like in n8n's database now (before deactivation touches the static data).
	const saved = (await n8n.getWorkflow(wfId)) as unknown as {
		staticData?: Record<string, { seenEventIds?: unknown[] }> | null;
	};
	const seen = saved.staticData?.['node:Recruiting Analysis Trigger']?.seenEventIds;
	await n8n.deactivateWorkflow(wfId);
	return {
		...summarize(d, executions, o.concurrency, d.distinct),
		storedSeenIds: Array.isArray(seen) ? seen.length : 0,
	};
}

/** One load on n8n's own Webhook node (answers at once), with one parameter as an expression when `isolate`. */
export async function webhookLoad(o: {
	n8n: N8nInstance;
	ws: Workspace;
	isolate: boolean;
	deliveries: number;
	concurrency: number;
	seed: number;
}): Promise<B5Result> {
	const { n8n, isolate } = o;
	const path = `bench-b5-${isolate ? 'isolate' : 'plain'}-${randomUUID()}`;
	const wf = plainWebhook({
		name: `bench B5 n8n webhook${isolate ? ' (expression)' : ''} ${path}`,
		path,
		expressionParameter: isolate,
	});
	const id = await publish(n8n, wf);
	const url = `${n8n.baseUrl}/webhook/${path}`;
	await waitRegistered(url);
	const d = await deliver(url, o.ws.webhookSecret, o.deliveries, o.concurrency, o.seed);
	// n8n's Webhook node runs the workflow for every request, the unsigned registration probe included.
	const executions = (await settledExecutions(n8n, id, d.latencies.length + 1)) - 1;
	await n8n.deactivateWorkflow(id);
	return summarize(d, executions, o.concurrency, d.latencies.length);
}
