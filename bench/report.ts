/** Writes bench/REPORT.md (tables from one run) and bench/chart.svg (drawn by chart.ts). */
import { b5FairSection, b5FairTargetRows } from './sectionsB5Fair';
import { suiteSections } from './reportSuites';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { chartSvg } from './chart';
import {
	b5ProfileSection,
	b5TargetRows,
	b7Section,
	b7TargetRows,
	beforeAfterSection,
} from './sections';
import { ms, ratio } from './lib/stats';
import type { BenchResults } from './results';
import type { B1Variant } from './suites/b1';

const LABEL: Record<B1Variant, string> = {
	many: 'our node, batch mode, one node (Analyze Many), default options (Simplify on)',
	manyApi: 'our node, batch mode, one node (Analyze Many), Simplify off',
	batch:
		'our node, batch mode, two nodes (Upload Many → Start Many), default options (Simplify on)',
	batchApi: 'our node, batch mode, two nodes (Upload Many → Start Many), Simplify off',
	perItem: 'our node, per item (Analyze Resume, wait, default options)',
	http: 'n8n HTTP Request workflow, all items at once',
	httpLoop: 'n8n HTTP Request workflow, Loop Over Items (one at a time)',
	baseline: 'n8n only (Webhook → Read Files)',
};

/** B6's analysis time as the run used it: the scaled duration, and the real one it stands for when scaled. */
function b6Duration(b: { analysisMs: number; realAnalysisMs: number; scale: number }): string {
	return b.scale === 1
		? `${b.realAnalysisMs / 1000} s`
		: `${b.analysisMs / 1000} s (time scaled by ${b.scale}, standing for ${b.realAnalysisMs / 1000} s)`;
}

const met = (ok: boolean | undefined): string =>
	ok === undefined ? 'not measured' : ok ? '**met**' : '**missed**';

export interface B1Targets {
	n: number;
	/** Analyze Many (one node) and Upload Many → Start Many (two nodes): median time ÷ the floor (b1Floor). */
	manyFloorRatio?: number;
	batchFloorRatio?: number;
	/** Analyze Many ÷ the stricter floor with the phases overlapped. */
	manyOverlappedRatio?: number;
	/** HTTP Request workflows ÷ Analyze Many. */
	speedup?: number;
	loopSpeedup?: number;
	manyOk: boolean;
	batchOk: boolean;
	httpOk: boolean;
	loopOk: boolean;
}

export function b1Targets(results: BenchResults): B1Targets {
	const n = results.b1?.floors.some((f) => f.n === 100)
		? 100
		: (results.b1?.floors.at(-1)?.n ?? 100);
	const run = (v: B1Variant) => results.b1?.runs.find((r) => r.variant === v && r.n === n);
	const [many, batch, http, loop] = [run('many'), run('batch'), run('http'), run('httpLoop')];
	const floor = results.b1?.floors.find((f) => f.n === n);
	return {
		n,
		manyFloorRatio: many && floor ? many.medianMs / floor.timeMs : undefined,
		batchFloorRatio: batch && floor ? batch.medianMs / floor.timeMs : undefined,
		manyOverlappedRatio:
			many && floor?.overlappedMs ? many.medianMs / floor.overlappedMs : undefined,
		speedup: many && http ? http.medianMs / many.medianMs : undefined,
		loopSpeedup: many && loop ? loop.medianMs / many.medianMs : undefined,
		manyOk: !!many?.ok,
		batchOk: !!batch?.ok,
		httpOk: !!http?.ok,
		loopOk: !!loop?.ok,
	};
}

export function writeReport(results: BenchResults, dir: string, findings?: string): void {
	writeFileSync(join(dir, 'chart.svg'), chartSvg(results));
	writeFileSync(join(dir, 'REPORT.md'), markdown(results, findings));
}

