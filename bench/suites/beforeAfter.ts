/**
 * Before and after: two builds of the package measured side by side in one run. Each round boots one n8n with one
 * of the two builds installed (same boot settings), runs B1 (Analyze Resume with Wait and Analyze Many at their
 * defaults, N resumes, a few repetitions in rotated order) and B6 (the same two operations with analyses of a
 * scaled duration), then stops it; B7 (Analyze Resume with Wait on N resumes in one execution: time and the main
 * process's memory) gets an n8n of its own right after, so its memory figure starts from a fresh heap. The builds
 * alternate round by round (A, B, A, B, …), so drift in the shared machine's load falls on both, and each round
 * starts with a fresh sandbox, so no round inherits the reports (and garbage collection) of the ones before it.
 * Medians per build; the ratio is after ÷ before.
 */
import { totalCalls } from '../lib/sandbox';
import { bootN8n, n8nPackageVersion, type Log } from '../lib/n8n';
import type { BenchSandbox } from '../lib/sandbox';
import { median } from '../lib/stats';
import { runB1Once, type B1Variant } from './b1';
import { b6Floors } from './b6';
import { measureB7Run, type B7Run } from './b7';

export interface Build {
	/** `before` (the baseline) or `after` (the code of this checkout). */
	role: 'before' | 'after';
	label: string;
	commit: string;
	tarball: string;
	/** Our node's version in the workflows this build is given (the one its own bench used). */
	nodeVersion: number;
}

export interface BeforeAfterCase {
	suite: 'B1' | 'B6' | 'B7';
	variant: Extract<B1Variant, 'perItem' | 'many'>;
	n: number;
	role: Build['role'];
	wallMs: number[];
	medianMs: number;
	/** Calls of each run (all runs of a case make the same calls unless something went wrong). */
	totalCalls: number[];
	callsPerResume: number;
	/** Calls by endpoint of the last run. */
	calls: Record<string, number>;
	ok: boolean;
	problem?: string;
	/** B7: the n8n main process's memory of each run (growth = peak − RSS before the run). */
	memory?: Array<Pick<B7Run['memory'], 'rssBeforeMb' | 'peakMb' | 'growthMb'>>;
}

export interface BeforeAfterResults {
	builds: Array<Omit<Build, 'tarball'>>;
	/** The order n8n was booted in, one build per round. */
	order: Array<Build['role']>;
	b1N: number;
	repeats: number;
	b6: {
		n: number;
		analysisMs: number;
		activeAnalysisLimit: number;
		floorMs: number;
		batchFloorMs: number;
	};
	/** Each round after the first started with a fresh sandbox. */
	freshSandboxEachRound?: boolean;
	/** B7's settings (absent: B7 not measured); floor ⌈N/A⌉·D. */
	b7?: { n: number; analysisMs: number; activeAnalysisLimit: number; floorMs: number };
	cases: BeforeAfterCase[];
	/** Seconds from the start of n8n to ready, per round. */
	bootSeconds: number[];
	n8nVersion?: string;
	/** The run that measured this section, when it was added to another run's results (`--render --add-from`). */
	source?: {
		command: string;
		startedAt: string;
		gitCommit?: string;
		load: number[];
		loadAtEnd?: number[];
	};
}

