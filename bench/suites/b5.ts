/**
 * B5: webhook throughput in real n8n. D signed deliveries (Standard Webhooks, signed with the `standardwebhooks`
 * package as the service's sender does) POSTed to the published Recruiting Analysis Trigger at a fixed
 * concurrency. One in ten deliveries is a redelivery of an event already acknowledged (same event id and body,
 * fresh timestamp and signature, as the spec's at-least-once delivery and manual replays do), so the executions
 * must equal the distinct events, not the deliveries. Acknowledgement latency is the client's round trip per delivery.
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import { credentialsFor, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { median } from '../lib/stats';
import { pooled, triggerLoad, webhookLoad, type B5Result } from './b5loads';

export {
	deliver,
	settledExecutions,
	summarize,
	waitRegistered,
	type B5Result,
	type Delivered,
	type Slow,
} from './b5loads';

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

	const runTrigger = (deliveries: number, concurrency: number, seed: number) =>
		triggerLoad({ n8n, ws, creds, deliveries, concurrency, seed });
	const runWebhook = (isolate: boolean, seed: number) =>
		webhookLoad({ n8n, ws, isolate, deliveries: o.deliveries, concurrency: o.concurrency, seed });

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