function markdown(r: BenchResults, findings?: string): string {
	const m = r.machine;
	const s = r.settings;
	const out: string[] = [];
	out.push('# Benchmarks', '');
	out.push(
		`One run of \`${r.command}\`, started ${m.startedAt}, ${r.totalSeconds ?? '?'} s in all, package built from commit ${m.gitCommit ?? '?'}${m.gitDirtyShipped ? ' (with uncommitted changes in nodes/ or credentials/)' : ''}.` +
			(r.quick ? ' **Quick sizes** (`--quick`), not the full run.' : '') +
			(r.partial
				? ` **The run did not finish**: rendered from the results saved as each suite ended (${r.phases.map((p) => p.name).join(', ') || 'none'}).`
				: ''),
		'',
	);
	out.push('![B1 wall time per variant, and B2 memory growth](chart.svg)', '');

	out.push('## Targets', '');
	out.push('| Target | Result | Status |', '|---|---|---|');
	const t = b1Targets(r);
	const within = (value: number | undefined, limit: number, ok: boolean) =>
		met(value === undefined ? undefined : ok && value <= limit);
	const atLeast = (value: number | undefined, limit: number, ok: boolean) =>
		met(value === undefined ? undefined : ok && value >= limit);
	out.push(
		`| B1 batch mode, one node (Analyze Many), within 1.5× of the floor (time, N = ${t.n}) | ${ratio(t.manyFloorRatio ?? NaN)} | ${within(t.manyFloorRatio, 1.5, t.manyOk)} |`,
	);
	out.push(
		`| B1 batch mode, two nodes (Upload Many → Start Many), within 1.5× of the floor (time, N = ${t.n}) | ${ratio(t.batchFloorRatio ?? NaN)} | ${within(t.batchFloorRatio, 1.5, t.batchOk)} |`,
	);
	// The floor counts no report read: the same targets for the variants that output the API's batch items.
	const apiRun = (v: B1Variant) => r.b1?.runs.find((x) => x.variant === v && x.n === t.n);
	const apiFloor = r.b1?.floors.find((f) => f.n === t.n);
	for (const [v, name] of [
		['manyApi', 'one node (Analyze Many)'],
		['batchApi', 'two nodes (Upload Many → Start Many)'],
	] as Array<[B1Variant, string]>) {
		const run = apiRun(v);
		if (!run || !apiFloor) continue;
		const value = run.medianMs / apiFloor.timeMs;
		out.push(
			`| B1 batch mode, ${name}, Simplify off (no report read, as the floor counts), within 1.5× of the floor (time, N = ${t.n}) | ${ratio(value)} | ${within(value, 1.5, run.ok)} |`,
		);
	}
	out.push(
		`| B1 (stricter, ours) Analyze Many within 1.5× of the floor with the phases overlapped (N = ${t.n}) | ${ratio(t.manyOverlappedRatio ?? NaN)} | ${within(t.manyOverlappedRatio, 1.5, t.manyOk)} |`,
	);
	out.push(
		`| B1 batch mode (Analyze Many) ≥ 5× faster than the HTTP Request workflow, all items at once (N = ${t.n}) | ${ratio(t.speedup ?? NaN)} | ${atLeast(t.speedup, 5, t.manyOk && t.httpOk)} |`,
	);
	out.push(
		`| B1 batch mode (Analyze Many) ≥ 5× faster than the HTTP Request workflow, one at a time (N = ${t.n}) | ${ratio(t.loopSpeedup ?? NaN)} | ${atLeast(t.loopSpeedup, 5, t.manyOk && t.loopOk)} |`,
	);
	const fsMode = r.b2?.find((b) => b.mode === 'filesystem');
	out.push(
		`| B2 peak RSS growth under 64 MB in filesystem mode | ${fsMode ? `${fsMode.growthMb} MB` : 'n/a'} | ${met(fsMode ? fsMode.ok && fsMode.growthMb < 64 : undefined)} |`,
	);
	const b3 = r.b3;
	out.push(
		`| B3 at most 101 requests for 10,000 events | Get Many ${b3?.getMany.requests ?? 'n/a'}, feed trigger ${b3?.trigger.requests ?? 'n/a'} | ${met(b3 ? b3.getMany.ok && b3.trigger.ok && b3.getMany.requests <= 101 && b3.trigger.requests <= 101 : undefined)} |`,
	);
	out.push(
		`| B4 our verifier not slower than \`standardwebhooks\` | ${r.b4 ? r.b4.map((b) => `${b.payloadBytes / 1024} KB: ${ratio(b.speedup)}`).join(', ') : 'n/a'} | ${met(r.b4 ? r.b4.every((b) => b.speedup >= 1) : undefined)} |`,
	);
	out.push(
		`| B5 executions equal distinct events (${r.b5?.trigger.concurrency ?? '?'} at a time) | ${r.b5 ? `${r.b5.trigger.executions} executions / ${r.b5.trigger.distinctEvents} distinct` : 'n/a'} | ${met(r.b5?.trigger.ok)} |`,
	);
	for (const n of [100, 500]) {
		const run = (v: B1Variant) => r.b1?.runs.find((x) => x.variant === v && x.n === n);
		const [perItem, http, many] = [run('perItem'), run('http'), run('many')];
		const floor = r.b1?.floors.find((f) => f.n === n);
		const timeRatio = perItem && http ? perItem.medianMs / http.medianMs : undefined;
		const perResume = perItem ? perItem.totalCalls / n : undefined;
		out.push(
			`| B1 Analyze Resume with Wait (default options) no slower than the HTTP Request workflow, all items at once, and at most 5 calls per resume (N = ${n}) | ${perItem && http ? `${ms(perItem.medianMs)} vs ${ms(http.medianMs)}: ${ratio(timeRatio ?? NaN)}; ${perResume?.toFixed(2)} calls per resume` : 'n/a'} | ${met(perItem && http ? perItem.ok && http.ok && (timeRatio ?? Infinity) <= 1 && (perResume ?? Infinity) <= 5 : undefined)} |`,
		);
		const overlappedRatio =
			many && floor?.overlappedMs ? many.medianMs / floor.overlappedMs : undefined;
		out.push(
			`| B1 Analyze Many (default options: Simplify on) within 1.2× of the overlapped floor (N = ${n}) | ${ratio(overlappedRatio ?? NaN)} | ${within(overlappedRatio, 1.2, !!many?.ok)} |`,
		);
		const manyApi = run('manyApi');
		const apiRatio =
			manyApi && floor?.overlappedMs ? manyApi.medianMs / floor.overlappedMs : undefined;
		if (manyApi)
			out.push(
				`| B1 Analyze Many, Simplify off, within 1.2× of the overlapped floor (N = ${n}) | ${ratio(apiRatio ?? NaN)} | ${within(apiRatio, 1.2, manyApi.ok)} |`,
			);
		if (many && floor?.boundedMs) {
			const bounded = many.medianMs / floor.boundedMs;
			const boundedApi = manyApi
				? ` (Simplify off ${ratio(manyApi.medianMs / floor.boundedMs)})`
				: '';
			out.push(
				`| B1 (ours) Analyze Many within 1.2× of the overlapped floor under the bounded pipeline, one chunk ahead (${ms(floor.boundedMs)}, N = ${n}) | ${ratio(bounded)}${boundedApi} | ${within(bounded, 1.2, many.ok)} |`,
			);
		}
	}
	if (r.b6) {
		const b = r.b6;
		// The node's default Concurrency (20), what a user gets without touching the option.
		const recommended =
			b.runs.find((x) => x.variant === 'perItem' && x.concurrency === 20) ??
			b.runs.find((x) => x.variant === 'perItem');
		const many = b.runs.find((x) => x.variant === 'many');
		const value = recommended ? recommended.wallMs / b.floorMs : undefined;
		out.push(
			`| B6 the recommended operation for ${b.n} resumes at ${b6Duration(b)} per analysis (Analyze Resume with Wait, concurrency ${recommended?.concurrency ?? '?'}, the default) within 1.2× of that case's floor (⌈N/A⌉·D) | ${recommended ? `${ms(recommended.wallMs)} ÷ ${ms(b.floorMs)} = ${ratio(value ?? NaN)}` : 'n/a'}${many ? `; Analyze Many ${ms(many.wallMs)} = ${ratio(many.wallMs / b.floorMs)} of it (${ratio(many.wallMs / b.batchFloorMs)} of its own floor ⌈N/20⌉·D)` : ''} | ${within(value, 1.2, !!recommended?.ok)} |`,
		);
	}
	out.push(...b5TargetRows(r), ...b5FairTargetRows(r), ...b7TargetRows(r));
	out.push('');
	if (findings?.trim()) {
		out.push(
			'## Findings',
			'',
			'_Written after the run from its numbers and logs (bench/findings.md); the tables below are generated._',
			'',
			findings.trim(),
			'',
		);
	}

	out.push(...beforeAfterSection(r));
	out.push(...b7Section(r));
	out.push(...b5FairSection(r));
	out.push(...b5ProfileSection(r));

	if (r.b1) {
		out.push('## B1: analyze N resumes (100 KB PDFs)', '');
		out.push(
			`Sandbox latency **${s.latencyMs} ms on every API and storage call**, analysis worker step ${s.workerDelayMs} ms; the floors count ${s.concurrency} PUTs at a time ` +
				"(Upload Many and Analyze Many PUT 5 files at a time); Analyze Resume runs with the node's default options (concurrency 10, waits shared across items). The HTTP Request node has no concurrency bound: it sends all items of a node at once (its Batching option only adds pauses). " +
				'Wall time is the round trip of the production webhook that starts the workflow and answers when its last node finishes; every run gets a fresh workspace, ' +
				'and afterwards all N reports must be `completed` (checked by listing them). Medians of the repeated runs (order rotated each repetition); the runs are listed. ' +
				'The one-at-a-time HTTP Request workflow (about 0.7 s per resume) runs once per N, and only up to N = 100.',
			'',
		);
		out.push(
			'| N | Variant | Wall time (median) | Runs (ms) | Calls | Calls ÷ floor | Time ÷ floor | Time ÷ overlapped floor | OK |',
			'|---|---|---|---|---|---|---|---|---|',
		);
		for (const f of r.b1.floors) {
			const overlapped = f.overlappedMs ?? NaN;
			out.push(
				`| ${f.n} | **floor** (phases one after another) | ${ms(f.timeMs)} |  | ${f.calls} | 1.00× | 1.00× | ${ratio(f.timeMs / overlapped)} | |`,
			);
			out.push(
				`| ${f.n} | **floor, phases overlapped** (stricter) | ${ms(overlapped)} |  | ${f.calls} | 1.00× | ${ratio(overlapped / f.timeMs)} | 1.00× | |`,
			);
			if (f.boundedMs)
				out.push(
					`| ${f.n} | **floor, phases overlapped, one chunk ahead** (the node's bound) | ${ms(f.boundedMs)} |  | ${f.calls} | 1.00× | ${ratio(f.boundedMs / f.timeMs)} | ${ratio(f.boundedMs / overlapped)} | |`,
				);
			for (const v of [
				'many',
				'manyApi',
				'batch',
				'batchApi',
				'perItem',
				'http',
				'httpLoop',
				'baseline',
			] as B1Variant[]) {
				const run = r.b1.runs.find((x) => x.n === f.n && x.variant === v);
				if (!run) continue;
				const calls = v === 'baseline' ? '0' : String(run.totalCalls);
				out.push(
					`| ${f.n} | ${LABEL[v]} | ${ms(run.medianMs)} | ${run.wallMs.join(', ')} | ${calls} | ${v === 'baseline' ? '' : ratio(run.totalCalls / f.calls)} | ${ratio(run.medianMs / f.timeMs)} | ${ratio(run.medianMs / overlapped)} | ${run.ok ? 'yes' : `no: ${run.problem}`} |`,
				);
			}
		}
		out.push(
			'',
			'Floor time per N (upload batches, PUT rounds, quote rounds, analysis batches, one phase after another): ' +
				r.b1.floors.map((f) => `N=${f.n}: ${f.formula} = ${f.timeMs} ms`).join('; ') +
				'.',
			'',
		);
		out.push(
			"The overlapped floor counts the same calls at exactly L each, but lets chunk k be quoted and analyzed as soon as its own files are up, while later files upload (only the API's dependencies: one active batch per kind, an analysis batch lasts L + 2W, C PUTs at a time); `b1OverlappedFloor` in bench/suites/b1.ts.",
			'',
		);
		out.push("### Where the time goes (last run of each, n8n's own per-node execution times)", '');
		out.push(
			'| N | Variant | Wall time | Execution (n8n start → stop) | Time in nodes |',
			'|---|---|---|---|---|',
		);
		for (const run of r.b1.runs) {
			const nodes = Object.entries(run.nodeMs ?? {})
				.filter(([, v]) => v > 0)
				.map(([k, v]) => `${k} ${Math.round(v).toLocaleString('en-US')}`)
				.join(' · ');
			out.push(
				`| ${run.n} | ${run.variant} | ${ms(run.wallMs.at(-1) ?? NaN)} | ${ms(run.executionMs ?? NaN)} | ${nodes} |`,
			);
		}
		out.push('');
		out.push('### Calls by endpoint (last run of each)', '');
		const endpoints = new Set<string>();
		for (const run of r.b1.runs) for (const e of Object.keys(run.calls)) endpoints.add(e);
		const cols = r.b1.runs.filter((x) => x.variant !== 'baseline');
		out.push(
			`| Endpoint | ${cols.map((c) => `N=${c.n} ${c.variant}`).join(' | ')} |`,
			`|---|${cols.map(() => '---').join('|')}|`,
		);
		for (const e of [...endpoints].sort())
			out.push(`| \`${e}\` | ${cols.map((c) => c.calls[e] ?? 0).join(' | ')} |`);
		out.push('');
	}

	if (r.b6) {
		const b = r.b6;
		out.push(`## B6: ${b.n} resumes, analyses of ${b6Duration(b)} each`, '');
		out.push(
			`Time scaled by ${b.scale}: every analysis of the workspace lasts D = ${ms(b.analysisMs)} (sandbox workspace setting \`analysisDurationMs\`), standing for ${b.realAnalysisMs / 1000} s; ` +
				`the latency per call stays ${b.latencyMs} ms (not scaled, so calls weigh ${Math.round(1 / b.scale)}× more against the analyses than at full scale). ` +
				`The workspace allows A = ${b.activeAnalysisLimit} analyses running at once (the spec does not give the number; this is the sandbox's default) and one analysis batch at a time. ` +
				`Floors: single starts ⌈N/A⌉·D = ${ms(b.floorMs)}; analysis batches of 20 one after another ⌈N/20⌉·D = ${ms(b.batchFloorMs)}. One run each; all ${b.n} reports must be \`completed\`. ` +
				`At full scale multiply the times by ${Math.round(1 / b.scale)}.`,
			'',
		);
		out.push(
			'| Operation | Wall time | × floor (⌈N/A⌉·D) | At full scale (≈) | Calls | Calls per resume | OK |',
			'|---|---|---|---|---|---|---|',
		);
		for (const run of b.runs) {
			const name =
				run.variant === 'many'
					? 'Analyze Many (default options)'
					: `Analyze Resume, Wait for Completion, concurrency ${run.concurrency}`;
			out.push(
				`| ${name} | ${ms(run.wallMs)} | ${ratio(run.wallMs / b.floorMs)} | ${Math.round(run.wallMs / b.scale / 1000)} s | ${run.totalCalls} | ${(run.totalCalls / b.n).toFixed(2)} | ${run.ok ? 'yes' : `no: ${run.problem}`} |`,
			);
		}
		out.push('');
		const endpoints = new Set<string>();
		for (const run of b.runs) for (const e of Object.keys(run.calls)) endpoints.add(e);
		out.push(
			`| Endpoint | ${b.runs.map((x) => (x.variant === 'many' ? 'Analyze Many' : `C=${x.concurrency}`)).join(' | ')} |`,
			`|---|${b.runs.map(() => '---').join('|')}|`,
		);
		for (const e of [...endpoints].sort())
			out.push(`| \`${e}\` | ${b.runs.map((x) => x.calls[e] ?? 0).join(' | ')} |`);
		out.push('');
	}

	out.push(...suiteSections(r));

	out.push('## Machine', '');
	out.push(
		`| nproc | CPU | Memory | Load average at start (1, 5, 15 min) | Load at end | Kernel | Node (bench, sandbox) | n8n | Node (n8n) |`,
		'|---|---|---|---|---|---|---|---|---|',
		`| ${m.nproc} | ${m.cpuModel} | ${m.memTotalMb} MB (${m.memFreeMb} MB free at start) | ${m.loadAverageAtStart.join(', ')} | ${(r.loadAverageAtEnd ?? []).join(', ')} | ${m.kernel} | ${m.benchNode} | ${m.n8nVersion ?? 'n/a'} | ${m.n8nNode ?? 'n/a'} |`,
		'',
	);
	out.push('Phases of this run (seconds, load average after):', '');
	out.push(
		r.phases.map((p) => `${p.name} ${p.seconds} s (load ${p.loadAfter[0]})`).join(' · '),
		'',
	);

	out.push('## Reproduce', '');
	out.push(
		'```sh',
		'npm ci && npm run n8n:setup        # once: real n8n 2.41.1 on Node 24 in ~/.cache (see n8n-host/)',
		'npm run bench                     # full sizes; writes bench/REPORT.md, bench/chart.svg, bench/out/results.json',
		'npm run bench -- --quick          # smaller sizes (B1 N = 20, 100; B2 5 files; B5 200 deliveries)',
		'npm run bench -- --only B4        # one benchmark (B1..B7, B5P); --sizes 20,100  --latency 25  --concurrency 5',
		'npm run bench -- --only B6 --b6-n 500 --b6-scale 0.2 --b6-concurrencies 5,10,20',
		'npm run bench -- --quick --only B1,B6,B7 --baseline-ref <commit> --report-dir /tmp/ba   # Before and after: a commit against this checkout',
		'npm run bench -- --only B5P,B7 --b7-n 5000 --report-dir /tmp/b7   # the B5 profile and B7 (own n8n starts)',
		'npm run bench -- --only B5F --report-dir /tmp/b5f   # B5 fair: two n8n (default, lazy isolates), then the ids cost',
		'npm run bench -- --only B5PG --report-dir /tmp/b5pg  # the PostgreSQL remedy at 1,000 and 25,920,000 rows',
		'npm run bench -- --only B5IDS --report-dir /tmp/b5ids  # the acknowledgement at 1,000 and 10,000 ids, side by side',
		'npm run bench -- --render --add-from /tmp/b5f --add-only b5Fair   # (b5Pg, b5Ids likewise)',
		'npm run bench -- --render --add-from /tmp/ba --add-only beforeAfter   # copy that section into bench/results.json and re-render',
		'```',
		'',
		'Everything listens on 127.0.0.1: the sandbox (`sandbox/cli.ts`, request log in `bench/out/sandbox.log`) and n8n (`.n8n-runs/bench-*`).',
		'',
	);
	return out.join('\n');
}
