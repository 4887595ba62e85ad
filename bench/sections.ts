/** Report sections measured by runs of their own (bench/REPORT.md): Before and after, B7, the B5 profile. */
import { median, ms, ratio } from './lib/stats';
import type { BenchResults } from './results';
import type { B5Round } from './suites/b5';
import type { BeforeAfterCase, BeforeAfterResults } from './suites/beforeAfter';

const NAMES: Record<string, string> = {
	'B1:perItem': 'B1 Analyze Resume, Wait for Completion (default options)',
	'B1:many': 'B1 Analyze Many (default options)',
	'B6:perItem': 'B6 Analyze Resume, Wait for Completion (default options)',
	'B6:many': 'B6 Analyze Many (default options)',
	'B7:perItem': 'B7 Analyze Resume, Wait for Completion, all resumes in one execution (time)',
};

const from = (s: BeforeAfterResults['source']): string =>
	s
		? `Measured by its own run, \`${s.command}\`, started ${s.startedAt} on commit ${s.gitCommit ?? '?'} (load average ${s.load.join(', ')} at start${s.loadAtEnd ? `, ${s.loadAtEnd.join(', ')} at the end` : ''}). `
		: '';

const pairs = (before: number[], after: number[]): string => {
	const each = before.slice(0, after.length).map((v, i) => after[i] / v);
	if (each.length === 0) return 'n/a';
	return `${each.map(ratio).join(', ')}${each.length > 2 ? ` (median ${ratio(median(each))})` : ''}`;
};

export function beforeAfterSection(r: BenchResults): string[] {
	const b = r.beforeAfter;
	if (!b) return [];
	const before = b.builds.find((x) => x.role === 'before');
	const after = b.builds.find((x) => x.role === 'after');
	const out: string[] = ['## Before and after', ''];
	out.push(
		from(b.source) +
			`Two builds of the package in one run: **before** = ${before?.label} (${before?.commit}), **after** = ${after?.label} (${after?.commit}). ` +
			`One n8n at a time with one build installed, same boot settings; the builds alternate boot by boot (${b.order.join(', ')}), so drift in the machine's load falls on both. ` +
			`In each boot, after a warm-up: B1 at N = ${b.b1N} (${b.repeats} runs of each operation, order alternating)` +
			(b.b6.n > 0
				? `, then B6 at N = ${b.b6.n} with analyses of ${ms(b.b6.analysisMs)} (A = ${b.b6.activeAnalysisLimit} at once; floors ⌈N/A⌉·D = ${ms(b.b6.floorMs)} and, for Analyze Many, ⌈N/20⌉·D = ${ms(b.b6.batchFloorMs)}). `
				: '. ') +
			(b.b7
				? `Then, in an n8n of its own started right after (fresh heap), B7: a warm-up of 20 resumes, then N = ${b.b7.n.toLocaleString('en-US')} in one execution (B6's analyses and limit; floor ⌈N/A⌉·D = ${ms(b.b7.floorMs)}), the n8n main process's RSS sampled every second and its kernel high-water mark read at the end. `
				: '') +
			(b.freshSandboxEachRound
				? 'Every round after the first starts with a fresh sandbox, so no round inherits the reports of the ones before it. '
				: '') +
			'Medians over all runs of a build; every run must leave its N reports `completed`. n8n ready after ' +
			`${b.bootSeconds.join(', ')} s per boot.`,
		'',
	);
	out.push(
		'| Case | N | Before: median (runs) | After: median (runs) | After ÷ before (medians) | After ÷ before, boot by boot (pairs of consecutive boots) | Calls per resume before → after | OK |',
		'|---|---|---|---|---|---|---|---|',
	);
	// Runs per boot: B1 `repeats`, B6 one; pair k is the k-th boot of each build (consecutive boots).
	const perBoot = (c: BeforeAfterCase) => (c.suite === 'B1' ? b.repeats : 1);
	const floorOf = (suite: string, variant: string): number =>
		suite === 'B7' ? (b.b7?.floorMs ?? NaN) : variant === 'many' ? b.b6.batchFloorMs : b.b6.floorMs;
	const bootMedians = (c?: BeforeAfterCase): number[] => {
		if (!c) return [];
		const out: number[] = [];
		for (let i = 0; i < c.wallMs.length; i += perBoot(c))
			out.push(median(c.wallMs.slice(i, i + perBoot(c))));
		return out;
	};
	const pick = (suite: string, variant: string, role: string) =>
		b.cases.find((c) => c.suite === suite && c.variant === variant && c.role === role);
	const runs = (c?: BeforeAfterCase) => (c ? `${ms(c.medianMs)} (${c.wallMs.join(', ')})` : 'n/a');
	for (const key of Object.keys(NAMES)) {
		const [suite, variant] = key.split(':');
		const x = pick(suite, variant, 'before');
		const y = pick(suite, variant, 'after');
		if (!x && !y) continue;
		const ok = [x, y].every((c) => c?.ok)
			? 'yes'
			: [x, y]
					.map((c) => (c && !c.ok ? `${c.role}: ${c.problem}` : ''))
					.filter(Boolean)
					.join('; ') || 'incomplete';
		const floor =
			suite === 'B6' || suite === 'B7'
				? ` (× floor ${ratio((x?.medianMs ?? NaN) / floorOf(suite, variant))} → ${ratio((y?.medianMs ?? NaN) / floorOf(suite, variant))})`
				: '';
		out.push(
			`| ${NAMES[key]} | ${x?.n ?? y?.n} | ${runs(x)} | ${runs(y)} | **${ratio((y?.medianMs ?? NaN) / (x?.medianMs ?? NaN))}**${floor} | ${pairs(bootMedians(x), bootMedians(y))} | ${x?.callsPerResume.toFixed(2) ?? 'n/a'} → ${y?.callsPerResume.toFixed(2) ?? 'n/a'} | ${ok} |`,
		);
	}
	out.push('');
	out.push(...b7MemoryTable(pick('B7', 'perItem', 'before'), pick('B7', 'perItem', 'after')));
	const endpoints = new Set<string>();
	for (const c of b.cases) for (const e of Object.keys(c.calls)) endpoints.add(e);
	const cols = Object.keys(NAMES)
		.flatMap((key) =>
			['before', 'after'].map((role) => pick(key.split(':')[0], key.split(':')[1], role)),
		)
		.filter((c): c is BeforeAfterCase => !!c);
	out.push('Calls by endpoint (last run of each):', '');
	out.push(
		`| Endpoint | ${cols.map((c) => `${c.suite} ${c.variant} ${c.role}`).join(' | ')} |`,
		`|---|${cols.map(() => '---').join('|')}|`,
	);
	for (const e of [...endpoints].sort())
		out.push(`| \`${e}\` | ${cols.map((c) => c.calls[e] ?? 0).join(' | ')} |`);
	out.push('');
	return out;
}

