/**
 * B7: a backlog in one execution. N resumes (default 5,000) through Analyze Resume with Wait for Completion at its
 * default options, analyses at B6's scaled duration D with A analyses allowed at once: wall time against the
 * active-analysis floor ⌈N/A⌉·D, every resume analysed exactly once (sandbox counters: reports, analyses started,
 * allowance charged; all N reports listed `completed`), calls per resume against the same workflow at N = 100 in
 * the same n8n, and the n8n main process's resident memory while the execution runs.
 *
 * Memory is compared with n8n's own nodes doing the same calls: the all-at-once HTTP Request workflow of B1 on the
 * same N (or the N of --b7-http-n). That workflow cannot wait for the workspace's active-analysis limit (its starts would be refused with
 * 429), so its workspace allows N analyses at once; its time is therefore not comparable, only its memory. Each
 * workflow runs in an n8n of its own (fresh start, one warm-up run), so neither inherits the other's heap.
 * RSS is sampled every second (VmRSS of the n8n main process, where community nodes run) and the kernel's
 * high-water mark (VmHWM, reset right before the run) read at the end.
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import { n8nPid, procMemory, resetPeak, type Log } from '../lib/n8n';
import { totalCalls, type BenchSandbox } from '../lib/sandbox';
import { runB1Once, type B1Variant } from './b1';

export interface B7Memory {
	rssBeforeMb: number;
	/** Highest of VmHWM (reset before the run) and the sampled VmRSS. */
	peakMb: number;
	rssAfterMb: number;
	growthMb: number;
	growthPer1000Mb: number;
	/** VmRSS every second: [seconds since the start, MB]. */
	samples: Array<[number, number]>;
}

export interface B7Run {
	variant: Extract<B1Variant, 'perItem' | 'http'>;
	n: number;
	wallMs: number;
	executionMs?: number;
	calls: Record<string, number>;
	totalCalls: number;
	/** Sandbox counters of the run's workspace. */
	reportsCreated: number;
	analysesStarted: number;
	allowanceCharged: number;
	reportsCompleted: number;
	memory: B7Memory;
	ok: boolean;
	problem?: string;
	nodeMs?: Record<string, number>;
}

export interface B7Results {
	n: number;
	analysisMs: number;
	realAnalysisMs: number;
	activeAnalysisLimit: number;
	latencyMs: number;
	/** ⌈N/A⌉·D. */
	floorMs: number;
	/** Analyze Resume with Wait at N = 100, same workspace settings, same n8n: calls per resume to compare with. */
	reference?: {
		n: number;
		wallMs: number;
		totalCalls: number;
		callsPerResume: number;
		ok: boolean;
		problem?: string;
	};
	runs: B7Run[];
	/** Why the HTTP Request workflow's run (the memory comparison) could not be measured, if it failed. */
	httpProblem?: string;
	/** The run that measured this section, when it was added to another run's results (`--render --add-from`). */
	source?: {
		command: string;
		startedAt: string;
		gitCommit?: string;
		load: number[];
		loadAtEnd?: number[];
	};
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const ALLOWANCE = 100_000;

async function allowanceLeft(sb: BenchSandbox, workspaceId: string): Promise<number> {
	const settings = await sb.control.call<{ analysisAllowance: number }>(
		'PATCH',
		`/_sandbox/workspaces/${workspaceId}`,
		{},
	);
	return settings.analysisAllowance;
}

/** One measured run with a 1 s VmRSS sampler and the kernel's high-water mark (also Before and after's B7). */
export async function measureB7Run(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	variant: B7Run['variant'];
	n: number;
	workspace: Record<string, unknown>;
	filesRoot: string;
	log: Log;
	/** Our node's version in the workflow (an earlier build's, for Before and after; absent: today's). */
	nodeVersion?: number;
}): Promise<B7Run> {
	const pid = n8nPid(o.n8n);
	const before = procMemory(pid).rss;
	resetPeak(pid);
	const samples: Array<[number, number]> = [];
	const t0 = Date.now();
	let peak = before;
	const timer = setInterval(() => {
		try {
			const rss = procMemory(pid).rss;
			peak = Math.max(peak, rss);
			samples.push([Math.round((Date.now() - t0) / 1000), mb(rss)]);
		} catch {
			/* n8n gone: the run reports it */
		}
	}, 1000);
	let workspaceId = '';
	let once: Awaited<ReturnType<typeof runB1Once>>;
	try {
		once = await runB1Once({
			...o,
			concurrency: 5,
			label: 'B7',
			onWorkspace: (id) => (workspaceId = id),
		});
	} finally {
		clearInterval(timer);
	}
	const end = procMemory(pid);
	peak = Math.max(peak, end.hwm);
	const counters = (await o.sb.control.counters(workspaceId)) as {
		reportsCreated: number;
		attemptsCreated: number;
	};
	const charged = ALLOWANCE - (await allowanceLeft(o.sb, workspaceId));
	let problem = once.problem;
	if (
		!problem &&
		(counters.reportsCreated !== o.n || counters.attemptsCreated !== o.n || charged !== o.n)
	) {
		problem = `${counters.reportsCreated} reports, ${counters.attemptsCreated} analyses started, ${charged} charged (wanted ${o.n} each)`;
	}
	const growth = peak - before;
	return {
		variant: o.variant,
		n: o.n,
		wallMs: Math.round(once.wallMs),
		executionMs: once.executionMs,
		calls: once.calls,
		totalCalls: totalCalls(once.calls),
		reportsCreated: counters.reportsCreated,
		analysesStarted: counters.attemptsCreated,
		allowanceCharged: charged,
		reportsCompleted: once.completed,
		memory: {
			rssBeforeMb: mb(before),
			peakMb: mb(peak),
			rssAfterMb: mb(end.rss),
			growthMb: mb(growth),
			growthPer1000Mb: Math.round((mb(growth) / o.n) * 1000 * 10) / 10,
			samples,
		},
		ok: !problem,
		problem,
		nodeMs: once.nodeMs,
	};
}