export async function runBeforeAfter(o: {
	before: Build;
	after: Build;
	rounds: number;
	b1N: number;
	repeats: number;
	/** B6's N (0: B1 only). */
	b6N: number;
	b6AnalysisMs: number;
	b6ActiveLimit: number;
	/** B7's N (0: no B7); its analyses and limit are B6's. */
	b7N: number;
	sb: BenchSandbox;
	/** A fresh sandbox (latency set) in place of the current one, called before every round but the first. */
	renewSandbox?: () => Promise<BenchSandbox>;
	filesRoot: string;
	log: Log;
	/** Called after each round with the figures so far (saved, so a failure later keeps them). */
	onRound?: (partial: BeforeAfterResults) => void;
}): Promise<BeforeAfterResults> {
	const cases = new Map<string, BeforeAfterCase>();
	const results: BeforeAfterResults = {
		builds: [o.before, o.after].map(({ tarball: _t, ...b }) => b),
		order: [],
		b1N: o.b1N,
		repeats: o.repeats,
		b6: {
			n: o.b6N,
			analysisMs: o.b6AnalysisMs,
			activeAnalysisLimit: o.b6ActiveLimit,
			...b6Floors(o.b6N, o.b6AnalysisMs, o.b6ActiveLimit),
		},
		...(o.b7N > 0
			? {
					b7: {
						n: o.b7N,
						analysisMs: o.b6AnalysisMs,
						activeAnalysisLimit: o.b6ActiveLimit,
						floorMs: Math.ceil(o.b7N / o.b6ActiveLimit) * o.b6AnalysisMs,
					},
				}
			: {}),
		freshSandboxEachRound: o.renewSandbox !== undefined,
		cases: [],
		bootSeconds: [],
	};
	let sb = o.sb;
	const record = (
		suite: BeforeAfterCase['suite'],
		variant: BeforeAfterCase['variant'],
		n: number,
		role: Build['role'],
		once: Pick<Awaited<ReturnType<typeof runB1Once>>, 'wallMs' | 'calls' | 'problem'>,
	): BeforeAfterCase => {
		const key = `${suite}:${variant}:${role}`;
		let c = cases.get(key);
		if (!c) {
			c = {
				suite,
				variant,
				n,
				role,
				wallMs: [],
				medianMs: NaN,
				totalCalls: [],
				callsPerResume: NaN,
				calls: {},
				ok: true,
			};
			cases.set(key, c);
			results.cases.push(c);
		}
		c.wallMs.push(Math.round(once.wallMs));
		c.medianMs = median(c.wallMs);
		c.totalCalls.push(totalCalls(once.calls));
		c.callsPerResume = median(c.totalCalls) / n;
		c.calls = once.calls;
		if (once.problem) {
			c.ok = false;
			c.problem = once.problem;
		}
		return c;
	};
	const b6Workspace = {
		analysisDurationMs: o.b6AnalysisMs,
		activeAnalysisLimit: o.b6ActiveLimit,
		pendingUploadLimit: 10_000,
	};
	for (let round = 0; round < o.rounds; round++) {
		const build = round % 2 === 0 ? o.before : o.after;
		results.order.push(build.role);
		if (round > 0 && o.renewSandbox) sb = await o.renewSandbox();
		const t0 = Date.now();
		const n8n = await bootN8n({
			label: `bench-${build.role}`,
			tarball: build.tarball,
			binaryMode: 'filesystem',
			filesDir: o.filesRoot,
			log: o.log,
		});
		results.bootSeconds.push(Math.round((Date.now() - t0) / 1000));
		results.n8nVersion = n8nPackageVersion(n8n);
		try {
			const common = {
				n8n,
				sb,
				filesRoot: o.filesRoot,
				concurrency: 5,
				log: o.log,
				nodeVersion: build.nodeVersion,
			};
			// Warm-up (not recorded): n8n's first executions after a start are slower (module loading, caches).
			await runB1Once({ ...common, variant: 'many', n: 20, label: `warm-${build.role}` });
			await runB1Once({ ...common, variant: 'perItem', n: 20, label: `warm-${build.role}` });
			const variants: Array<BeforeAfterCase['variant']> = ['perItem', 'many'];
			for (let r = 0; r < o.repeats; r++) {
				for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
					record(
						'B1',
						v,
						o.b1N,
						build.role,
						await runB1Once({ ...common, variant: v, n: o.b1N, label: `B1-${build.role}` }),
					);
				}
			}
			for (const v of o.b6N > 0 ? variants : []) {
				record(
					'B6',
					v,
					o.b6N,
					build.role,
					await runB1Once({
						...common,
						variant: v,
						n: o.b6N,
						workspace: b6Workspace,
						label: `B6-${build.role}`,
					}),
				);
			}
		} finally {
			await n8n.stop();
		}
		if (o.b7N > 0) await b7Round(build);
		o.onRound?.(results);
	}
	return results;

	async function b7Round(build: Build): Promise<void> {
		const n8n = await bootN8n({
			label: `bench-b7-${build.role}`,
			tarball: build.tarball,
			binaryMode: 'filesystem',
			filesDir: o.filesRoot,
			log: o.log,
		});
		try {
			const common = {
				n8n,
				sb,
				filesRoot: o.filesRoot,
				log: o.log,
				nodeVersion: build.nodeVersion,
			};
			await runB1Once({
				...common,
				concurrency: 5,
				variant: 'perItem',
				n: 20,
				label: `B7-warm-${build.role}`,
				workspace: b6Workspace,
			});
			const run = await measureB7Run({
				...common,
				variant: 'perItem',
				n: o.b7N,
				workspace: b6Workspace,
			});
			const c = record('B7', 'perItem', o.b7N, build.role, run);
			c.memory = [
				...(c.memory ?? []),
				{
					rssBeforeMb: run.memory.rssBeforeMb,
					peakMb: run.memory.peakMb,
					growthMb: run.memory.growthMb,
				},
			];
			o.log(
				`B7-${build.role} N=${o.b7N}: ${run.wallMs} ms, RSS ${run.memory.rssBeforeMb} → peak ${run.memory.peakMb} MB${run.problem ? `, PROBLEM: ${run.problem}` : ''}`,
			);
		} finally {
			await n8n.stop();
		}
	}
}
