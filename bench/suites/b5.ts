/**
 * B5: webhook throughput in real n8n. D signed deliveries (Standard Webhooks, signed with the `standardwebhooks`
 * package as the service's sender does) POSTed to the published Recruiting Analysis Trigger at a fixed
 * concurrency. One in ten deliveries is a redelivery of an event already acknowledged (same event id and body,
 * fresh timestamp and signature, as the spec's at-least-once delivery and manual replays do), so the executions
 * must equal the distinct events, not the deliveries. Acknowledgement latency is the client's round trip per delivery.
 */
import { randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';

import { mulberry32 } from '../../sandbox/src/faults';
import { delay, type N8nInstance } from '../../scripts/n8n-host';
import { credentialsFor, executionCount, publish, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
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

/** One round: each receiver gets the same load once, in an order that rotates from round to round. */
export interface B5Round {
	order: B5Receiver[];
	trigger: B5Result;
	n8nWebhook: B5Result;
	n8nWebhookIsolate: B5Result;
	/** Our trigger's p99 ÷ the Webhook node's, in this round. */
	p99Ratio: number;
	/** Our trigger's throughput ÷ the Webhook node's, in this round. */
	throughputRatio: number;
}

export type B5Receiver = 'trigger' | 'n8nWebhook' | 'n8nWebhookIsolate';

export interface B5Results {
	/** Our trigger (as a user adds it: the newest version), all rounds pooled: the measured case. */
	trigger: B5Result;
	/** Our trigger, one delivery at a time (is deduplication exact without concurrency?). */
	triggerSequential: B5Result;
	/** n8n's own Webhook node (no verification, no dedupe) under the same load, all rounds pooled. */
	n8nWebhook: B5Result;
	/**
	 * n8n's Webhook node with one parameter written as an expression: n8n then takes an expression isolate for the
	 * request, as it does for every trigger that is not its own Webhook node (the B5 profile), so this is n8n's own
	 * floor for a community trigger. All rounds pooled.
	 */
	n8nWebhookIsolate?: B5Result;
	/** Side by side, round by round; the targets use the medians of the per-round ratios. */
	rounds?: B5Round[];
	p99RatioMedian?: number;
	throughputRatioMedian?: number;
}

/** Several runs of one receiver as one: latencies pooled, throughput over the summed wall time. */
function pooled(runs: B5Result[]): B5Result {
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

const ORDERS: B5Receiver[][] = [
	['trigger', 'n8nWebhook', 'n8nWebhookIsolate'],
	['n8nWebhook', 'n8nWebhookIsolate', 'trigger'],
	['n8nWebhookIsolate', 'trigger', 'n8nWebhook'],
];

export async function runB5(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	deliveries: number;
	concurrency: number;
	rounds: number;
	log: Log;
}): Promise<B5Results> {
	const { n8n, sb } = o;
	const ws = await freshWorkspace(sb);
	const creds = await credentialsFor(n8n, sb.baseUrl, ws);

	const runTrigger = async (
		deliveries: number,
		concurrency: number,
		seed: number,
	): Promise<B5Result> => {
		const webhookId = randomUUID();
		const wfId = await publish(
			n8n,
			webhookTrigger({ name: `bench B5 ${webhookId}`, webhookId, creds }),
		);
		const url = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
		await waitRegistered(url);
		const d = await deliver(url, ws.webhookSecret, deliveries, concurrency, seed);
		const executions = await settledExecutions(n8n, wfId, d.distinct);
		// What the dedupe memory looks like in n8n's database now (before deactivation touches the static data).
		const saved = (await n8n.getWorkflow(wfId)) as unknown as {
			staticData?: Record<string, { seenEventIds?: unknown[] }> | null;
		};
		const seen = saved.staticData?.['node:Recruiting Analysis Trigger']?.seenEventIds;
		await n8n.deactivateWorkflow(wfId);
		return {
			...summarize(d, executions, concurrency, d.distinct),
			storedSeenIds: Array.isArray(seen) ? seen.length : 0,
		};
	};

	const runWebhook = async (isolate: boolean, seed: number): Promise<B5Result> => {
		const path = `bench-b5-${isolate ? 'isolate' : 'plain'}-${randomUUID()}`;
		const wf = plainWebhook({
			name: `bench B5 n8n webhook${isolate ? ' (expression)' : ''} ${path}`,
			path,
			expressionParameter: isolate,
		});
		const id = await publish(n8n, wf);
		const url = `${n8n.baseUrl}/webhook/${path}`;
		await waitRegistered(url);
		const d = await deliver(url, ws.webhookSecret, o.deliveries, o.concurrency, seed);
		// n8n's Webhook node runs the workflow for every request, the unsigned registration probe included.
		const executions = (await settledExecutions(n8n, id, d.latencies.length + 1)) - 1;
		await n8n.deactivateWorkflow(id);
		return summarize(d, executions, o.concurrency, d.latencies.length);
	};

	const rounds: B5Round[] = [];
	for (let round = 0; round < Math.max(1, o.rounds); round++) {
		const order = ORDERS[round % ORDERS.length];
		const got: Partial<Record<B5Receiver, B5Result>> = {};
		for (const receiver of order) {
			const seed = 6 + round * 10 + order.indexOf(receiver);
			got[receiver] =
				receiver === 'trigger'
					? await runTrigger(o.deliveries, o.concurrency, seed)
					: await runWebhook(receiver === 'n8nWebhookIsolate', seed);
		}
		const trigger = got.trigger!;
		const n8nWebhook = got.n8nWebhook!;
		const n8nWebhookIsolate = got.n8nWebhookIsolate!;
		const r: B5Round = {
			order,
			trigger,
			n8nWebhook,
			n8nWebhookIsolate,
			p99Ratio: trigger.p99Ms / n8nWebhook.p99Ms,
			throughputRatio: trigger.deliveriesPerSecond / n8nWebhook.deliveriesPerSecond,
		};
		rounds.push(r);
		o.log(
			`B5 round ${round + 1} (${order.join(', ')}): trigger p99 ${trigger.p99Ms} ms ${trigger.deliveriesPerSecond}/s, Webhook node p99 ${n8nWebhook.p99Ms} ms ${n8nWebhook.deliveriesPerSecond}/s, with an expression p99 ${n8nWebhookIsolate.p99Ms} ms ${n8nWebhookIsolate.deliveriesPerSecond}/s; ratios ${r.p99Ratio.toFixed(2)}× p99, ${r.throughputRatio.toFixed(2)}× throughput${trigger.problem ? `, PROBLEM: ${trigger.problem}` : ''}`,
		);
	}

	const triggerSequential = await runTrigger(Math.min(100, o.deliveries), 1, 8);
	o.log(
		`B5 trigger one at a time: ${triggerSequential.deliveries} deliveries (${triggerSequential.distinctEvents} distinct), ${triggerSequential.executions} executions${triggerSequential.problem ? `, PROBLEM: ${triggerSequential.problem}` : ''}`,
	);
	const strip = (x: B5Result): B5Result => ({ ...x, latencies: undefined });
	return {
		trigger: strip(pooled(rounds.map((r) => r.trigger))),
		n8nWebhook: strip(pooled(rounds.map((r) => r.n8nWebhook))),
		n8nWebhookIsolate: strip(pooled(rounds.map((r) => r.n8nWebhookIsolate))),
		triggerSequential: strip(triggerSequential),
		rounds: rounds.map((r) => ({
			...r,
			trigger: strip(r.trigger),
			n8nWebhook: strip(r.n8nWebhook),
			n8nWebhookIsolate: strip(r.n8nWebhookIsolate),
		})),
		p99RatioMedian: median(rounds.map((r) => r.p99Ratio)),
		throughputRatioMedian: median(rounds.map((r) => r.throughputRatio)),
	};
}
