/**
 * Starting `n8n start` (or, in queue mode, `n8n worker` / `n8n webhook`) on loopback and waiting until it is ready.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { N8nInstance } from './instance';
import { ensureN8n } from './n8n-install';
import { n8nEnv } from './n8n-env';
import { defaultLog, delay, freePort, killGroupOnExit, listensOn, type Logger } from './process';
import type { N8nLine } from './versions';

export interface StartOptions {
	userFolder: string;
	port?: number;
	brokerPort?: number;
	env?: NodeJS.ProcessEnv;
	log?: Logger;
	/** Milliseconds to wait for /healthz/readiness and /rest/settings (default 180 s: the first start runs migrations). */
	readyTimeoutMs?: number;
	/** The n8n command (default `start`); `port` is then a worker's health port or a webhook process's port. */
	command?: 'start' | 'worker' | 'webhook';
	/** Name in the log file and messages (default `n8n`). */
	label?: string;
	/** Which n8n: `2` (2.x, the default) or `1` (1.x). */
	line?: N8nLine;
}

export async function startN8n(options: StartOptions): Promise<N8nInstance> {
	// Ports are picked free and only then bound by n8n, so another process can take one in between: a start that
	// lost its port is started again on fresh ones (a port the caller chose is kept, and its loss is an error).
	for (let attempt = 1; ; attempt++) {
		try {
			return await startOnce(options);
		} catch (error) {
			if (!(error instanceof PortTaken) || options.port !== undefined || attempt === 3) throw error;
			(options.log ?? defaultLog)(`${error.message}; starting again on other ports`);
		}
	}
}

class PortTaken extends Error {}

async function startOnce(options: StartOptions): Promise<N8nInstance> {
	// n8n resolves a relative N8N_USER_FOLDER against its own cwd: always hand it an absolute path.
	const opts = { ...options, userFolder: resolve(options.userFolder) };
	const log = opts.log ?? defaultLog;
	const host = await ensureN8n(log, opts.line ?? '2');
	const port = opts.port ?? (await freePort());
	let brokerPort = opts.brokerPort ?? (await freePort());
	while (brokerPort === port) brokerPort = await freePort();
	const env = n8nEnv(host, { userFolder: opts.userFolder, port, brokerPort, env: opts.env });
	const command = opts.command ?? 'start';
	const label = opts.label ?? 'n8n';
	const logFile = join(
		opts.userFolder,
		label === 'n8n' ? `n8n-${port}.log` : `n8n-${label}-${port}.log`,
	);
	const out = openSync(logFile, 'a');
	log(
		`starting ${label} ${host.version}${command === 'start' ? '' : ` (n8n ${command})`} on http://127.0.0.1:${port} (task broker ${brokerPort}); log: ${logFile}`,
	);
	const child = spawn(host.nodeBin, [host.n8nBin, command], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', out, out],
		detached: true, // its own process group, so stop() ends n8n and its task runner together
	});
	closeSync(out);
	killGroupOnExit(child);
	const instance = new N8nInstance(
		host,
		child,
		opts.userFolder,
		port,
		brokerPort,
		logFile,
		env,
		log,
	);
	const timeout = opts.readyTimeoutMs ?? 180_000;
	const started = Date.now();
	let lastBeat = started;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null) {
			if (/port \d+ is already in use/.test(instance.logTail(20)))
				throw new PortTaken(
					`${label}'s port ${port} or ${brokerPort} was taken by another process`,
				);
			throw new Error(
				`${label} exited (${child.exitCode ?? child.signalCode}) before it was ready\n${instance.logTail()}`,
			);
		}
		try {
			const res = await fetch(`${instance.baseUrl}/healthz/readiness`);
			await res.arrayBuffer();
			// n8n 1.x reports ready once its database is migrated, before its REST routes exist: wait for those too
			// (only the main serves them; a worker or a webhook process is ready with its health check).
			// Another n8n that took the port answers ready too: only an answer from this child counts.
			const ours = res.status === 200 && listensOn(child.pid!, port);
			if (ours && command !== 'start') break;
			if (ours) {
				const settings = await fetch(`${instance.baseUrl}/rest/settings`);
				await settings.arrayBuffer();
				if (settings.status === 200) break;
			}
		} catch {
			/* not listening yet */
		}
		if (Date.now() - started > timeout) {
			await instance.stop();
			throw new Error(`${label} not ready after ${timeout} ms\n${instance.logTail()}`);
		}
		if (Date.now() - lastBeat > 15_000) {
			lastBeat = Date.now();
			log(`waiting for ${label} to be ready … ${Math.round((Date.now() - started) / 1000)} s`);
		}
		await delay(500);
	}
	log(`${label} ready in ${Math.round((Date.now() - started) / 1000)} s`);
	recordBoot({
		line: host.line,
		command,
		label,
		folder: basename(opts.userFolder),
		pid: child.pid,
		seconds: (Date.now() - started) / 1000,
	});
	return instance;
}

/**
 * RA_N8N_BOOT_LOG (set by scripts/test-all.ts): a file that gets one JSON line per n8n process started and ready,
 * for the closing table of `npm test` (and the pids it stops if a jest run left one behind).
 */
export interface BootRecord {
	line: string;
	command: string;
	label: string;
	folder: string;
	pid?: number;
	seconds: number;
}

function recordBoot(boot: BootRecord): void {
	const file = process.env.RA_N8N_BOOT_LOG;
	if (!file) return;
	appendFileSync(file, `${JSON.stringify({ ...boot, at: new Date().toISOString() })}\n`);
}
