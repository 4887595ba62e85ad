/**
 * B6: throughput when analyses take real time. 500 resumes whose analyses last about 30 s each, in real n8n, with
 * Analyze Many (one analysis batch of at most 20 at a time: the spec's "only one batch per kind may be active", and a
 * batch finishes only when all its analyses have) and with Analyze Resume, Wait for Completion (shared waiting), at a
 * few concurrencies. The workspace allows A analyses running at once (the spec does not give the number; the sandbox's
 * default, 50, is used), so single starts are capped at A per analysis duration, Analyze Many at 20.
 *
 * Time is scaled so the run stays short: the sandbox makes every analysis of the workspace last D = 30 s × scale
 * (its workspace setting analysisDurationMs); the latency per call stays the benchmarks' 25 ms, unscaled, so the
 * calls weigh 1/scale times more against the analyses than they would at full scale (a conservative choice for
 * both operations). Floors, in the same scaled time: ⌈N/A⌉·D for single starts, ⌈N/20⌉·D for Analyze Many.
 */
import type { N8nInstance } from '../../scripts/n8n-host';
import type { Log } from '../lib/n8n';
import type { BenchSandbox } from '../lib/sandbox';
import { totalCalls } from '../lib/sandbox';
import { runB1Once } from './b1';

export interface B6Run {
	variant: 'many' | 'perItem';
	/** Option Concurrency of Analyze Resume. */
	concurrency?: number;
	wallMs: number;
	calls: Record<string, number>;
	totalCalls: number;
	ok: boolean;
	problem?: string;
	nodeMs?: Record<string, number>;
}

export interface B6Results {
	n: number;
	/** Real analysis duration the run stands for, the scale, and the scaled duration the sandbox used. */
	realAnalysisMs: number;
	scale: number;
	analysisMs: number;
	activeAnalysisLimit: number;
	latencyMs: number;
	/** ⌈N/A⌉·D: single starts, bound by the active-analysis limit. */
	floorMs: number;
	/** ⌈N/20⌉·D: one analysis batch of 20 at a time. */
	batchFloorMs: number;
	runs: B6Run[];
}

export function b6Floors(
	n: number,
	analysisMs: number,
	activeAnalysisLimit: number,
): { floorMs: number; batchFloorMs: number } {
	return {
		floorMs: Math.ceil(n / activeAnalysisLimit) * analysisMs,
		batchFloorMs: Math.ceil(n / 20) * analysisMs,
	};
}

export async function runB6(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	n: number;
	realAnalysisMs: number;
	scale: number;
	activeAnalysisLimit: number;
	latencyMs: number;
	concurrencies: number[];
	filesRoot: string;
	log: Log;
}): Promise<B6Results> {
	const analysisMs = Math.round(o.realAnalysisMs * o.scale);
	const workspace = {
		pendingUploadLimit: 10_000,
		activeAnalysisLimit: o.activeAnalysisLimit,
		analysisDurationMs: analysisMs,
	};
	const runs: B6Run[] = [];
	const record = async (variant: B6Run['variant'], concurrency?: number) => {
		const once = await runB1Once({
			n8n: o.n8n,
			sb: o.sb,
			variant,
			n: o.n,
			filesRoot: o.filesRoot,
			concurrency: 5,
			log: o.log,
			workspace,
			perItemConcurrency: concurrency,
			label: 'B6',
		});
		runs.push({
			variant,
			concurrency,
			wallMs: Math.round(once.wallMs),
			calls: once.calls,
			totalCalls: totalCalls(once.calls),
			ok: !once.problem,
			problem: once.problem,
			nodeMs: once.nodeMs,
		});
	};
	for (const c of o.concurrencies) await record('perItem', c);
	await record('many');
	return {
		n: o.n,
		realAnalysisMs: o.realAnalysisMs,
		scale: o.scale,
		analysisMs,
		activeAnalysisLimit: o.activeAnalysisLimit,
		latencyMs: o.latencyMs,
		...b6Floors(o.n, analysisMs, o.activeAnalysisLimit),
		runs,
	};
}
