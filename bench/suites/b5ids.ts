/**
 * B5 ids: the webhook trigger's acknowledgement with 1,000 ids kept and with its cap of 10,000, side by side in one
 * run. One n8n (lazy isolates, as docs/scaling.md recommends); in each round a fresh workflow per size and load (its
 * static data filled before it is published), one delivery at a time and ten at a time, the sizes' order alternating
 * between rounds so that the machine's drift falls on both. Reported: medians over the rounds of p50 and p99, and
 * the medians of the per-round ratios 10,000 ÷ 1,000.
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import { credentialsFor, type Log } from '../lib/n8n';
import { freshWorkspace, type BenchSandbox } from '../lib/sandbox';
import { median, round } from '../lib/stats';
import { fillSeenIds } from './b5fair';
import { triggerLoad } from './b5loads';

export const B5_IDS_SIZES = [1000, 10_000] as const;
export const B5_IDS_CONCURRENCIES = [1, 10] as const;

export interface B5IdsRun {
	round: number;
	idsBefore: number;
	concurrency: number;
	deliveries: number;
	/** Ids stored after the load (checks that the filled list was the one n8n read and wrote). */
	idsAfter: number;
	p50Ms: number;
	p99Ms: number;
	ok: boolean;
	problem?: string;
}

export interface B5IdsSummary {
	concurrency: number;
	/** Medians over the rounds, per size. */
	p50Ms: Record<number, number>;
	p99Ms: Record<number, number>;
	/** Medians of the per-round ratios 10,000 ÷ 1,000. */
	p50Ratio: number;
	p99Ratio: number;
}

export interface B5IdsResults {
	rounds: number;
	capacity: number;
	runs: B5IdsRun[];
	summary: B5IdsSummary[];
}

export async function runB5Ids(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	rounds: number;
	/** Deliveries per load (a tenth of them are redeliveries of earlier events). */
	deliveries: number;
	log: Log;
}): Promise<B5IdsResults> {
	const ws = await freshWorkspace(o.sb);
	const creds = await credentialsFor(o.n8n, o.sb.baseUrl, ws);
	const capacity = 10_000;
	const runs: B5IdsRun[] = [];
	for (let r = 0; r < Math.max(1, o.rounds); r++) {
		const sizes = r % 2 === 0 ? [...B5_IDS_SIZES] : [...B5_IDS_SIZES].reverse();
		for (const concurrency of B5_IDS_CONCURRENCIES) {
			for (const size of sizes) {
				const load = await triggerLoad({
					n8n: o.n8n,
					ws,
					creds,
					deliveries: o.deliveries,
					concurrency,
					seed: 500 + r * 100 + concurrency * 10 + size,
					options: { dedupeCapacity: capacity },
					beforePublish: async (id) => fillSeenIds(o.n8n, id, size),
				});
				const wanted = Math.min(capacity, size + load.distinctEvents);
				const problem =
					load.problem ??
					(load.storedSeenIds !== wanted
						? `${load.storedSeenIds} ids stored, wanted ${wanted}`
						: undefined);
				runs.push({
					round: r + 1,
					idsBefore: size,
					concurrency,
					deliveries: o.deliveries,
					idsAfter: load.storedSeenIds ?? 0,
					p50Ms: load.p50Ms,
					p99Ms: load.p99Ms,
					ok: !problem,
					problem,
				});
				o.log(
					`B5 ids round ${r + 1}: ${size} ids kept, ${concurrency} at a time: p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms${problem ? `, PROBLEM ${problem}` : ''}`,
				);
			}
		}
	}
	const summary = B5_IDS_CONCURRENCIES.map((concurrency): B5IdsSummary => {
		const at = (size: number) =>
			runs.filter((x) => x.concurrency === concurrency && x.idsBefore === size);
		const perRound = (key: 'p50Ms' | 'p99Ms') =>
			[...new Set(runs.map((x) => x.round))].map((n) => {
				const of = (size: number) => at(size).find((x) => x.round === n)![key];
				return of(10_000) / of(1000);
			});
		const med = (key: 'p50Ms' | 'p99Ms') =>
			Object.fromEntries(B5_IDS_SIZES.map((s) => [s, round(median(at(s).map((x) => x[key])), 1)]));
		return {
			concurrency,
			p50Ms: med('p50Ms'),
			p99Ms: med('p99Ms'),
			p50Ratio: round(median(perRound('p50Ms')), 2),
			p99Ratio: round(median(perRound('p99Ms')), 2),
		};
	});
	return { rounds: Math.max(1, o.rounds), capacity, runs, summary };
}