export async function runB7(o: {
	/** Boots a fresh n8n with the package installed (one per workflow). */
	boot: (label: string) => Promise<N8nInstance>;
	sb: BenchSandbox;
	n: number;
	realAnalysisMs: number;
	scale: number;
	activeAnalysisLimit: number;
	latencyMs: number;
	/** Also run the HTTP Request workflow (memory beside ours) on this many resumes (0: not at all). */
	httpN: number;
	filesRoot: string;
	log: Log;
	onRun?: (partial: B7Results) => void;
}): Promise<B7Results> {
	const analysisMs = Math.round(o.realAnalysisMs * o.scale);
	const results: B7Results = {
		n: o.n,
		analysisMs,
		realAnalysisMs: o.realAnalysisMs,
		activeAnalysisLimit: o.activeAnalysisLimit,
		latencyMs: o.latencyMs,
		floorMs: Math.ceil(o.n / o.activeAnalysisLimit) * analysisMs,
		runs: [],
	};
	const workspace = {
		analysisDurationMs: analysisMs,
		activeAnalysisLimit: o.activeAnalysisLimit,
		pendingUploadLimit: 10_000,
	};
	const common = { sb: o.sb, filesRoot: o.filesRoot, concurrency: 5, log: o.log };

	let n8n = await o.boot('bench-b7-ours');
	try {
		await runB1Once({ ...common, n8n, variant: 'perItem', n: 20, label: 'B7-warm', workspace });
		const ref = await runB1Once({
			...common,
			n8n,
			variant: 'perItem',
			n: 100,
			label: 'B7-ref',
			workspace,
		});
		results.reference = {
			n: 100,
			wallMs: Math.round(ref.wallMs),
			totalCalls: totalCalls(ref.calls),
			callsPerResume: totalCalls(ref.calls) / 100,
			ok: !ref.problem,
			problem: ref.problem,
		};
		o.onRun?.(results);
		const run = await measureB7Run({ ...common, n8n, variant: 'perItem', n: o.n, workspace });
		results.runs.push(run);
		o.log(
			`B7 Analyze Resume N=${o.n}: ${run.wallMs} ms (floor ${results.floorMs} ms), ${(run.totalCalls / o.n).toFixed(2)} calls per resume, RSS +${run.memory.growthMb} MB${run.problem ? `, PROBLEM: ${run.problem}` : ''}`,
		);
		o.onRun?.(results);
	} finally {
		await n8n.stop();
	}
	if (o.httpN <= 0) return results;
	n8n = await o.boot('bench-b7-http');
	try {
		await httpRun(n8n);
	} catch (error) {
		// The comparison run failing must not lose the measured run: it is reported as not measured, with why.
		results.httpProblem = (error as Error).message.slice(0, 300);
		o.log(`B7 HTTP Request workflow N=${o.httpN}: FAILED: ${results.httpProblem}`);
		o.onRun?.(results);
	} finally {
		await n8n.stop();
	}
	return results;

	async function httpRun(n8n: N8nInstance): Promise<void> {
		const httpWorkspace = {
			analysisDurationMs: analysisMs,
			activeAnalysisLimit: Math.max(10_000, o.httpN),
			pendingUploadLimit: Math.max(10_000, o.httpN),
		};
		await runB1Once({
			...common,
			n8n,
			variant: 'http',
			n: 20,
			label: 'B7-warm',
			workspace: httpWorkspace,
		});
		const run = await measureB7Run({
			...common,
			n8n,
			variant: 'http',
			n: o.httpN,
			workspace: httpWorkspace,
		});
		results.runs.push(run);
		o.log(
			`B7 HTTP Request workflow N=${o.httpN}: ${run.wallMs} ms, RSS +${run.memory.growthMb} MB${run.problem ? `, PROBLEM: ${run.problem}` : ''}`,
		);
		o.onRun?.(results);
	}
}
