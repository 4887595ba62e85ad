/** What one run of `npm run bench` measured (bench/results.json), read back by `--render`. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { MachineInfo } from './lib/machine';
import type { B1Floor, B1Run } from './suites/b1';
import type { B2Result } from './suites/b2';
import type { B3Result } from './suites/b3';
import type { B4Result } from './suites/b4';
import type { B5Results } from './suites/b5';
import type { B5FairResults } from './suites/b5fair';
import type { B5IdsResults } from './suites/b5ids';
import type { B5PgResults } from './suites/b5pg';
import type { B5ProfileResults } from './suites/b5profile';
import type { B6Results } from './suites/b6';
import type { B7Results } from './suites/b7';
import type { BeforeAfterResults } from './suites/beforeAfter';

/** The run that measured a section copied in with `--render --add-from`. */
export interface SectionSource {
	command: string;
	startedAt?: string;
	gitCommit?: string;
	load?: number[];
	loadAtEnd?: number[];
}

export interface BenchResults {
	command: string;
	quick: boolean;
	machine: MachineInfo;
	settings: {
		latencyMs: number;
		concurrency: number;
		workerDelayMs: number;
		sizes: number[];
		b2Files: number;
		b5Deliveries: number;
	};
	phases: Array<{ name: string; seconds: number; loadAfter: number[] }>;
	b1?: { runs: B1Run[]; floors: B1Floor[] };
	b2?: B2Result[];
	b3?: B3Result;
	b4?: B4Result[];
	b5?: B5Results;
	b6?: B6Results;
	/** B5 fair: our trigger and n8n's bare Webhook node, each under n8n's default and with lazy isolates. */
	b5Fair?: B5FairResults & { source?: SectionSource };
	/** The trigger's acknowledgement at 1,000 and 10,000 ids kept, side by side in one run. */
	b5Ids?: B5IdsResults & { source?: SectionSource };
	/** The PostgreSQL remedy's cost per delivery at 1,000 and 30 days' worth of ids. */
	b5Pg?: B5PgResults & { source?: SectionSource };
	/** Where a webhook acknowledgement's time goes: B5's load under a CPU profile of n8n. */
	b5Profile?: B5ProfileResults;
	/** B1 and B6 of a baseline build and of this checkout, alternating n8n boots in one run. */
	beforeAfter?: BeforeAfterResults;
	/** A backlog of thousands of resumes in one execution. */
	b7?: B7Results;
	/** Set while the run is under way: the suites in `phases` are measured, the others were not reached. */
	partial?: boolean;
	totalSeconds?: number;
	loadAverageAtEnd?: number[];
}

/**
 * Writes results.json into each folder, creating the folder first. The run calls it as each suite ends, so a
 * failure later (or a folder that did not exist) loses nothing already measured. Written to a temporary file and
 * renamed, so a results.json is never half written.
 */
export function saveResults(results: BenchResults, dirs: string[]): void {
	const text = JSON.stringify(results, null, 2);
	for (const dir of new Set(dirs)) {
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, 'results.json.tmp'), text);
		renameSync(join(dir, 'results.json.tmp'), join(dir, 'results.json'));
	}
}
