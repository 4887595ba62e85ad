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

import { delay, type N8nInstance } from '../../scripts/n8n-host';
import { credentialsFor, executionCount, publish, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { median, percentile } from '../lib/stats';
import { webhookTrigger } from '../lib/workflows';

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
}

/** Deterministic shuffle source (mulberry32) so that a run is reproducible. */
function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export async function runB5(o: { n8n: N8nInstance; sb: BenchSandbox; deliveries: number; concurrency: number; log: Log }): Promise<B5Result> {
	const { n8n, sb } = o;
	const ws = await freshWorkspace(sb);
	const creds = await credentialsFor(n8n, sb.baseUrl, ws);
	const webhookId = randomUUID();
	const wfId = await publish(n8n, webhookTrigger({ name: `bench B5 ${webhookId}`, webhookId, creds }));
	const url = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
	// Registered once an unsigned probe is refused (401, nothing started) instead of 404.
	for (let i = 0; i < 100; i++) {
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		await res.arrayBuffer();
		if (res.status !== 404) break;
		await delay(200);
	}

	const redeliveries = Math.round(o.deliveries / 10);
	const distinct = o.deliveries - redeliveries;
	const events = Array.from({ length: distinct }, () => {
		const id = randomUUID();
		return {
			id,
			body: JSON.stringify({
				id,
				type: 'report.completed',
				schemaVersion: 1,
				occurredAt: new Date().toISOString(),
				data: { reportId: `rpt_${id.replace(/-/g, '').slice(0, 24)}`, attemptId: `att_${id.replace(/-/g, '').slice(8, 32)}`, status: 'completed', code: null },
			}),
		};
	});
	// Originals in order; each redelivery repeats an event from the first 40 % and goes into the last 40 %.
	const order: number[] = events.map((_, i) => i);
	const random = rng(6);
	for (let r = 0; r < redeliveries; r++) {
		const source = Math.floor(random() * Math.floor(distinct * 0.4));
		const at = Math.floor(order.length * 0.6) + Math.floor(random() * (order.length * 0.4));
		order.splice(at, 0, source);
	}

	const wh = new Webhook(ws.webhookSecret);
	const agent = new Agent({ connections: o.concurrency });
	const latencies: number[] = [];
	const statuses: Record<string, number> = {};
	let next = 0;
	const t0 = performance.now();
	await Promise.all(
		Array.from({ length: o.concurrency }, async () => {
			while (next < order.length) {
				const event = events[order[next++]];
				const now = new Date();
				const headers = {
					'content-type': 'application/json',
					'webhook-id': event.id,
					'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
					'webhook-signature': wh.sign(event.id, now, event.body),
				};
				const started = performance.now();
				try {
					const res = await request(url, { method: 'POST', headers, body: event.body, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
					await res.body.text();
					statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
				} catch (error) {
					const code = (error as { code?: string }).code ?? 'ERROR';
					statuses[code] = (statuses[code] ?? 0) + 1;
				}
				latencies.push(performance.now() - started);
			}
		}),
	);
	const wallMs = performance.now() - t0;
	await agent.close();

	// Executions run after the acknowledgement: wait until the count stops moving (bounded).
	let executions = 0;
	let stableSince = Date.now();
	const deadline = Date.now() + 180_000;
	while (Date.now() < deadline) {
		const count = await executionCount(n8n, wfId);
		if (count !== executions) {
			executions = count;
			stableSince = Date.now();
		} else if (count >= distinct && Date.now() - stableSince > 3000) break;
		else if (Date.now() - stableSince > 20_000) break;
		await delay(500);
	}
	await n8n.deactivateWorkflow(wfId);
	const acked = Object.entries(statuses)
		.filter(([s]) => /^2\d\d$/.test(s))
		.reduce((a, [, n]) => a + n, 0);
	const problem =
		acked !== o.deliveries ? `${acked} of ${o.deliveries} deliveries acknowledged (${JSON.stringify(statuses)})` : executions !== distinct ? `${executions} executions for ${distinct} distinct events` : undefined;
	const result: B5Result = {
		deliveries: o.deliveries,
		distinctEvents: distinct,
		redeliveries,
		concurrency: o.concurrency,
		executions,
		statuses,
		p50Ms: Math.round(median(latencies) * 10) / 10,
		p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
		maxMs: Math.round(Math.max(...latencies)),
		wallMs: Math.round(wallMs),
		deliveriesPerSecond: Math.round((o.deliveries / wallMs) * 1000 * 10) / 10,
		ok: !problem,
		problem,
	};
	o.log(`B5: ${o.deliveries} deliveries (${distinct} distinct), ${executions} executions, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${problem ? `, PROBLEM: ${problem}` : ''}`);
	return result;
}
