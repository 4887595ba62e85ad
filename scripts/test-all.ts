/**
 * `npm test` (and `npm run test:quick` with `--quick`: see quick()): every check of the repository, timed, ending with a table of where the time went.
 *
 * 1. Build and pack the package once (the real-n8n suites install the tarball, scan:package scans it), make sure
 *    the n8n lines RA_N8N_VERSIONS selects and Debian's Chromium are installed, and each line's migrated empty
 *    database (scripts/n8n-host/database-template.ts) made.
 * 2. Lanes side by side (two cores: the real-n8n lanes spend most of their time waiting on n8n's poll ticks and the
 *    sandbox): the static checks (`lint`: ESLint and Prettier, import circles, actionlint, both type checks), the
 *    jest checks (`checks`: jest, the package scan, the OpenAPI lint, the node tests through Prism), and per n8n
 *    line jest runs of the fault and end-to-end suites (jest.real-n8n.config.js: `polls`, F3/F4 and F10; `own`, the
 *    files that boot an n8n of their own and the security file; and `rest`, every other file; within a run the
 *    files share one running n8n per boot setting).
 *    By default five chains of lanes: the jest checks, then the static checks; n8n 2.x's `rest`; n8n 2.x's `own`;
 *    n8n 1.x's `rest`, then its `polls`; n8n 2.x's `polls`, then n8n 1.x's `own`. RA_TEST_LANES=all runs every lane at
 *    once, RA_TEST_LANES=lines one jest per line beside the checks, RA_TEST_LANES=serial every lane one after another.
 * 3. The table: each step's wall time, each test file's (test/timing-reporter.js), each n8n started
 *    (scripts/n8n-host/start.ts writes RA_N8N_BOOT_LOG), then the plain line `N passed, N failed` (tests, plus
 *    the steps that failed without a failing test). The exit code is 1 when any step failed.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { ensureChromium } from '../test/e2e/global-setup';
import {
	ensureN8n,
	migratedDatabase,
	packPackage,
	removeFinishedRunFolders,
	removePackedPackage,
	selectedN8nLines,
} from './n8n-host';
import {
	formatTime,
	printTable,
	readCpuSeconds,
	readMachineCpu,
	readRows,
	type BootRow,
	type Done,
} from './test-all-table';

const ROOT = resolve(__dirname, '..');
const JEST = join(ROOT, 'node_modules', '.bin', 'jest');
const REPORTER = join(ROOT, 'test', 'timing-reporter.js');
const work = mkdtempSync(join(tmpdir(), 'ra-test-all-'));
const timingsFile = join(work, 'files.jsonl');
const bootsFile = join(work, 'boots.jsonl');
writeFileSync(timingsFile, '');
writeFileSync(bootsFile, '');

interface Step {
	name: string;
	command: string;
	args: string[];
	/** Test-file times of this step are recorded under this run name (jest steps). */
	jestRun?: string;
	env?: NodeJS.ProcessEnv;
}

const done: Done[] = [];
const started = Date.now();
const machineAtStart = readMachineCpu();
const seconds = (from: number) => (Date.now() - from) / 1000;
let stepCount = 0;
const say = (text: string) => process.stdout.write(`[npm test] ${text}\n`);

const npmRun = (name: string, ...extra: string[]): Step => ({
	name,
	command: 'npm',
	args: ['run', '--silent', name, ...(extra.length ? ['--', ...extra] : [])],
});
const jestArgs = ['--reporters=default', `--reporters=${REPORTER}`];

/**
 * Runs one step with its output prefixed by the lane's name; resolves with whether it passed. The step runs under
 * bash, whose `times` then writes the CPU time of every process the step waited for (and theirs in turn) to a file:
 * the table's CPU column (readCpuSeconds in scripts/test-all-table.ts).
 */