/** B7's memory before and after: the n8n main process's growth during the run (peak − RSS before) and its peak. */
function b7MemoryTable(x?: BeforeAfterCase, y?: BeforeAfterCase): string[] {
	if (!x?.memory?.length && !y?.memory?.length) return [];
	const growth = (c?: BeforeAfterCase) => c?.memory?.map((m) => m.growthMb) ?? [];
	const peak = (c?: BeforeAfterCase) => c?.memory?.map((m) => m.peakMb) ?? [];
	const cell = (v: number[]) => (v.length ? `${median(v)} MB (${v.join(', ')})` : 'n/a');
	const rows: Array<[string, (c?: BeforeAfterCase) => number[]]> = [
		['RSS growth during the run (peak − before)', growth],
		['Peak RSS', peak],
	];
	return [
		`B7's memory (n8n's main process, N = ${(x ?? y)?.n.toLocaleString('en-US')}):`,
		'',
		'| Figure | Before: median (runs) | After: median (runs) | After ÷ before (medians) | After ÷ before, boot by boot |',
		'|---|---|---|---|---|',
		...rows.map(
			([name, f]) =>
				`| ${name} | ${cell(f(x))} | ${cell(f(y))} | **${ratio(median(f(y)) / median(f(x)))}** | ${pairs(f(x), f(y))} |`,
		),
		'',
	];
}

const met = (ok: boolean | undefined): string =>
	ok === undefined ? 'not measured' : ok ? '**met**' : '**missed**';

