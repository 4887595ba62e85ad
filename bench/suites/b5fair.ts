/**
 * B5 fair: our trigger against n8n's bare Webhook node (fixed parameters: n8n skips its expression isolate for it),
 * both under n8n's default and under `N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true` (n8n then opens an isolate only when
 * an expression is evaluated). Two n8n processes of the same build, one per setting, both running the whole time;
 * the four receivers take turns in each round, in an order that rotates, so the machine's noise falls on all of them.
 *
 * Then the acknowledgement's cost with the ids the trigger keeps: one delivery at a time to a trigger whose static data
 * already holds 1,000 ids, and one holding its cap (10,000 with *Remembered Event IDs* at 10,000), alternating.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import type { N8nInstance } from '../../scripts/n8n-host';
import { credentialsFor, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { median } from '../lib/stats';
import { pooled, triggerLoad, webhookLoad, type B5Result } from './b5loads';

export type B5FairSetting = 'default' | 'lazy';
export type B5FairReceiver = `${B5FairSetting}:${'webhook' | 'trigger'}`;

export const LAZY_ACQUIRE_ENV = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

export interface B5FairRound {
	order: B5FairReceiver[];
	results: Record<B5FairReceiver, B5Result>;
	/** Trigger ÷ Webhook node under the same setting: p99 and throughput. */
	ratios: Record<B5FairSetting, { p99: number; throughput: number }>;
}

export interface B5IdsCost {
	/** Ids in the trigger's static data before the deliveries. */
	idsBefore: number;
	/** Ids stored after them (checks that the filled list was the one n8n read and wrote). */
	idsAfter: number;
	capacity: number;
	deliveries: number;
	p50Ms: number;
	p99Ms: number;
	ok: boolean;
	problem?: string;
}

export interface B5FairResults {
	deliveries: number;
	concurrency: number;
	rounds: B5FairRound[];
	/** Every receiver, its rounds pooled. */
	pooled: Record<B5FairReceiver, B5Result>;
	/** Medians of the per-round ratios. */
	medians: Record<B5FairSetting, { p99: number; throughput: number }>;
	/** One delivery at a time at 1,000 ids and at the cap, under the lazy setting; rounds alternate. */
	idsCost: { setting: B5FairSetting; runs: B5IdsCost[] };
}

const RECEIVERS: B5FairReceiver[] = [
	'default:webhook',
	'default:trigger',
	'lazy:webhook',
	'lazy:trigger',
];

/** Fills the trigger's remembered ids in n8n's SQLite database (the workflow is not published yet). */
export function fillSeenIds(n8n: N8nInstance, workflowId: string, count: number): void {
	const ids = Array.from({ length: count }, () => randomUUID());
	const staticData = JSON.stringify({ 'node:Recruiting Analysis Trigger': { seenEventIds: ids } });
	// Through stdin: 10,000 ids are about 400 KB, more than one command-line argument may hold.
	execFileSync('sqlite3', [join(n8n.userFolder, '.n8n', 'database.sqlite')], {
		// n8n may be writing (the executions of the previous load): wait for its lock instead of failing.
		input: `.timeout 60000\nUPDATE workflow_entity SET staticData = '${staticData}' WHERE id = '${workflowId}';\n`,
	});
}

