/**
 * Figures of the fault suite: each test file records what it measured (sandbox counters, mail sink, n8n
 * executions) under its own section; `render-report.ts` turns test/faults/out/*.json into REPORT.md.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export const OUT_DIR = join(__dirname, 'out');

export type FigureValue = string | number | boolean | null | FigureValue[] | { [k: string]: FigureValue };

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

	check(claim: string, measured: FigureValue, ok: boolean): boolean {
		this.section.checks.push({ claim, measured, ok });
		return ok;
	}

	note(text: string): void {
		this.section.notes.push(text);
	}

	/** Writes out/<id>.json (call in afterAll; a file that failed half-way still records what it saw). */
	save(): void {
		this.section.durationMs = Date.now() - this.started;
		mkdirSync(OUT_DIR, { recursive: true });
		writeFileSync(join(OUT_DIR, `${this.section.id}.json`), `${JSON.stringify(this.section, null, 2)}\n`);
	}
}

export function readSection(id: string): Section | undefined {
	const file = join(OUT_DIR, `${id}.json`);
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Section) : undefined;
}