/** B5's latency and throughput rows of the Targets table (against n8n's Webhook node in the same run). */
export function b5TargetRows(r: BenchResults): string[] {
	const b = r.b5;
	if (!b) return [];
	const p99 = b.p99RatioMedian ?? b.trigger.p99Ms / b.n8nWebhook.p99Ms;
	const tput =
		b.throughputRatioMedian ?? b.trigger.deliveriesPerSecond / b.n8nWebhook.deliveriesPerSecond;
	const rounds = b.rounds ?? [];
	const perRound = (f: (x: B5Round) => number) =>
		rounds.length > 1
			? ` (median of ${rounds.length} rounds: ${rounds.map((x) => ratio(f(x))).join(', ')})`
			: '';
	const floor = b.n8nWebhookIsolate
		? `; n8n's Webhook node with one parameter as an expression (it pays the isolate and also evaluates its description fields in it, so it is no floor for us; the fair rows are "B5 fair"): ${ratio(b.n8nWebhookIsolate.p99Ms / b.n8nWebhook.p99Ms)} p99, ${ratio(b.n8nWebhookIsolate.deliveriesPerSecond / b.n8nWebhook.deliveriesPerSecond)} throughput (pooled)`
		: '';
	const why = r.b5Profile ? ' (causes: "B5 profile")' : '';
	// The "(ours)" row against n8n's Webhook node paying the isolate is gone: that receiver also evaluates every
	// description field in the isolate, so it flattered us. The fair rows (bench/sectionsB5Fair.ts) replace it.
	return [
		`| B5 acknowledgement p99 within 1.2× of n8n's Webhook node (same load, same run) | pooled ${b.trigger.p99Ms} ms vs ${b.n8nWebhook.p99Ms} ms; ${ratio(p99)}${perRound((x) => x.p99Ratio)}${floor} | ${met(b.trigger.ok && p99 <= 1.2)}${p99 > 1.2 ? why : ''} |`,
		`| B5 throughput at least 0.9× of n8n's Webhook node | pooled ${b.trigger.deliveriesPerSecond}/s vs ${b.n8nWebhook.deliveriesPerSecond}/s; ${ratio(tput)}${perRound((x) => x.throughputRatio)} | ${met(b.trigger.ok && tput >= 0.9)}${tput < 0.9 ? why : ''} |`,
	];
}

/** B7's rows of the Targets table. */
export function b7TargetRows(r: BenchResults): string[] {
	const b = r.b7;
	if (!b) return [];
	const ours = b.runs.find((x) => x.variant === 'perItem');
	const http = b.runs.find((x) => x.variant === 'http');
	const rows: string[] = [];
	const timeRatio = ours ? ours.wallMs / b.floorMs : undefined;
	rows.push(
		`| B7 ${b.n.toLocaleString('en-US')} resumes in one execution (Analyze Resume with Wait, default options, ${b.realAnalysisMs / 1000} s analyses scaled as B6) within 1.2× of the active-analysis floor ⌈N/A⌉·D | ${ours ? `${ms(ours.wallMs)} ÷ ${ms(b.floorMs)} = ${ratio(timeRatio ?? NaN)}` : 'n/a'} | ${met(ours ? ours.ok && (timeRatio ?? Infinity) <= 1.2 : undefined)} |`,
	);
	rows.push(
		`| B7 no item lost or charged twice (N reports, N analyses started, N charged, N completed) | ${ours ? `${ours.reportsCreated} reports, ${ours.analysesStarted} started, ${ours.allowanceCharged} charged, ${ours.reportsCompleted} completed of ${ours.n}` : 'n/a'} | ${met(ours ? ours.reportsCreated === ours.n && ours.analysesStarted === ours.n && ours.allowanceCharged === ours.n && ours.reportsCompleted === ours.n : undefined)} |`,
	);
	const perResume = ours ? ours.totalCalls / ours.n : undefined;
	rows.push(
		`| B7 calls per resume no more than at N = 100 (same settings, same n8n) | ${perResume !== undefined && b.reference ? `${perResume.toFixed(2)} at N = ${b.n} vs ${b.reference.callsPerResume.toFixed(2)} at N = 100` : 'n/a'} | ${met(perResume !== undefined && b.reference ? perResume <= b.reference.callsPerResume + 1e-9 : undefined)} |`,
	);
	rows.push(
		`| B7 n8n's memory: RSS growth per 1,000 items beside the HTTP Request workflow (no limit set: shown, not judged) | ${ours ? `ours ${ours.memory.growthPer1000Mb} MB (${ours.memory.growthMb} MB in all)` : 'n/a'}${http ? `; HTTP Request ${http.memory.growthPer1000Mb} MB (${http.memory.growthMb} MB)` : ''} | ${ours && http ? (ours.memory.growthPer1000Mb <= http.memory.growthPer1000Mb ? 'below the HTTP Request workflow' : 'above the HTTP Request workflow') : `not measured${b.httpProblem ? ` (the HTTP Request run failed: ${b.httpProblem.replace(/\|/g, '/').slice(0, 160)})` : ''}`} |`,
	);
	return rows;
}