export async function runB5Fair(o: {
	boot: (setting: B5FairSetting) => Promise<N8nInstance>;
	sb: BenchSandbox;
	deliveries: number;
	concurrency: number;
	rounds: number;
	idsRounds: number;
	log: Log;
}): Promise<B5FairResults> {
	const n8n: Record<B5FairSetting, N8nInstance> = {
		default: await o.boot('default'),
		lazy: await o.boot('lazy'),
	};
	try {
		const ws = await freshWorkspace(o.sb);
		const creds = {
			default: await credentialsFor(n8n.default, o.sb.baseUrl, ws),
			lazy: await credentialsFor(n8n.lazy, o.sb.baseUrl, ws),
		};
		const load = async (receiver: B5FairReceiver, seed: number): Promise<B5Result> => {
			const [setting, kind] = receiver.split(':') as [B5FairSetting, 'webhook' | 'trigger'];
			const common = {
				n8n: n8n[setting],
				ws,
				deliveries: o.deliveries,
				concurrency: o.concurrency,
				seed,
			};
			return kind === 'trigger'
				? await triggerLoad({ ...common, creds: creds[setting] })
				: await webhookLoad({ ...common, isolate: false });
		};

		const rounds: B5FairRound[] = [];
		for (let round = 0; round < Math.max(1, o.rounds); round++) {
			const order = RECEIVERS.map((_, i) => RECEIVERS[(i + round) % RECEIVERS.length]);
			const results = {} as Record<B5FairReceiver, B5Result>;
			for (const receiver of order)
				results[receiver] = await load(receiver, 100 + round * 10 + order.indexOf(receiver));
			const ratio = (s: B5FairSetting) => ({
				p99: results[`${s}:trigger`].p99Ms / results[`${s}:webhook`].p99Ms,
				throughput:
					results[`${s}:trigger`].deliveriesPerSecond / results[`${s}:webhook`].deliveriesPerSecond,
			});
			const r: B5FairRound = {
				order,
				results,
				ratios: { default: ratio('default'), lazy: ratio('lazy') },
			};
			rounds.push(r);
			o.log(
				`B5 fair round ${round + 1} (${order.join(', ')}): ${RECEIVERS.map((x) => `${x} p99 ${results[x].p99Ms} ms ${results[x].deliveriesPerSecond}/s${results[x].problem ? ` PROBLEM ${results[x].problem}` : ''}`).join('; ')}`,
			);
		}

		// The acknowledgement's cost with the ids kept: one at a time, 1,000 ids then the cap, alternating.
		const idsRuns: B5IdsCost[] = [];
		const sizes = [1000, 10_000];
		for (let round = 0; round < Math.max(1, o.idsRounds); round++) {
			for (const size of round % 2 === 0 ? sizes : [...sizes].reverse()) {
				const deliveries = 100;
				const r = await triggerLoad({
					n8n: n8n.lazy,
					ws,
					creds: creds.lazy,
					deliveries,
					concurrency: 1,
					seed: 200 + round * 10 + size,
					options: { dedupeCapacity: 10_000 },
					beforePublish: async (id) => fillSeenIds(n8n.lazy, id, size),
				});
				const wanted = Math.min(10_000, size + r.distinctEvents);
				const problem =
					r.problem ??
					(r.storedSeenIds !== wanted
						? `${r.storedSeenIds} ids stored, wanted ${wanted}`
						: undefined);
				idsRuns.push({
					idsBefore: size,
					idsAfter: r.storedSeenIds ?? 0,
					capacity: 10_000,
					deliveries,
					p50Ms: r.p50Ms,
					p99Ms: r.p99Ms,
					ok: !problem,
					problem,
				});
				o.log(
					`B5 ids cost: ${size} ids kept, one at a time: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${r.storedSeenIds} stored${problem ? `, PROBLEM ${problem}` : ''}`,
				);
			}
		}

		const strip = (x: B5Result): B5Result => ({ ...x, latencies: undefined });
		const pooledBy = {} as Record<B5FairReceiver, B5Result>;
		for (const receiver of RECEIVERS)
			pooledBy[receiver] = strip(pooled(rounds.map((r) => r.results[receiver])));
		const med = (s: B5FairSetting) => ({
			p99: median(rounds.map((r) => r.ratios[s].p99)),
			throughput: median(rounds.map((r) => r.ratios[s].throughput)),
		});
		return {
			deliveries: o.deliveries,
			concurrency: o.concurrency,
			rounds: rounds.map((r) => ({
				...r,
				results: Object.fromEntries(
					Object.entries(r.results).map(([k, v]) => [k, strip(v)]),
				) as Record<B5FairReceiver, B5Result>,
			})),
			pooled: pooledBy,
			medians: { default: med('default'), lazy: med('lazy') },
			idsCost: { setting: 'lazy', runs: idsRuns },
		};
	} finally {
		await Promise.allSettled([n8n.default.stop(), n8n.lazy.stop()]);
	}
}
