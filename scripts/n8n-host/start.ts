/**
 * Starting `n8n start` on loopback and waiting until it is ready.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { N8nInstance } from './instance';
import { ensureN8n } from './n8n-install';
import { n8nEnv } from './n8n-env';
import { defaultLog, delay, freePort, killGroupOnExit, type Logger } from './process';

export interface StartOptions {
	userFolder: string;
	port?: number;
	brokerPort?: number;
	env?: NodeJS.ProcessEnv;
	log?: Logger;
	/** Milliseconds to wait for /healthz/readiness (default 180 s: the first start runs migrations). */
	readyTimeoutMs?: number;
}

export async function startN8n(options: StartOptions): Promise<N8nInstance> {
	// n8n resolves a relative N8N_USER_FOLDER against its own cwd: always hand it an absolute path.
	const opts = { ...options, userFolder: resolve(options.userFolder) };
	const log = opts.log ?? defaultLog;
	const host = await ensureN8n(log);
	const port = opts.port ?? (await freePort());
	let brokerPort = opts.brokerPort ?? (await freePort());
	while (brokerPort === port) brokerPort = await freePort();
	const env = n8nEnv(host, { userFolder: opts.userFolder, port, brokerPort, env: opts.env });
	const logFile = join(opts.userFolder, `n8n-${port}.log`);
	const out = openSync(logFile, 'a');
	log(`starting n8n on http://127.0.0.1:${port} (task broker ${brokerPort}); log: ${logFile}`);
	const child = spawn(host.nodeBin, [host.n8nBin, 'start'], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', out, out],
		detached: true, // its own process group, so stop() ends n8n and its task runner together
	});
	closeSync(out);
	killGroupOnExit(child);
	const instance = new N8nInstance(host, child, opts.userFolder, port, brokerPort, logFile, env, log);
	const timeout = opts.readyTimeoutMs ?? 180_000;
	const started = Date.now();
	let lastBeat = started;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(`n8n exited (${child.exitCode ?? child.signalCode}) before it was ready\n${instance.logTail()}`);
		}
		try {
			const res = await fetch(`${instance.baseUrl}/healthz/readiness`);
			await res.arrayBuffer();
			if (res.status === 200) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() - started > timeout) {
			await instance.stop();
			throw new Error(`n8n not ready after ${timeout} ms\n${instance.logTail()}`);
		}
		if (Date.now() - lastBeat > 15_000) {
			lastBeat = Date.now();
			log(`waiting for n8n to be ready … ${Math.round((Date.now() - started) / 1000)} s`);
		}
		await delay(500);
	}
	log(`n8n ready in ${Math.round((Date.now() - started) / 1000)} s`);
	return instance;
}
