/**
 * Figures of the fault suite: each test file records what it measured (sandbox counters, mail sink, n8n
 * executions) under its own section, as `<id>.json` in the figures folder of the run. That folder is never in the
 * repository: the global setup makes a temporary one (removed by the global teardown) unless
 * `npm run report:faults` names its own (RA_FAULT_FIGURES_DIR), from which it renders test/faults/REPORT.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
}

export interface Section {
	id: string;
	title: string;
	layer: string;
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
		this.section = { id, title, layer, figures: {}, checks: [], notes: [] };
	}

	set(name: string, value: FigureValue): void {
		this.section.figures[name] = value;
	}

	/** A table the report shows in full, not folded away with the other figures. */
	table(name: string, rows: Array<Record<string, FigureValue>>): void {
		this.section.tables = { ...this.section.tables, [name]: rows };
	}

	check(claim: string, measured: FigureValue, ok: boolean): boolean {
		this.section.checks.push({ claim, measured, ok });
		return ok;
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