export function b7Section(r: BenchResults): string[] {
	const b = r.b7;
	if (!b) return [];
	const out: string[] = [`## B7: ${b.n.toLocaleString('en-US')} resumes in one execution`, ''];
	out.push(
		from(b.source) +
			`Analyze Resume with Wait for Completion at its default options; every analysis lasts D = ${ms(b.analysisMs)} (B6's scaling of ${b.realAnalysisMs / 1000} s), A = ${b.activeAnalysisLimit} analyses at once, ${b.latencyMs} ms per call. ` +
			`Floor ⌈N/A⌉·D = ${ms(b.floorMs)}. Counters from the sandbox (reports created, analyses started, allowance charged) and every report listed afterwards. ` +
			'Memory: VmRSS of the n8n main process sampled every second and its high-water mark (VmHWM, reset right before the run); each workflow in an n8n of its own after one warm-up run. ' +
			`The HTTP Request workflow (B1's, all items at once) cannot wait for the active-analysis limit, so its workspace allows all N at once: its time is not comparable, its memory is.` +
			(b.reference
				? ` Reference in the same n8n, same settings, N = 100: ${ms(b.reference.wallMs)}, ${b.reference.totalCalls} calls (${b.reference.callsPerResume.toFixed(2)} per resume)${b.reference.ok ? '' : `, PROBLEM: ${b.reference.problem}`}.`
				: ''),
		'',
	);
	out.push(
		'| Workflow | N | Wall time | × floor | At full scale (≈) | Calls per resume | Reports / started / charged / completed | RSS before | Peak | Growth | per 1,000 items | After | OK |',
		'|---|---|---|---|---|---|---|---|---|---|---|---|---|',
	);
	for (const x of b.runs) {
		const name =
			x.variant === 'perItem'
				? 'Analyze Resume, Wait for Completion (default options)'
				: 'n8n HTTP Request workflow, all items at once';
		out.push(
			`| ${name} | ${x.n} | ${ms(x.wallMs)} | ${x.variant === 'perItem' ? ratio(x.wallMs / b.floorMs) : '(not comparable)'} | ${x.variant === 'perItem' ? `${Math.round((x.wallMs * b.realAnalysisMs) / b.analysisMs / 60_000)} min` : ''} | ${(x.totalCalls / x.n).toFixed(2)} | ${x.reportsCreated} / ${x.analysesStarted} / ${x.allowanceCharged} / ${x.reportsCompleted} | ${x.memory.rssBeforeMb} MB | ${x.memory.peakMb} MB | **${x.memory.growthMb} MB** | ${x.memory.growthPer1000Mb} MB | ${x.memory.rssAfterMb} MB | ${x.ok ? 'yes' : `no: ${x.problem}`} |`,
		);
	}
	out.push('');
	for (const x of b.runs) {
		const step = Math.max(1, Math.ceil(x.memory.samples.length / 20));
		const pts = x.memory.samples
			.filter((_, i) => i % step === 0)
			.map(([s, m]) => `${s} s ${m}`)
			.join(' · ');
		out.push(
			`RSS over the run, ${x.variant === 'perItem' ? 'Analyze Resume' : 'HTTP Request workflow'} (MB): ${pts || 'n/a'}.`,
			'',
		);
	}
	const endpoints = new Set<string>();
	for (const x of b.runs) for (const e of Object.keys(x.calls)) endpoints.add(e);
	out.push(
		`| Endpoint | ${b.runs.map((x) => x.variant).join(' | ')} |`,
		`|---|${b.runs.map(() => '---').join('|')}|`,
	);
	for (const e of [...endpoints].sort())
		out.push(`| \`${e}\` | ${b.runs.map((x) => x.calls[e] ?? 0).join(' | ')} |`);
	out.push('');
	return out;
}

