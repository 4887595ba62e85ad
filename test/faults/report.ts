/**
 * `npm run report:faults [-- <jest arguments>]`: runs the fault suite with its figures in a temporary folder, then
 * renders test/faults/REPORT.md from them and removes the folder. Without arguments the report covers every section
 * (F1 to F10); with a path pattern it covers only the files run. The report names the commit the run checked (and
 * any uncommitted change to it), jest's own totals and its exit code (test/faults/jest-results-reporter.js).
 * Exits with the suite's exit code (a claim that did not hold is still rendered, under Findings). Interrupted, it
 * removes the folder and writes no report.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

import { FIGURES_DIR_VAR } from './figures';
import { REPORT_FILE, writeReport } from './render-report';

const root = resolve(__dirname, '..', '..');

function git(...args: string[]): string {
	return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

/** The commit the run checks, read before it starts; uncommitted changes (the report itself aside) are named. */
const commit = {
	commit: git('rev-parse', 'HEAD'),
	subject: git('log', '-1', '--format=%s'),
	uncommitted: git('status', '--porcelain')
		.split('\n')
		.map((line) => line.slice(3))
		.filter((file) => file !== '' && file !== relative(root, REPORT_FILE)),
};
const dir = mkdtempSync(join(tmpdir(), 'ra-fault-report-'));
const jest = spawn(
	join(root, 'node_modules', '.bin', 'jest'),
	[
		'-c',
		'jest.faults.config.js',
		...process.argv.slice(2),
		// Last: jest's --reporters takes every argument after it as a reporter, path patterns included.
		'--reporters=default',
		`--reporters=${join(__dirname, 'jest-results-reporter.js')}`,
	],
	{
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, [FIGURES_DIR_VAR]: dir },
	},
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.on(signal, () => {
		jest.kill(signal);
		rmSync(dir, { recursive: true, force: true });
		process.exit(130);
	});
}
jest.on('close', (status) => {
	const code = status ?? 1;
	try {
		const sections = writeReport(dir, { ...commit, exitCode: code });
		process.stdout.write(
			`${relative(root, REPORT_FILE)} written from ${sections} section(s); the suite exited with ${code}\n`,
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	process.exit(code);
});
