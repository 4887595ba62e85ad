/**
 * The sandbox as a child process for the benchmarks: `tsx sandbox/cli.ts --port 0 --worker-delay-ms W`, its
 * request log (one line per request: ISO time, method, path, status, elapsed) written to a file so that phases can
 * be timed from the server's side, and the control client of scripts/sandbox-process.ts.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { REPO_ROOT, settlesWithin } from '../../scripts/n8n-host';
import { SandboxControl, type SandboxSeed } from '../../scripts/sandbox-process';

export interface BenchSandbox {
	seed: SandboxSeed;
	baseUrl: string;
	control: SandboxControl;
	logFile: string;
	pid: number;
	stop(): Promise<void>;
}

export interface Workspace {
	workspaceId: string;
	apiKey: string;
	webhookSecret: string;
	jobDescriptionId: string;
}

export async function startBenchSandbox(opts: { logFile: string; workerDelayMs: number }): Promise<BenchSandbox> {
	const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const child = spawn(
		tsx,
		[join(REPO_ROOT, 'sandbox', 'cli.ts'), '--port', '0', '--worker-delay-ms', String(opts.workerDelayMs)],
		{ cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
	);
	const out = createWriteStream(opts.logFile, { flags: 'a' });
	child.stderr!.on('data', (c: Buffer) => out.write(c));
	const lines = createInterface({ input: child.stdout! });
	const seed = await new Promise<SandboxSeed>((resolveSeed, reject) => {
		const timer = setTimeout(() => reject(new Error('sandbox printed no seed line within 60 s')), 60_000);
		let first = true;
		lines.on('line', (line) => {
			if (first) {
				first = false;
				clearTimeout(timer);
				try {
					resolveSeed(JSON.parse(line) as SandboxSeed);
				} catch {
					reject(new Error(`sandbox's first line is not the seed JSON: ${line}`));
				}
				return;
			}
			out.write(line + '\n');
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`sandbox exited (${code}) before printing its seed`));
		});
	});
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	let stopped = false;
	return {
		seed,
		baseUrl: seed.baseUrl,
		control: new SandboxControl(seed.baseUrl),
		logFile: opts.logFile,
		pid: child.pid!,
		async stop() {
			if (stopped) return;
			stopped = true;
			if (child.exitCode === null && child.signalCode === null) {
				try {
					process.kill(-child.pid!, 'SIGTERM');
				} catch {
					/* gone */
				}
				if (!(await settlesWithin(exited, 5000))) {
					try {
						process.kill(-child.pid!, 'SIGKILL');
					} catch {
						/* gone */
					}
					await exited;
				}
			}
			out.end();
		},
	};
}

/** A fresh workspace per measured run, so its counters hold exactly that run's requests. */
export async function freshWorkspace(sb: BenchSandbox, limits: Record<string, unknown> = {}): Promise<Workspace> {
	const ws = await sb.control.createWorkspace({ analysisAllowance: 100_000 });
	if (Object.keys(limits).length > 0) await sb.control.call('PATCH', `/_sandbox/workspaces/${ws.workspaceId}`, limits);
	return ws;
}

export interface Counters {
	storagePuts: number;
	attemptsCreated: number;
	reportsCreated: number;
	storageAuthorizationHeaders: number;
	requests: Record<string, number>;
	[k: string]: unknown;
}

export async function counters(sb: BenchSandbox, workspaceId: string): Promise<Counters> {
	return (await sb.control.counters(workspaceId)) as Counters;
}

/** Sets the injected latency of every /api/v1 and storage call (0 = none). */
export async function setLatency(sb: BenchSandbox, latencyMs: number): Promise<void> {
	if (latencyMs > 0) await sb.control.call('PUT', '/_sandbox/faults', { latencyMs });
	else await sb.control.call('DELETE', '/_sandbox/faults');
}

export interface LogLine {
	at: number;
	method: string;
	path: string;
	status: number;
}

/** Request log lines written since `fromOffset` bytes (the sandbox logs `ISO METHOD PATH STATUS ELAPSEDms`). */
export function readLog(sb: BenchSandbox, fromOffset = 0): { lines: LogLine[]; size: number } {
	const text = readFileSync(sb.logFile, 'utf8');
	const lines: LogLine[] = [];
	for (const raw of text.slice(fromOffset).split('\n')) {
		const m = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) (\S+) (\S+) (\d{3}) /.exec(raw);
		if (m) lines.push({ at: Date.parse(m[1]), method: m[2], path: m[3], status: Number(m[4]) });
	}
	return { lines, size: text.length };
}

export const logSize = (sb: BenchSandbox): number => readFileSync(sb.logFile, 'utf8').length;

/** All API calls of a counters snapshot minus an earlier one (by route), plus storage PUTs. */
export function callsByEndpoint(after: Counters, before?: Counters): Record<string, number> {
	const result: Record<string, number> = {};
	for (const [route, n] of Object.entries(after.requests ?? {})) {
		const d = n - (before?.requests?.[route] ?? 0);
		if (d > 0) result[route] = d;
	}
	const puts = after.storagePuts - (before?.storagePuts ?? 0);
	if (puts > 0) result['PUT /_storage/uploads/{reportId}'] = puts;
	return result;
}

export const totalCalls = (byEndpoint: Record<string, number>): number => Object.values(byEndpoint).reduce((a, b) => a + b, 0);
