/**
 * The closing table of `npm test` and `npm run test:quick` (scripts/test-all.ts): each step's wall time and lane,
 * each test file's (test/timing-reporter.js), each n8n started (RA_N8N_BOOT_LOG), the wall and CPU time (the steps'
 * and the whole machine's), each
 * failed test with the start of its error (last, so a log's tail names what failed), and the line
 * `N passed, N failed`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

import type { BootRecord } from './n8n-host/start';

/** A step that ran: its lane, name, wall time, whether it passed, and the run name of its test-file times. */
export interface Done {
	lane: string;
	name: string;
	seconds: number;
	/** The CPU time (user and system) of the step's processes, when bash's `times` could say. */
	cpu?: number;
	ok: boolean;
	jestRun?: string;
}

export interface TableInput {
	done: Done[];
	/** The JSON lines of test/timing-reporter.js and of the n8n boots. */
	timingsFile: string;
	bootsFile: string;
	/** When the run started (Date.now()). */
	started: number;
	/** The machine's CPU time when the run started (readMachineCpu), for the share of it the whole run kept busy. */
	machineAtStart?: MachineCpu;
}

/** The machine's CPU time since boot, in seconds: busy (every process, the kernel's work included) and in all. */
export interface MachineCpu {
	busy: number;
	total: number;
}

/**
 * The first line of /proc/stat (clock ticks of user, nice, system, idle, iowait, irq, softirq and steal time, at
 * Linux's 100 ticks a second), summed over the cores; undefined where there is no /proc/stat.
 */
export function readMachineCpu(stat = '/proc/stat'): MachineCpu | undefined {
	try {
		const ticks = readFileSync(stat, 'utf8')
			.split('\n')[0]
			.trim()
			.split(/\s+/)
			.slice(1, 9)
			.map(Number);
		if (ticks.length < 5 || ticks.some((t) => !Number.isFinite(t))) return undefined;
		const total = ticks.reduce((a, b) => a + b, 0);
		return { busy: (total - ticks[3] - ticks[4]) / 100, total: total / 100 };
	} catch {
		return undefined;
	}
}

export interface FileRow {
	run: string;
	project: string;
	file: string;
	seconds: number;
	passed: number;
	failed: number;
	skipped: number;
	/** Each failed test's full name and the first lines of its error (test/timing-reporter.js). */
	failures?: Array<{ test: string; error: string }>;
}

/** One line of RA_N8N_BOOT_LOG, as scripts/n8n-host/start.ts writes it. */
export type BootRow = BootRecord;

export const readRows = <T>(file: string): T[] =>
	existsSync(file)
		? readFileSync(file, 'utf8')
				.split('\n')
				.filter((l) => l.trim())
				.map((l) => JSON.parse(l) as T)
		: [];

/**
 * The CPU time a step's processes used (user and system, each process the step waited for and theirs in turn; a
 * process whose parent ended first, such as an n8n task runner stopped with its n8n, is not counted): the second
 * line of bash's `times` (`0m2.5s 0m0.4s`, the children's user and system time), as runStep in scripts/test-all.ts
 * writes it. Undefined when the file is missing or unreadable.
 */
