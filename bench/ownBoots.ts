/**
 * The suites that boot n8n on their own (one build, one workflow or one profile per boot) before the shared n8n of
 * the other suites starts: Before and after (B1, B6 and B7 of a baseline build and of this checkout, boots alternating),
 * the B5 profile (n8n under --cpu-prof) and B7 (a fresh n8n per workflow, so each memory figure has its own heap).
 */
import { join } from 'node:path';

import { packRef, type PackedRef } from './lib/baseline';
import { bootN8n, n8nPackageVersion, type Log } from './lib/n8n';
import { OUR_NODE_VERSION } from './lib/workflowNodes';
import { setLatency, type BenchSandbox } from './lib/sandbox';
import type { BenchResults } from './results';
import { LAZY_ACQUIRE_ENV, runB5Fair } from './suites/b5fair';
import { runB5Ids } from './suites/b5ids';
import { runB5Profile } from './suites/b5profile';
import { runB7 } from './suites/b7';
import { runBeforeAfter } from './suites/beforeAfter';

export async function runOwnBootSuites(o: {
	arg: (name: string) => string | undefined;
	quick: boolean;
	only: string[];
	suites: string[];
	beforeAfter: boolean;
	results: BenchResults;
	sb: BenchSandbox;
	/** Stops the sandbox and starts a fresh one (the caller's sandbox from then on). */
	renewSandbox: () => Promise<BenchSandbox>;
	tarball: string;
	outDir: string;
	latencyMs: number;
	b5Deliveries: number;
	log: Log;
	phase: (name: string, t0: number) => void;
	save: () => void;
	/** Told the baseline packed for this run, so the caller removes it whatever happens. */
	onBaseline: (packed: PackedRef) => void;
}): Promise<void> {
	const {
		arg,
		quick,
		only,
		suites,
		beforeAfter,
		results,
		tarball,
		outDir,
		latencyMs,
		b5Deliveries,
		log,
		phase,
	} = o;
	const baselineRef = arg('baseline-ref');
	const baselineTarball = arg('baseline-tarball');
	let sb = o.sb;
	let t0 = Date.now();
	if (beforeAfter) {
		let before = {
			role: 'before' as const,
			label: `tarball ${baselineTarball}`,
			commit: '?',
			tarball: baselineTarball ?? '',
			nodeVersion: Number(arg('baseline-node-version') ?? OUR_NODE_VERSION),
		};
		if (baselineRef !== undefined) {
			const baseline = await packRef(baselineRef, log);
			o.onBaseline(baseline);
			before = {
				role: 'before',
				label: baselineRef,
				commit: baseline.commit.slice(0, 7),
				tarball: baseline.tarball,
				nodeVersion: Number(arg('baseline-node-version') ?? baseline.nodeVersion),
			};
			phase(`baseline ${baselineRef}: checkout, npm ci, build, pack`, t0);
		}
		t0 = Date.now();
		await setLatency(sb, latencyMs);
		results.beforeAfter = await runBeforeAfter({
			before,
			after: {
				role: 'after',
				label: 'this checkout',
				commit: results.machine.gitCommit ?? '?',
				tarball,
				nodeVersion: OUR_NODE_VERSION,
			},
			rounds: Number(arg('baseline-rounds') ?? 4),
			b1N: Number(arg('baseline-n') ?? 100),
			repeats: Number(arg('repeats') ?? 2),
			b6N: only.includes('B6') ? Number(arg('b6-n') ?? (quick ? 100 : 500)) : 0,
			b6AnalysisMs: Math.round(30_000 * Number(arg('b6-scale') ?? 0.2)),
			b6ActiveLimit: Number(arg('b6-active-limit') ?? 50),
			b7N: only.includes('B7') ? Number(arg('b7-n') ?? (quick ? 1000 : 5000)) : 0,
			sb,
			renewSandbox: async () => {
				sb = await o.renewSandbox();
				await setLatency(sb, latencyMs);
				return sb;
			},
			filesRoot: outDir,
			log,
			onRound: (partial) => {
				results.beforeAfter = partial;
				o.save();
			},
		});
		await setLatency(sb, 0);
		phase('Before and after (B1, B6, B7 of both builds)', t0);
		results.machine.n8nVersion = results.beforeAfter.n8nVersion;
		t0 = Date.now();
	}
	if (suites.includes('B5P')) {
		results.b5Profile = await runB5Profile({
			boot: async (env) =>
				bootN8n({
					label: 'bench-b5-profile',
					tarball,
					binaryMode: 'filesystem',
					filesDir: outDir,
					log,
					env,
				}),
			sb,
			deliveries: b5Deliveries,
			concurrency: 10,
			profileDir: join(outDir, `b5-profile-${Date.now()}`),
			log,
		});
		phase('B5 profile (own n8n start, --cpu-prof)', t0);
		t0 = Date.now();
	}
	if (suites.includes('B5F')) {
		results.b5Fair = await runB5Fair({
			boot: async (setting) =>
				bootN8n({
					label: `bench-b5-fair-${setting}`,
					tarball,
					binaryMode: 'filesystem',
					filesDir: outDir,
					log,
					env: setting === 'lazy' ? LAZY_ACQUIRE_ENV : undefined,
				}),
			sb,
			deliveries: b5Deliveries,
			concurrency: 10,
			rounds: Number(arg('b5-rounds') ?? (quick ? 2 : 3)),
			idsRounds: Number(arg('b5-ids-rounds') ?? (quick ? 2 : 4)),
			log,
		});
		phase('B5 fair (two n8n starts: default, lazy isolates)', t0);
		t0 = Date.now();
	}
	if (suites.includes('B5IDS')) {
		const n8n = await bootN8n({
			label: 'bench-b5-ids',
			tarball,
			binaryMode: 'filesystem',
			filesDir: outDir,
			log,
			env: LAZY_ACQUIRE_ENV,
		});
		try {
			results.machine.n8nVersion = n8nPackageVersion(n8n);
			results.b5Ids = await runB5Ids({
				n8n,
				sb,
				rounds: Number(arg('b5ids-rounds') ?? (quick ? 2 : 4)),
				deliveries: Number(arg('b5ids-deliveries') ?? (quick ? 100 : 200)),
				log,
			});
		} finally {
			await n8n.stop();
		}
		phase('B5 ids (own n8n start, lazy isolates)', t0);
		t0 = Date.now();
	}
	if (suites.includes('B7')) {
		// Its own n8n per workflow (fresh heap for each memory figure), before the shared one starts.
		await setLatency(sb, latencyMs);
		results.b7 = await runB7({
			boot: async (label) => {
				const instance = await bootN8n({
					label,
					tarball,
					binaryMode: 'filesystem',
					filesDir: outDir,
					log,
				});
				results.machine.n8nVersion = n8nPackageVersion(instance);
				return instance;
			},
			sb,
			n: Number(arg('b7-n') ?? 5000),
			realAnalysisMs: 30_000,
			scale: Number(arg('b6-scale') ?? 0.2),
			activeAnalysisLimit: Number(arg('b6-active-limit') ?? 50),
			latencyMs,
			httpN: Number(arg('b7-http-n') ?? arg('b7-n') ?? 5000),
			filesRoot: outDir,
			log,
			onRun: (partial) => {
				results.b7 = partial;
				o.save();
			},
		});
		await setLatency(sb, 0);
		phase('B7 (own n8n starts)', t0);
	}
}