const RECEIVERS: Record<string, string> = {
	trigger: 'Recruiting Analysis Trigger (verify, dedupe in static data)',
	webhook: "n8n's Webhook node (answers at once, no state)",
	isolate:
		"n8n's Webhook node with one option as an expression (n8n takes an isolate, as for any community trigger)",
	state: "n8n's core nodes keeping state: Webhook → Code node deduplicating in static data",
};

export function b5ProfileSection(r: BenchResults): string[] {
	const b = r.b5Profile;
	if (!b) return [];
	const out: string[] = ["## B5 profile: where an acknowledgement's time goes", ''];
	out.push(
		from(b.source) +
			`One n8n started with \`--cpu-prof\` (sampling every ${b.sampleIntervalUs} µs, NODE_OPTIONS of the n8n process only) received B5's load (${b.deliveries} signed deliveries, 10 % redeliveries, ${b.concurrency} at a time) ` +
			"on each receiver in turn, after a warm-up of 50 deliveries; the profile of the n8n main process is cut into each receiver's delivery window. " +
			"CPU is the main process's sampled time without idle (the Code node's JavaScript runs in n8n's task runner, another process, not counted here). " +
			"Profiling slows n8n, so the latencies are not B5's; compare the CPU per delivery and its shares." +
			(b.problem ? ` **Problem: ${b.problem}.**` : ''),
		'',
	);
	out.push(
		'| Receiver | p50 ack | p99 ack | Throughput | Executions (wanted) | CPU per delivery | CPU busy ÷ window |',
		'|---|---|---|---|---|---|---|',
	);
	for (const x of b.runs) {
		out.push(
			`| ${RECEIVERS[x.receiver]} | ${x.result.p50Ms} ms | ${x.result.p99Ms} ms | ${x.result.deliveriesPerSecond}/s | ${x.result.executions}${x.result.ok ? '' : ` (${x.result.problem})`} | ${x.cpuMsPerDelivery ?? 'n/a'} ms | ${x.profile ? `${Math.round(x.profile.busyMs).toLocaleString('en-US')} of ${Math.round(x.profile.windowMs).toLocaleString('en-US')} ms` : 'n/a'} |`,
		);
	}
	out.push('');
	const names = [
		...new Set(b.runs.flatMap((x) => x.profile?.byCategory.map((c) => c.name) ?? [])),
	].filter((n) => n !== 'idle');
	if (names.length) {
		out.push(
			"CPU milliseconds per delivery by where the sample's stack was (first matching category, bench/lib/cpuprofile.ts):",
			'',
		);
		out.push(
			`| Category | ${b.runs.map((x) => x.receiver).join(' | ')} |`,
			`|---|${b.runs.map(() => '---').join('|')}|`,
		);
		for (const n of names) {
			out.push(
				`| ${n} | ${b.runs
					.map((x) => {
						const c = x.profile?.byCategory.find((y) => y.name === n);
						return c && x.profile
							? `${(c.ms / x.result.deliveries).toFixed(2)} (${Math.round((100 * c.ms) / x.profile.busyMs)} %)`
							: '0';
					})
					.join(' | ')} |`,
			);
		}
		out.push('');
	}
	for (const x of b.runs) {
		if (!x.profile?.topSelf.length) continue;
		out.push(
			`Most self time, ${x.receiver}: ${x.profile.topSelf.map((f) => `${f.fn} ${f.ms} ms`).join(' · ')}.`,
			'',
		);
	}
	for (const x of b.runs) {
		if (!x.profile?.isolateCallers?.length) continue;
		out.push(
			`Time in n8n's expression isolates by caller, ${x.receiver} (ms per delivery): ${x.profile.isolateCallers.map((f) => `${f.fn} ${(f.ms / x.result.deliveries).toFixed(2)}`).join(' · ')}.`,
			'',
		);
	}
	return out;
}