export function readCpuSeconds(file: string): number | undefined {
	if (!existsSync(file)) return undefined;
	const line = readFileSync(file, 'utf8').split('\n')[1] ?? '';
	const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
	if (parts.length !== 2) return undefined;
	return parts.reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

export function formatTime(s: number): string {
	// Rounded to whole seconds first, so 119.6 s reads "2 min 00 s", not "1 min 60 s".
	const whole = Math.round(s);
	const m = Math.floor(whole / 60);
	const rest = whole - m * 60;
	return m > 0 ? `${m} min ${String(rest).padStart(2, '0')} s` : `${rest} s`;
}

function table(head: string[], rows: string[][]): string {
	const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (cells: string[]) =>
		cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
	return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A step that failed without a failed test of its own to say so (a lint, a build, a jest run that could not start). */
const failedWithoutTest = (d: Done, files: FileRow[]) =>
	!d.ok && !files.some((f) => f.run === d.jestRun && f.failed > 0);

/** Each failed test (its run, file, name and the start of its error) and each failed step without a failed test. */
export function failureLines(files: FileRow[], done: Done[]): string[] {
	const lines: string[] = [];
	for (const f of files)
		for (const failure of f.failures ?? []) {
			lines.push(`FAILED ${f.run}: ${f.file} > ${failure.test}`);
			lines.push(...failure.error.split('\n').map((l) => `    ${l}`));
		}
	for (const d of done)
		if (failedWithoutTest(d, files))
			lines.push(`FAILED step ${d.lane}: ${d.name} (its own output above says why)`);
	return lines.length > 0 ? ['', ...lines] : [];
}

/** Prints the closing table of a run and its `N passed, N failed` line; returns the exit code (1 when a step failed). */
export function printTable(run: TableInput): number {
	const { done, timingsFile, bootsFile, started } = run;
	const files = readRows<FileRow>(timingsFile);
	const boots = readRows<BootRow>(bootsFile);
	const out: string[] = ['', '== npm test: where the time went =='];
	out.push(
		'',
		table(
			['step', 'lane', 'wall', 'CPU', 'result'],
			done.map((d) => [
				d.name,
				d.lane,
				formatTime(d.seconds),
				d.cpu === undefined ? '?' : formatTime(d.cpu),
				d.ok ? 'passed' : 'FAILED',
			]),
		),
	);
	const byRun = new Map<string, FileRow[]>();
	for (const f of files) byRun.set(f.run, [...(byRun.get(f.run) ?? []), f]);
	for (const [run, rows] of byRun) {
		out.push(
			'',
			table(
				[`${run}: test file`, 'project', 'wall', 'passed', 'failed'],
				[...rows]
					.sort((a, b) => b.seconds - a.seconds)
					.map((f) => [
						f.file,
						f.project,
						formatTime(f.seconds),
						String(f.passed),
						String(f.failed),
					]),
			),
		);
	}
	if (boots.length > 0) {
		out.push(
			'',
			table(
				['n8n started (user folder)', 'process', 'line', 'ready in'],
				boots.map((b) => [
					b.folder,
					b.label === 'n8n' ? b.command : b.label,
					`${b.line}.x`,
					formatTime(b.seconds),
				]),
			),
			`${boots.length} n8n process(es) started, ${formatTime(boots.reduce((s, b) => s + b.seconds, 0))} until ready in all`,
		);
	}
	const serial = done.reduce((s, d) => s + d.seconds, 0);
	const wall = (Date.now() - started) / 1000;
	out.push(
		'',
		`wall time ${formatTime(wall)} (the steps one after another: ${formatTime(serial)})`,
	);
	const cpu = done.reduce((sum, d) => sum + (d.cpu ?? 0), 0);
	out.push(
		`CPU time of the steps' processes ${formatTime(cpu)}: ${(cpu / wall).toFixed(1)} of ${availableParallelism()} cores busy on average (a run cannot take less than the CPU time over the cores)`,
	);
	const machineNow = readMachineCpu();
	if (run.machineAtStart && machineNow) {
		const busy = machineNow.busy - run.machineAtStart.busy;
		const total = machineNow.total - run.machineAtStart.total;
		out.push(
			`CPU time of the whole machine over the run ${formatTime(busy)}: its cores were busy ${Math.round((100 * busy) / total)}% of the time (/proc/stat: the steps' processes, those that outlive their step, and anything else running)`,
		);
	}
	const passed = files.reduce((s, f) => s + f.passed, 0);
	const failedTests = files.reduce((s, f) => s + f.failed, 0);
	const failedSteps = done.filter((d) => failedWithoutTest(d, files)).length;
	out.push(...failureLines(files, done));
	out.push(`${passed} passed, ${failedTests + failedSteps} failed`);
	process.stdout.write(`${out.join('\n')}\n`);
	return done.every((d) => d.ok) ? 0 : 1;
}
