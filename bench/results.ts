/** What one run of `npm run bench` measured (bench/results.json), read back by `--render`. */
import type { MachineInfo } from './lib/machine';
import type { B1Floor, B1Run } from './suites/b1';
import type { B2Result } from './suites/b2';
import type { B3Result } from './suites/b3';
import type { B4Result } from './suites/b4';
import type { B5Results } from './suites/b5';
import type { B6Results } from './suites/b6';

export interface BenchResults {
	command: string;
	quick: boolean;
	machine: MachineInfo;
	settings: { latencyMs: number; concurrency: number; workerDelayMs: number; sizes: number[]; b2Files: number; b5Deliveries: number };
	phases: Array<{ name: string; seconds: number; loadAfter: number[] }>;
	b1?: { runs: B1Run[]; floors: B1Floor[] };
	b2?: B2Result[];
	b3?: B3Result;
	b4?: B4Result[];
	b5?: B5Results;
	b6?: B6Results;
	totalSeconds?: number;
	loadAverageAtEnd?: number[];
}
