/**
 * `npm run bench` — every benchmark (B1 to B6) in one run, then bench/REPORT.md and bench/chart.svg.
 *
 *   npm run bench                      full sizes (B1 N = 20, 100, 500; B2 20 × 10 MB)
 *   npm run bench -- --quick           small sizes (B1 N = 20, 100; B2 5 × 10 MB; B5 200 deliveries)
 *   options: --only B1,B4  --sizes 20,100  --latency 25  --concurrency 5  --tarball <file>  --out <dir>
 *            --variants perItem,http (B1 only these)  --report-dir <dir> (write the report elsewhere; created if missing)
 *            B6: --b6-n 500  --b6-scale 0.2 (30 s analyses last 6 s)  --b6-active-limit 50  --b6-concurrencies 5,10,20
 *            Before and after (B1, B6 and B7 of two builds, alternating n8n boots, a fresh sandbox each round;
 *            replaces B1, B6 and B7 in this run; B6's N is --b6-n, B7's --b7-n (quick: 1,000)):
 *            --baseline-ref <git ref> (packed from a temporary git worktree)  or  --baseline-tarball <file>
 *            --baseline-rounds 4 (n8n boots, builds alternating)  --baseline-n 100 (B1's N)  --repeats 2 (B1 per boot)
 *            --baseline-node-version 2 (our node's version in the baseline's workflows; default: the one its bench used)
 *            B7: --b7-n 5000 (resumes in one execution; analyses as B6's)  --b7-http-n 5000 (the HTTP Request workflow's memory run; 0 skips it)
 *            B5: --b5-rounds 3 (rounds of the three receivers side by side, order rotating; quick: 2)
 *            B5P: B5's load on the receivers in one n8n started with --cpu-prof; where the time goes (--b5-deliveries)
 *            B5F: B5 fair, our trigger and n8n's bare Webhook node in two n8n (default, and
 *            N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true), side by side (--b5-rounds 3); then the trigger's cost per delivery
 *            at 1,000 ids and at its cap (--b5-ids-rounds 4)
 *            B5IDS: the trigger's acknowledgement at 1,000 and 10,000 ids kept, side by side (one n8n, lazy isolates;
 *            one at a time and 10 at a time; --b5ids-rounds 4, --b5ids-deliveries 200; medians and ratios)
 *            B5PG: the PostgreSQL remedy's cost per delivery at 1,000 ids and --b5pg-rows (25,920,000: 30 days at 10/s)
 *   npm run bench -- --render --add-from <dir>   copy the sections that run measured (Before and after, B7, the
 *                                      B5 profile) into bench/results.json, then re-render the report
 *                                      (--add-only beforeAfter,b7,b5Profile,b5Fair,b5Pg,b5Ids: only those)
 *   npm run bench -- --render          re-render REPORT.md and chart.svg from bench/results.json (no new measurement),
 *                                      e.g. after editing bench/findings.md (the analysis shown under "Findings")
 *
 * Loopback only: the sandbox and n8n listen on 127.0.0.1. Every loop is bounded in count and time.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import {
	ensureN8n,
	packPackage,
	removePackedPackage,
	REPO_ROOT,
	type N8nInstance,
} from '../scripts/n8n-host';
import { bootN8n, bootQueueN8n, n8nPackageVersion } from './lib/n8n';
import { currentLoad, machineInfo } from './lib/machine';
import { setLatency, startBenchSandbox, type BenchSandbox } from './lib/sandbox';
import { writeReport } from './report';
import { runOwnBootSuites } from './ownBoots';
import type { PackedRef } from './lib/baseline';
import { saveResults, type BenchResults } from './results';
import { b1Floor, runB1, type B1Variant } from './suites/b1';
import { runB2 } from './suites/b2';
import { runB3 } from './suites/b3';
import { runB4 } from './suites/b4';
import { runB5 } from './suites/b5';
import { runB5Pg, THIRTY_DAYS_AT_10_PER_SECOND } from './suites/b5pg';
import { runB6 } from './suites/b6';

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

const log = (line: string) =>
	process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<void> {
	const quick = process.argv.includes('--quick');
	const only = (arg('only') ?? 'B1,B2,B3,B4,B5,B5P,B6,B7').toUpperCase().split(',');
	const sizes = (arg('sizes') ?? (quick ? '20,100' : '20,100,500')).split(',').map(Number);
	const latencyMs = Number(arg('latency') ?? 25);
	const concurrency = Number(arg('concurrency') ?? 5);
	const workerDelayMs = 50;
	const b2Files = Number(arg('b2-files') ?? (quick ? 5 : 20));
	const b5Deliveries = Number(arg('b5-deliveries') ?? (quick ? 200 : 500));
	const outDir = resolve(arg('out') ?? join(REPO_ROOT, 'bench', 'out'));
	const reportDir = resolve(arg('report-dir') ?? join(REPO_ROOT, 'bench'));
	mkdirSync(outDir, { recursive: true });
	mkdirSync(reportDir, { recursive: true });

	if (process.argv.includes('--render')) {
		const saved = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as BenchResults;
		const addFrom = arg('add-from');
		if (addFrom) {
			addSections(
				saved,
				JSON.parse(readFileSync(join(resolve(addFrom), 'results.json'), 'utf8')) as BenchResults,
				arg('add-only')?.split(','),
			);
			saveResults(saved, [reportDir]);
			log(
				`added the measured sections of ${join(resolve(addFrom), 'results.json')} to ${join(reportDir, 'results.json')}`,
			);
		}
		writeReport(saved, reportDir, findings(reportDir));
		log(`rendered ${join(reportDir, 'REPORT.md')} from ${join(reportDir, 'results.json')}`);
		return;
	}

	const machine = machineInfo();
	log(
		`machine: ${machine.nproc} cores, ${machine.memTotalMb} MB, load ${machine.loadAverageAtStart.join(' ')}`,
	);
	const started = Date.now();
	const results: BenchResults = {
		command:
			`npm run bench --${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}`.replace(
				/ --$/,
				'',
			),
		quick,
		machine,
		settings: { latencyMs, concurrency, workerDelayMs, sizes, b2Files, b5Deliveries },
		phases: [],
		partial: true,
	};
	// Each suite's figures are saved as it ends: a later failure keeps them (`--render` makes a report of them).
	const phase = (name: string, t0: number) => {
		results.phases.push({
			name,
			seconds: Math.round((Date.now() - t0) / 100) / 10,
			loadAfter: currentLoad(),
		});
		saveResults(results, [outDir, reportDir]);
		log(`${name} done; results so far in ${join(reportDir, 'results.json')}`);
	};

	if (only.includes('B4')) {
		const t0 = Date.now();
		results.b4 = runB4({ log });
		phase('B4', t0);
	}
	if (only.includes('B5PG')) {
		const t0 = Date.now();
		results.b5Pg = await runB5Pg({
			log,
			outDir,
			rows: Number(arg('b5pg-rows') ?? THIRTY_DAYS_AT_10_PER_SECOND),
			transactions: Number(arg('b5pg-transactions') ?? 5000),
		});
		phase('B5 remedy (own PostgreSQL)', t0);
	}

	const baselineRef = arg('baseline-ref');
	const baselineTarball = arg('baseline-tarball');
	const beforeAfter =
		(baselineRef !== undefined || baselineTarball !== undefined) &&
		['B1', 'B6', 'B7'].some((b) => only.includes(b));
	// With a baseline, B1, B6 and B7 are measured for both builds (the "Before and after" section) instead of alone.
	const suites = beforeAfter ? only.filter((b) => !['B1', 'B6', 'B7'].includes(b)) : only;
	const needsN8n =
		['B2', 'B3', 'B5', 'B5P', 'B5F', 'B5IDS', 'B7'].some((b) => suites.includes(b)) ||
		['B1', 'B6'].some((b) => only.includes(b));
	if (!needsN8n) {
		await finish(results, reportDir, outDir, started);
		return;
	}

	const host = await ensureN8n(log);
	let tarball = arg('tarball');
	const packedHere = !tarball;
	if (!tarball) {
		const t0 = Date.now();
		tarball = (await packPackage({ log })).tarball;
		phase('build + pack', t0);
	}
	let baseline: PackedRef | undefined;
	let sb: BenchSandbox = await startBenchSandbox({
		logFile: join(outDir, 'sandbox.log'),
		workerDelayMs,
	});
	let n8n: N8nInstance | undefined;
	try {
		let t0 = Date.now();
		await runOwnBootSuites({
			arg,
			quick,
			only,
			suites,
			beforeAfter,
			results,
			sb,
			renewSandbox: async () => {
				await sb.stop();
				sb = await startBenchSandbox({ logFile: join(outDir, 'sandbox.log'), workerDelayMs });
				return sb;
			},
			tarball,
			outDir,
			latencyMs,
			b5Deliveries,
			log,
			phase,
			save: () => saveResults(results, [outDir, reportDir]),
			onBaseline: (packed) => (baseline = packed),
		});
		if (suites.includes('B7')) {
			// B7 leaves thousands of reports and their files in the sandbox's memory (gigabytes), and its garbage
			// collection then slows every later call: the suites after it get a fresh sandbox.
			await sb.stop();
			sb = await startBenchSandbox({ logFile: join(outDir, 'sandbox.log'), workerDelayMs });
		}
		t0 = Date.now();
		results.machine.n8nNode = (await import('node:child_process'))
			.execFileSync(host.nodeBin, ['--version'], { encoding: 'utf8' })
			.trim();
		if (['B1', 'B2', 'B3', 'B5', 'B6'].some((b) => suites.includes(b))) {
			n8n = await bootN8n({
				label: 'bench',
				tarball,
				binaryMode: 'filesystem',
				filesDir: outDir,
				log,
			});
			results.machine.n8nVersion = n8nPackageVersion(n8n);
			phase('n8n start (filesystem mode)', t0);
		}

		if (n8n && suites.includes('B1')) {
			t0 = Date.now();
			await setLatency(sb, latencyMs);
			results.b1 = {
				runs: await runB1({
					n8n,
					sb,
					sizes,
					repeats: (n) => (arg('repeats') ? Number(arg('repeats')) : n <= 100 ? 3 : 1),
					loopMaxN: Number(arg('loop-max-n') ?? 100),
					filesRoot: outDir,
					concurrency,
					log,
					variants: arg('variants')?.split(',') as B1Variant[] | undefined,
				}),
				floors: sizes.map((n) => b1Floor(n, latencyMs, concurrency, workerDelayMs)),
			};
			await setLatency(sb, 0);
			phase('B1', t0);
		}
		if (n8n && suites.includes('B6')) {
			t0 = Date.now();
			await setLatency(sb, latencyMs);
			results.b6 = await runB6({
				n8n,
				sb,
				n: Number(arg('b6-n') ?? (quick ? 100 : 500)),
				realAnalysisMs: 30_000,
				scale: Number(arg('b6-scale') ?? 0.2),
				activeAnalysisLimit: Number(arg('b6-active-limit') ?? 50),
				latencyMs,
				concurrencies: (arg('b6-concurrencies') ?? '5,10,20').split(',').map(Number),
				filesRoot: outDir,
				log,
			});
			await setLatency(sb, 0);
			phase('B6', t0);
		}
		if (n8n && suites.includes('B3')) {
			t0 = Date.now();
			results.b3 = await runB3({ n8n, sb, events: 10_000, log });
			phase('B3', t0);
		}
		if (n8n && suites.includes('B5')) {
			t0 = Date.now();
			results.b5 = await runB5({
				n8n,
				sb,
				deliveries: b5Deliveries,
				concurrency: 10,
				rounds: Number(arg('b5-rounds') ?? (quick ? 2 : 3)),
				log,
			});
			phase('B5', t0);
		}
		if (n8n && suites.includes('B2')) {
			t0 = Date.now();
			const fsResult = await runB2({
				n8n,
				sb,
				files: b2Files,
				filesRoot: outDir,
				mode: 'filesystem',
				log,
			});
			phase('B2 filesystem', t0);
			await n8n.stop();
			n8n = undefined;
			t0 = Date.now();
			const n8nDefault = await bootN8n({
				label: 'bench-default',
				tarball,
				binaryMode: 'default',
				filesDir: outDir,
				log,
			});
			try {
				const defaultResult = await runB2({
					n8n: n8nDefault,
					sb,
					files: b2Files,
					filesRoot: outDir,
					mode: 'default',
					log,
				});
				results.b2 = [fsResult, defaultResult];
			} finally {
				await n8nDefault.stop();
			}
			phase('B2 default (own n8n start)', t0);
			// Queue mode: Redis, PostgreSQL, main, one worker, one webhook process; binaries in the database.
			t0 = Date.now();
			const stack = await bootQueueN8n({ label: 'bench-queue', tarball, filesDir: outDir, log });
			try {
				const queueResult = await runB2({
					n8n: stack.main.instance,
					measured: stack.workers[0].instance,
					webhookServer: stack.webhooks[0].instance,
					sb,
					files: b2Files,
					filesRoot: outDir,
					mode: 'queue-database',
					log,
				});
				results.b2.push(queueResult);
			} finally {
				await stack.stop();
			}
			phase('B2 queue mode, database binaries (own stack)', t0);
		}
	} finally {
		if (n8n) await n8n.stop();
		await sb.stop();
		// The temporary ra-pack-* folder of the package packed for this run (a --tarball given is left alone).
		if (packedHere) removePackedPackage(tarball);
		baseline?.remove();
	}
	await finish(results, reportDir, outDir, started);
}

async function finish(
	results: BenchResults,
	reportDir: string,
	outDir: string,
	started: number,
): Promise<void> {
	results.totalSeconds = Math.round((Date.now() - started) / 1000);
	results.loadAverageAtEnd = currentLoad();
	delete results.partial;
	saveResults(results, [outDir, reportDir]);
	writeReport(results, reportDir, findings(reportDir));
	log(`done in ${results.totalSeconds} s: ${join(reportDir, 'REPORT.md')}`);
}

/**
 * Sections measured by a run of their own (the Before and after comparison, B7, the B5 profile) copied into the
 * results of the report's run, each with the command, start and load of the run that measured it.
 */
