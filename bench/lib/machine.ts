/** What the benchmark ran on: recorded at the start of a run (the machine is shared and noisy). */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem, freemem, release } from 'node:os';

import type { N8nHost } from '../../scripts/n8n-host';

export interface MachineInfo {
	startedAt: string;
	nproc: number;
	cpuModel: string;
	memTotalMb: number;
	memFreeMb: number;
	loadAverageAtStart: number[];
	kernel: string;
	benchNode: string;
	n8nNode?: string;
	n8nVersion?: string;
	/** The commit the package was built from, and whether the working tree had changes in nodes/ or credentials/. */
	gitCommit?: string;
	gitDirtyShipped?: boolean;
}

export function machineInfo(): MachineInfo {
	let nproc = cpus().length;
	try {
		nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || nproc;
	} catch {
		/* os.cpus() is the fallback */
	}
	return {
		startedAt: new Date().toISOString(),
		nproc,
		cpuModel: cpus()[0]?.model ?? 'unknown',
		memTotalMb: Math.round(totalmem() / 2 ** 20),
		memFreeMb: Math.round(freemem() / 2 ** 20),
		loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
		kernel: release(),
		benchNode: process.version,
		...gitState(),
	};
}

function gitState(): { gitCommit?: string; gitDirtyShipped?: boolean } {
	try {
		const gitCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			encoding: 'utf8',
		}).trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--', 'nodes', 'credentials'], {
			encoding: 'utf8',
		}).trim();
		return { gitCommit, gitDirtyShipped: dirty.length > 0 };
	} catch {
		return {};
	}
}

export function n8nVersions(host: N8nHost): { n8nNode: string; n8nVersion: string } {
	const n8nNode = execFileSync(host.nodeBin, ['--version'], { encoding: 'utf8' }).trim();
	const n8nVersion = execFileSync(host.nodeBin, [host.n8nBin, '--version'], {
		encoding: 'utf8',
		cwd: host.hostDir,
	}).trim();
	return { n8nNode, n8nVersion };
}

export const currentLoad = (): number[] => loadavg().map((l) => Math.round(l * 100) / 100);
