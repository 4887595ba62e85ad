/**
 * Before and after: two builds of the package measured side by side in one run. Each round boots one n8n with one
 * of the two builds installed (same boot settings), runs B1 (Analyze Resume with Wait and Analyze Many at their
 * defaults, N resumes, a few repetitions in rotated order) and B6 (the same two operations with analyses of a
 * scaled duration), then stops it; the builds alternate round by round (A, B, A, B, …), so drift in the shared
 * machine's load falls on both. Medians per build; the ratio is after ÷ before.
 */
import { totalCalls } from '../lib/sandbox';
import { bootN8n, n8nPackageVersion, type Log } from '../lib/n8n';
import type { BenchSandbox } from '../lib/sandbox';
import { median } from '../lib/stats';
import { runB1Once, type B1Variant } from './b1';
import { b6Floors } from './b6';

export interface Build {
	/** `before` (the baseline) or `after` (the code of this checkout). */
	role: 'before' | 'after';
	label: string;
	commit: string;
	tarball: string;
}

export interface BeforeAfterCase {
	suite: 'B1' | 'B6';
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
	sb: BenchSandbox;
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
		cases: [],
		bootSeconds: [],
	};
	const record = (
		suite: BeforeAfterCase['suite'],
		variant: BeforeAfterCase['variant'],
		n: number,
		role: Build['role'],
		once: Awaited<ReturnType<typeof runB1Once>>,
	) => {
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
	};
	const b6Workspace = {
		analysisDurationMs: o.b6AnalysisMs,
		activeAnalysisLimit: o.b6ActiveLimit,
		pendingUploadLimit: 10_000,
	};
	for (let round = 0; round < o.rounds; round++) {
		const build = round % 2 === 0 ? o.before : o.after;
		results.order.push(build.role);
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
			const common = { n8n, sb: o.sb, filesRoot: o.filesRoot, concurrency: 5, log: o.log };
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
		o.onRound?.(results);
	}
	return results;
}
