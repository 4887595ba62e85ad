/**
 * Writes test/mutation/REPORT.md from the results `npm run test:mutation` left in reports/mutation/ (Stryker's
 * JSON report and run record of each group): the commit, the command, the wall time, the score per module and the
 * surviving mutants, with the reason a survivor stays where test/mutation/kept.json gives one.
 * Run alone (`npm run report:mutation`) it re-renders from the last results without mutating anything.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GROUPS } = require('./groups.js') as {
	GROUPS: Array<{ name: string; mutate: string[]; tests: string[] }>;
};

const root = join(__dirname, '..', '..');
const out = join(root, 'reports', 'mutation');

/** Whether the mutated files still read as they did at the run's commit, so its score holds for the code rendered. */
function sinceThen(commit: string, files: string[]): string {
	const head = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], { cwd: root })
		.toString()
		.trim();
	try {
		execFileSync('git', ['diff', '--quiet', commit, '--', ...files], { cwd: root });
		return ` (unchanged in the working tree at ${head})`;
	} catch {
		return ` (CHANGED since: the score is that commit's, not ${head}'s)`;
	}
}

interface Mutant {
	id: string;
	mutatorName: string;
	replacement?: string;
	status: string;
	location: { start: { line: number; column: number } };
}
interface StrykerReport {
	files: Record<string, { mutants: Mutant[] }>;
}
interface RunRecord {
	group: string;
	commit: string;
	uncommittedChanges: boolean;
	startedAt: string;
	wallSeconds: number;
	cores: number;
	concurrency?: number;
	exitCode: number;
	tests: string[];
	/** Whether no incremental file existed before the run, so every mutant was tested (absent: not recorded). */
	fresh?: boolean;
	lastFresh?: { commit: string; startedAt: string; wallSeconds: number };
}

const slugOf = (name: string): string => name.replace(/\W+/g, '-');

/** Mutants that compile and ran (or would have): what the score divides by. */
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

interface Tally {
	valid: number;
	killed: number;
	timedOut: number;
	survived: number;
	noCoverage: number;
	compileErrors: number;
	other: number;
}

function tally(mutants: Mutant[]): Tally {
	const t: Tally = {
		valid: 0,
		killed: 0,
		timedOut: 0,
		survived: 0,
		noCoverage: 0,
		compileErrors: 0,
		other: 0,
	};
	for (const m of mutants) {
		if (VALID.has(m.status)) t.valid++;
		if (m.status === 'Killed') t.killed++;
		else if (m.status === 'Timeout') t.timedOut++;
		else if (m.status === 'Survived') t.survived++;
		else if (m.status === 'NoCoverage') t.noCoverage++;
		else if (m.status === 'CompileError') t.compileErrors++;
		else t.other++;
	}
	return t;
}

