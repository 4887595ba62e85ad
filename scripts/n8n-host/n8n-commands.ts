/**
 * The other n8n commands (`import:*`, `publish:workflow`, `execute`) run against a user folder.
 */
import { n8nEnv } from './n8n-env';
import type { N8nHost } from './paths';
import { freePort, runRaw, type RunResult } from './process';
import type { CliExecution } from './run-data';

/** Runs `n8n <args>` (import:*, publish:workflow, execute, ...) on a user folder, with a broker port of its own. */
export async function n8nCli(
	host: N8nHost,
	args: string[],
	o: { userFolder: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
	const brokerPort = await freePort();
	const base =
		o.env ?? n8nEnv(host, { userFolder: o.userFolder, port: await freePort(), brokerPort });
	const env = {
		...base,
		N8N_USER_FOLDER: o.userFolder,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_PORT: String(await freePort()),
	};
	return runRaw(host.nodeBin, [host.n8nBin, ...args], {
		cwd: o.userFolder,
		env,
		timeoutMs: o.timeoutMs ?? 180_000,
	});
}

/** Parses n8n's JSON output, which starts at the first line that is `{` (log lines may precede and follow it). */
export function parseCliJson(stdout: string): unknown {
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l.trimEnd() === '{');
	if (start < 0) return undefined;
	for (let end = lines.length; end > start; end--) {
		if (lines[end - 1].trimEnd() !== '}') continue;
		try {
			return JSON.parse(lines.slice(start, end).join('\n'));
		} catch {
			/* try a shorter span */
		}
	}
	return undefined;
}

export async function executeWorkflow(
	host: N8nHost,
	workflowId: string,
	o: { userFolder: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliExecution> {
	const res = await n8nCli(host, ['execute', `--id=${workflowId}`, '--rawOutput'], o);
	return cliExecution(res, parseCliJson(res.stdout) as CliExecution['run']);
}

/**
 * How an `n8n execute` process ended, given the run it printed (read from its output by the caller's format).
 * n8n 1.123 with its default (vm) expression engine sometimes dies of SIGSEGV while `n8n execute` exits, after it
 * printed the finished run: a one-node Set workflow with `{{ 1 + 1 }}` does it too (1 of 2 runs here), with no
 * community package loaded. On a loaded machine V8 itself also aborts in its garbage collector while the process
 * shuts down ("Check failed: SweepingState::kDone", seen on both lines). When the run was printed whole and its
 * status is one n8n sets at the end of a run, it is the result; the crash is recorded, not hidden.
 */
export function cliExecution(res: RunResult, run: CliExecution['run']): CliExecution {
	const finished = run?.status === 'success' || run?.status === 'error';
	const crashedOnExit = res.signal !== null && res.signal !== undefined && !!run && finished;
	const ok = (res.code === 0 || crashedOnExit) && !!run && !run.data?.resultData?.error;
	return {
		ok,
		code: res.code,
		signal: res.signal,
		crashedOnExit,
		run,
		stdout: res.stdout,
		stderr: res.stderr,
	};
}