function addSections(into: BenchResults, from: BenchResults, only?: string[]): void {
	const source = {
		command: from.command,
		startedAt: from.machine.startedAt,
		gitCommit: from.machine.gitCommit,
		load: from.machine.loadAverageAtStart,
		loadAtEnd: from.loadAverageAtEnd,
	};
	const wanted = (name: string) => !only || only.includes(name);
	if (from.beforeAfter && wanted('beforeAfter')) into.beforeAfter = { ...from.beforeAfter, source };
	if (from.b7 && wanted('b7')) into.b7 = { ...from.b7, source };
	if (from.b5Profile && wanted('b5Profile')) into.b5Profile = { ...from.b5Profile, source };
	if (from.b5Fair && wanted('b5Fair')) into.b5Fair = { ...from.b5Fair, source };
	if (from.b5Pg && wanted('b5Pg')) into.b5Pg = { ...from.b5Pg, source };
	if (from.b5Ids && wanted('b5Ids')) into.b5Ids = { ...from.b5Ids, source };
}

/** The hand-written analysis of the committed run (causes of missed targets), shown in the report. */
function findings(reportDir: string): string | undefined {
	const file = join(reportDir, 'findings.md');
	return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

main().catch((error: unknown) => {
	process.stderr.write(
		`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exit(1);
});
