/**
 * The sandbox as a child process for the benchmarks (scripts/sandbox-process.ts with `--worker-delay-ms W`), its
 * request log (one line per request: ISO time, method, path, status, elapsed) written to a file so that phases can
 * be timed from the server's side.
 */
import { readFileSync } from 'node:fs';

import { startSandboxProcess, type SandboxProcess } from '../../scripts/sandbox-process';

export interface BenchSandbox extends SandboxProcess {
	logFile: string;
}

export interface Workspace {
	workspaceId: string;
	apiKey: string;
	webhookSecret: string;
	jobDescriptionId: string;
}

export async function startBenchSandbox(opts: {
	logFile: string;
	workerDelayMs: number;
}): Promise<BenchSandbox> {
	const sandbox = await startSandboxProcess({
		logFile: opts.logFile,
		extraArgs: ['--worker-delay-ms', String(opts.workerDelayMs)],
	});
	return { ...sandbox, logFile: opts.logFile };
}

/** A fresh workspace per measured run, so its counters hold exactly that run's requests. */
export async function freshWorkspace(
	sb: BenchSandbox,
	limits: Record<string, unknown> = {},
): Promise<Workspace> {
	const ws = await sb.control.createWorkspace({ analysisAllowance: 100_000 });
	if (Object.keys(limits).length > 0)
		await sb.control.call('PATCH', `/_sandbox/workspaces/${ws.workspaceId}`, limits);
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

export const totalCalls = (byEndpoint: Record<string, number>): number =>
	Object.values(byEndpoint).reduce((a, b) => a + b, 0);