function runStep(lane: string, step: Step): Promise<boolean> {
	const from = Date.now();
	const cpuFile = join(work, `cpu-${++stepCount}.txt`);
	say(`${lane}: ${step.name} …`);
	return new Promise((resolveStep) => {
		const measured = ['bash', '-c', '"$@"; code=$?; times > "$0"; exit $code', cpuFile];
		// The poll-tick and own-n8n lanes run a little behind the others (nice 5): they wait on events with bounded
		// waits of a minute or more, while the checks' node tests count requests against timers of tens of
		// milliseconds and the browser tests (in the `rest` lanes) wait 30 s for a page.
		const nice = / (polls|own)$/.test(lane) ? ['nice', '-n', '5'] : [];
		const [command, ...args] = [...nice, ...measured, step.command, ...step.args];
		const child = spawn(command, args, {
			cwd: ROOT,
			env: {
				...process.env,
				...step.env,
				RA_TIMINGS_FILE: timingsFile,
				RA_TIMINGS_RUN: step.jestRun ?? step.name,
				RA_N8N_BOOT_LOG: bootsFile,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		for (const stream of [child.stdout, child.stderr]) {
			const target = stream === child.stdout ? process.stdout : process.stderr;
			createInterface({ input: stream }).on('line', (line) => target.write(`[${lane}] ${line}\n`));
		}
		child.on('error', (error) => target(error));
		child.on('close', (code) => finish(code === 0));
		function target(error: Error) {
			process.stderr.write(`[${lane}] ${step.name}: ${error.message}\n`);
		}
		let finished = false;
		function finish(ok: boolean) {
			if (finished) return;
			finished = true;
			const took = seconds(from);
			const cpu = readCpuSeconds(cpuFile);
			done.push({ lane, name: step.name, seconds: took, cpu, ok, jestRun: step.jestRun });
			say(`${lane}: ${step.name} ${ok ? 'passed' : 'FAILED'} in ${formatTime(took)}`);
			resolveStep(ok);
		}
	});
}

/** A lane runs its steps in order; every step runs even when one before it failed, so the table is whole. */
async function runLane(lane: string, steps: Step[]): Promise<void> {
	for (const step of steps) await runStep(lane, step);
}

/** The jest folders of the inner loop: everything of plain jest but the property runs and the package's builds. */
const QUICK_TESTS = ['test/unit', 'test/nodes', 'test/sandbox', 'test/contract', 'test/security'];

/**
 * `npm run test:quick`: the inner loop, no real n8n: ESLint and Prettier, both type checks, beside jest's unit
 * (engine, writes, webhook, feed, docs), node (through n8n's engine, triggers), sandbox, contract and security
 * tests. The property runs (test/property) and the package's builds and install (test/package) run in `npm test`. ESLint, Prettier and tsc keep their caches (keyed on each file's content and the configuration) in a
 * folder of the system's temporary directory, outside the repository and node_modules, so a second run checks
 * only what changed; `npm test` runs them without a cache.
 */
async function quick(): Promise<number> {
	const cache = join(
		tmpdir(),
		'n8n-nodes-recruiting-analysis-quick',
		createHash('sha256').update(ROOT).digest('hex').slice(0, 12),
	);
	const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
	await Promise.all([
		runLane('checks', [
			{
				name: 'eslint (cached)',
				command: bin('eslint'),
				args: ['.', '--cache', '--cache-location', join(cache, 'eslint/')],
			},
			{
				name: 'prettier --check (cached)',
				command: bin('prettier'),
				args: [
					'--check',
					'--cache',
					'--cache-location',
					join(cache, 'prettier.json'),
					'**/*.{ts,js,mjs,cjs}',
				],
			},
			{
				name: 'typecheck (incremental)',
				command: bin('tsc'),
				args: [
					'-p',
					'tsconfig.dev.json',
					'--noEmit',
					'--incremental',
					'--tsBuildInfoFile',
					join(cache, 'tsconfig.dev.tsbuildinfo'),
				],
			},
			npmRun('typecheck:n8n1'),
		]),
		runLane('jest', [
			{
				name: 'jest (unit, nodes, sandbox, contract, security)',
				command: JEST,
				// Three workers on two cores: these tests wait on their sandboxes for much of their time.
				args: [...QUICK_TESTS, '--maxWorkers=3', ...jestArgs],
				jestRun: 'jest',
			},
		]),
	]);
	return finish();
}

async function main(): Promise<number> {
	if (process.argv.includes('--quick')) return quick();
	const lines = selectedN8nLines();
	const prepareFrom = Date.now();
	const log = (text: string) => say(`prepare: ${text}`);
	ensureChromium(log);
	for (const line of lines) await ensureN8n(log, line);
	// Made once here (a start of n8n per line, the first time on a machine), not by the lanes at once.
	await Promise.all(lines.map((line) => migratedDatabase(line, log)));
	done.push({
		lane: 'prepare',
		name: 'n8n lines, their databases and Chromium',
		seconds: seconds(prepareFrom),
		ok: true,
	});
	const buildOk = await runStep('prepare', npmRun('build'));
	const packFrom = Date.now();
	const packed = buildOk ? await packPackage({ log, skipBuild: true }) : undefined;
	done.push({ lane: 'prepare', name: 'npm pack', seconds: seconds(packFrom), ok: !!packed });
	const tarball = packed?.tarball ?? '';
	try {
		const staticChecks: Step[] = [
			npmRun('lint'),
			npmRun('lint:circles'),
			npmRun('lint:workflows'),
			npmRun('typecheck'),
			npmRun('typecheck:n8n1'),
		];
		const checks: Step[] = [
			{ name: 'jest', command: JEST, args: jestArgs, jestRun: 'jest' },
			{ name: 'scan:package', command: 'node', args: ['scripts/scan-package.mjs', tarball] },
			npmRun('lint:openapi'),
			{ ...npmRun('test:prism', ...jestArgs), jestRun: 'prism' },
		];
		// Per line, the files that wait on n8n's poll ticks (`polls`), those that boot an n8n of their own or of a boot
		// setting no other file shares (`own`) and the others (`rest`): jest.real-n8n.config.js. RA_TEST_LANES=lines:
		// one jest per line.
		const partsOf = (): string[] =>
			process.env.RA_TEST_LANES === 'lines' ? [''] : ['polls', 'own', 'rest'];
		const realN8n = lines.flatMap((line) =>
			partsOf().map((part) => {
				const lane = `n8n ${line}.x${part ? ` ${part}` : ''}`;
				return {
					lane,
					steps: [
						{
							name: `faults + e2e on ${lane}`,
							command: JEST,
							args: ['-c', 'jest.real-n8n.config.js', ...jestArgs],
							jestRun: lane,
							env: { RA_N8N_VERSIONS: line, RA_E2E_TARBALL: tarball, RA_REAL_N8N_PART: part },
						},
					],
				};
			}),
		);
		const lanes = [
			{ lane: 'lint', steps: staticChecks },
			{ lane: 'checks', steps: checks },
			...(packed ? realN8n : []),
		];
		const oneAfterAnother = async (some: typeof lanes) => {
			for (const l of some) await runLane(l.lane, l.steps);
		};
		// The lanes of these names that run, in the order named.
		const named = (...names: string[]) =>
			names.flatMap((name) => lanes.filter((l) => l.lane === name));
		if (process.env.RA_TEST_LANES === 'serial') await oneAfterAnother(lanes);
		else if (process.env.RA_TEST_LANES === 'all')
			await Promise.all(lanes.map((l) => runLane(l.lane, l.steps)));
		else {
			// The default, five chains on two cores, each about as long as the longest lane (CONTRIBUTING "How long the
			// commands take": a fresh-clone run's lanes, 2.x own 13:42, 2.x rest 12:11, checks 9:03, 1.x rest 8:58, 2.x
			// polls 4:51, 1.x polls 4:43, 1.x own 2:09 before F10 in queue mode ran on 1.x and about 5:37 with it, lint
			// 1:21): the jest checks, then the static checks, which are all CPU (first, beside four lanes starting their
			// n8n, they took 5 minutes; late in the run about 1.5); n8n 2.x's other files; n8n 2.x's files with an n8n of
			// their own; n8n 1.x's other files, then its poll-tick files; n8n 2.x's poll-tick files (about a minute of CPU
			// in five), then n8n 1.x's files with an n8n of their own (F10 and F9 in queue mode: after 1.x rest, with lint,
			// they made that chain about 16 minutes, the longest). Five at once, never more: every lane at once on two cores
			// starved the browser steps past their limits.
			const chains = [
				named('checks', 'lint'),
				named('n8n 2.x rest', 'n8n 2.x'),
				named('n8n 2.x own'),
				named('n8n 1.x rest', 'n8n 1.x', 'n8n 1.x polls'),
				named('n8n 2.x polls', 'n8n 1.x own'),
			];
			const chained = new Set(chains.flat());
			await Promise.all([
				...chains.map(oneAfterAnother),
				...lanes.filter((l) => !chained.has(l)).map((l) => runLane(l.lane, l.steps)),
			]);
		}
	} finally {
		if (packed) removePackedPackage(packed.tarball);
		stopLeftBehind();
		// The jest runs reused this tarball, so their own clean-up of the n8n run folders did not run: it runs here.
		const removed = removeFinishedRunFolders();
		say(`removed ${removed} finished n8n run folder(s) (RA_KEEP_N8N_RUNS=N keeps the newest N)`);
	}
	return finish();
}
/** An n8n a jest run left running (it should never happen: the global teardowns stop them) is stopped here. */
function stopLeftBehind(): void {
	for (const boot of readRows<BootRow>(bootsFile)) {
		if (!boot.pid) continue;
		try {
			process.kill(-boot.pid, 0);
		} catch {
			continue;
		}
		say(`n8n ${boot.folder} (pid ${boot.pid}) was left running: stopping it`);
		try {
			process.kill(-boot.pid, 'SIGKILL');
		} catch {
			/* gone meanwhile */
		}
	}
}

/** The closing table (scripts/test-all-table.ts), then the run's temporary folder removed. */
function finish(): number {
	const code = printTable({ done, timingsFile, bootsFile, started, machineAtStart });
	rmSync(work, { recursive: true, force: true });
	return code;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`[npm test] ${error instanceof Error ? error.stack : String(error)}\n`);
		process.exit(1);
	},
);
