/**
 * Figures of the fault suite: each test file records what it measured (sandbox counters, mail sink, n8n
 * executions) under its own section, as `<id>.json` in the figures folder of the run. That folder is never in the
 * repository: the global setup makes a temporary one (removed by the global teardown) unless
 * `npm run report:faults` names its own (RA_FAULT_FIGURES_DIR), from which it renders test/faults/REPORT.md.
 *
 * A claim is a row only when its assertion ran: `check` throws when the claim does not hold (so a test cannot record
 * a failed claim and pass), and `fail` records a failed row for a failure a test collects before it throws (cases
 * run side by side). Tests that throw before recording their claims still appear: the run's own jest results
 * (test/faults/jest-results-reporter.js) become failed rows of the section of their file and n8n line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** The environment variable naming the figures folder of the current run. */
export const FIGURES_DIR_VAR = 'RA_FAULT_FIGURES_DIR';

export function figuresDir(): string {
	const dir = process.env[FIGURES_DIR_VAR];
	if (!dir)
		throw new Error(
			`${FIGURES_DIR_VAR} is not set: run the fault suite with npm run test:faults (or npm run report:faults)`,
		);
	return dir;
}

export type FigureValue =
	string | number | boolean | null | FigureValue[] | { [k: string]: FigureValue };

export interface Check {
	/** What was asserted, in words. */
	claim: string;
	/** What was measured. */
	measured: FigureValue;
	/** Whether the assertion held when the figure was recorded. */
	ok: boolean;
	/** The jest test that recorded it (its full name). */
	test?: string;
}

/** The jest project name of an n8n line, as test/n8n-lines.js `projectsFor` names it. */
export function projectOfLine(line: string | undefined): string | undefined {
	return line ? `n8n ${line}.x` : undefined;
}

export interface Section {
	id: string;
	title: string;
	layer: string;
	/** The test file that recorded the section, relative to the repository, and its jest project (n8n line). */
	testFile?: string;
	project?: string;
	durationMs?: number;
	figures: Record<string, FigureValue>;
	/** Tables the report shows in full (one row per case), by name. */
	tables?: Record<string, Array<Record<string, FigureValue>>>;
	checks: Check[];
	notes: string[];
}

/** One section per test file; `check` records a claim and its measured value (and returns ok for expect()). */
export class FigureBook {
	readonly section: Section;
	private readonly started = Date.now();

	constructor(id: string, title: string, layer: string) {
		const state = expect.getState();
		this.section = {
			id,
			title,
			layer,
			testFile: state.testPath ? relative(ROOT, state.testPath) : undefined,
			project: projectOfLine((globalThis as { RA_N8N_LINE?: string }).RA_N8N_LINE),
			figures: {},
			checks: [],
			notes: [],
		};
	}

	set(name: string, value: FigureValue): void {
		this.section.figures[name] = value;
	}

	/** A table the report shows in full, not folded away with the other figures. */
	table(name: string, rows: Array<Record<string, FigureValue>>): void {
		this.section.tables = { ...this.section.tables, [name]: rows };
	}

	/**
	 * Records a claim with what was measured, and asserts it: throws (failing the test) when it does not hold.
	 * Returns true, so a test may still combine it with its own expect().
	 */
	check(claim: string, measured: FigureValue, ok: boolean): boolean {
		this.record(claim, measured, ok);
		if (!ok) throw new Error(`claim did not hold: ${claim} (measured ${JSON.stringify(measured)})`);
		return ok;
	}

	/**
	 * Records a failed row without throwing, for failures a test collects before it fails (cases run side by side):
	 * the test must still fail on them afterwards.
	 */
	fail(claim: string, measured: FigureValue): void {
		this.record(claim, measured, false);
	}

	private record(claim: string, measured: FigureValue, ok: boolean): void {
		const test = expect.getState().currentTestName;
		this.section.checks.push({ claim, measured, ok, ...(test ? { test } : {}) });
	}

	note(text: string): void {
		this.section.notes.push(text);
	}

	/** Writes <figures folder>/<id>.json (call in afterAll; a file that failed half-way still records what it saw). */
	save(): void {
		this.section.durationMs = Date.now() - this.started;
		const dir = figuresDir();
		mkdirSync(dir, { recursive: true });
		writeFileSync(
			join(dir, `${this.section.id}.json`),
			`${JSON.stringify(this.section, null, 2)}\n`,
		);
	}
}