const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const score = (t: Tally): string => pct(t.killed + t.timedOut, t.valid);
const minutes = (s: number): string =>
	`${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;

/** The whole group's time: its fresh run's, or the last fresh one an incremental run carried over. */
function freshSeconds(run: RunRecord): number | undefined {
	return run.fresh ? run.wallSeconds : run.lastFresh?.wallSeconds;
}

function wallTime(run: RunRecord): string {
	if (run.fresh) return `${minutes(run.wallSeconds)} (fresh)`;
	if (run.lastFresh)
		return `${minutes(run.lastFresh.wallSeconds)} (fresh, at ${run.lastFresh.commit.slice(0, 10)}); this incremental run ${minutes(run.wallSeconds)}`;
	if (run.fresh === false)
		return `${minutes(run.wallSeconds)} (incremental; no fresh run recorded)`;
	return `${minutes(run.wallSeconds)} (not recorded whether fresh)`;
}

function keptReasons(): Record<string, string> {
	const file = join(__dirname, 'kept.json');
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
}

export function renderMutationReport(): string {
	const kept = keptReasons();
	const lines: string[] = [
		'# Mutation testing report',
		'',
		'Written by `npm run test:mutation` (StrykerJS with its jest runner and TypeScript checker, stryker.config.mjs;',
		'`npm run report:mutation` re-renders it from the last results). Never written by a test.',
		'',
		'Score = (killed + timed out) ÷ mutants that compile (killed, timed out, survived, no coverage); mutants the',
		'TypeScript checker rejects against the product\'s tsconfig.json are not counted. "Killed only" leaves the',
		'timed-out ones out.',
		'',
		'| Module | Commit | Wall time | Mutants that compile | Killed | Timed out | Survived | No coverage | Score | Killed only |',
		'|---|---|---|---|---|---|---|---|---|---|',
	];
	const all: Mutant[] = [];
	const survivors: string[] = [];
	const pending: string[] = [];
	const runs: RunRecord[] = [];
	const mutated: string[] = [];
	for (const group of GROUPS) {
		const slug = slugOf(group.name);
		const reportFile = join(out, `${slug}.json`);
		const runFile = join(out, `${slug}.run.json`);
		if (!existsSync(reportFile) || !existsSync(runFile)) {
			pending.push(group.name);
			continue;
		}
		const run = JSON.parse(readFileSync(runFile, 'utf8')) as RunRecord;
		const report = JSON.parse(readFileSync(reportFile, 'utf8')) as StrykerReport;
		if (run.exitCode !== 0) {
			pending.push(`${group.name} (its last run ended with exit code ${run.exitCode})`);
			continue;
		}
		runs.push(run);
		const mutants = Object.values(report.files).flatMap((f) => f.mutants);
		all.push(...mutants);
		const t = tally(mutants);
		lines.push(
			`| ${group.name} | ${run.commit.slice(0, 10)}${run.uncommittedChanges ? ' (+ uncommitted)' : ''} | ${wallTime(run)} | ${t.valid} | ${t.killed} | ${t.timedOut} | ${t.survived} | ${t.noCoverage} | ${score(t)} | ${pct(t.killed, t.valid)} |`,
		);
		const files = Object.keys(report.files)
			.map((f) => relative(root, join(root, f)))
			.sort();
		mutated.push(
			`- ${group.name}, at commit ${run.commit}${run.uncommittedChanges ? ' with uncommitted changes' : ''}: ${files.join(', ')}${sinceThen(run.commit, files)}`,
		);
		for (const [file, { mutants: ms }] of Object.entries(report.files).sort()) {
			const rel = relative(root, join(root, file));
			for (const m of ms.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
				const at = `${rel}:${m.location.start.line}`;
				const what = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 90).replace(/\|/g, '\\|');
				const why = kept[`${at} ${m.mutatorName}`] ?? '';
				survivors.push(
					`| ${at}:${m.location.start.column} | ${m.mutatorName} | \`${what}\` | ${m.status} | ${why} |`,
				);
			}
		}
	}
	const total = tally(all);
	lines.push(
		`| **all finished modules** | | ${runs.every((r) => freshSeconds(r) !== undefined) ? `${minutes(runs.reduce((sum, r) => sum + (freshSeconds(r) ?? 0), 0))} (fresh runs)` : 'not every fresh run recorded'} | ${total.valid} | ${total.killed} | ${total.timedOut} | ${total.survived} | ${total.noCoverage} | **${score(total)}** | ${pct(total.killed, total.valid)} |`,
		'',
		`Compile errors (not counted): ${total.compileErrors}. Runtime errors or ignored (not counted): ${total.other}.`,
		'',
		`Command: \`npm run test:mutation\` (groups one after the other; \`npm run test:mutation -- <group>\` for one).`,
		`Machine: ${runs[0]?.cores ?? 2} cores, shared with other jobs while it ran. Stryker concurrency per group: ${runs.map((r) => `${r.group} ${r.concurrency ?? 'not recorded'}`).join(', ')}. Wall time is per group, from the start of Stryker to its end (${runs.map((r) => `${r.group} started ${r.startedAt}`).join('; ')}).`,
		'',
		"Wall time is that of a fresh run, one that tested every mutant of the group: reports/mutation/<group>.incremental.json was deleted before it. Stryker runs incrementally when that file exists (it re-tests only the mutants whose code or tests changed and reuses the other results); where the row's result comes from such a later run, the cell gives the last fresh run's time and commit, then the incremental run's.",
		'',
		'What each group mutated (the files of its Stryker report) and at which commit:',
		'',
		...mutated,
		'',
		'Tests run per module (test/mutation/groups.js):',
		'',
		...GROUPS.map((g) => `- ${g.name}: ${g.tests.join(', ')}`),
		'',
	);
	if (pending.length)
		lines.push(`No finished run, so not in the table: ${pending.join('; ')}.`, '');
	lines.push(
		'## Surviving mutants',
		'',
		'A survivor changes the code without failing a test. Where it stays, the last column says why (test/mutation/kept.json).',
		'',
		'| Where | Mutator | Replacement | Status | Why it stays, or what killed it since |',
		'|---|---|---|---|---|',
		...survivors,
		'',
	);
	const text = lines.join('\n');
	writeFileSync(join(__dirname, 'REPORT.md'), text);
	return text;
}

if (require.main === module) renderMutationReport();
