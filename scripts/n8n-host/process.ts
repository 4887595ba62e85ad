/**
 * Child processes and small async helpers: running a command, a cross-process lock, free ports, delays.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export type Logger = (line: string) => void;
export const defaultLog: Logger = (line) => process.stderr.write(`[n8n-host] ${line}\n`);

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	log?: Logger;
	/** Label for the heartbeat line printed while a long step runs. */
	progress?: string;
	/** Echo each output line through `log` (default: only on failure). */
	echo?: boolean;
	timeoutMs?: number;
	stdin?: string;
}

export interface RunResult {
	code: number | null;
	/** The signal that ended the process, when one did. */
	signal?: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Runs a command, collecting output; rejects on a non-zero exit with the tail of its output. */
export async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
	const result = await runRaw(cmd, args, opts);
	if (result.code !== 0) {
		const tail = (result.stdout + '\n' + result.stderr).trim().split('\n').slice(-40).join('\n');
		throw new Error(`${cmd} ${args.join(' ')} exited with ${result.code}\n${tail}`);
	}
	return result;
}

export function runRaw(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
	const log = opts.log ?? defaultLog;
	return new Promise((resolvePromise, reject) => {
		const spawnOpts: SpawnOptions = {
			cwd: opts.cwd,
			env: opts.env ?? process.env,
			stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
		};
		const child = spawn(cmd, args, spawnOpts);
		let stdout = '';
		let stderr = '';
		const started = Date.now();
		const beat = opts.progress
			? setInterval(
					() => log(`${opts.progress} … ${Math.round((Date.now() - started) / 1000)} s`),
					15000,
				)
			: undefined;
		const timer = opts.timeoutMs
			? setTimeout(() => {
					log(`${cmd} ${args.join(' ')}: timed out after ${opts.timeoutMs} ms, stopping it`);
					child.kill('SIGKILL');
				}, opts.timeoutMs)
			: undefined;
		const onLine = (chunk: Buffer, which: 'out' | 'err') => {
			const text = chunk.toString('utf8');
			if (which === 'out') stdout += text;
			else stderr += text;
			if (opts.echo) for (const line of text.split('\n')) if (line.trim()) log(`  ${line}`);
		};
		child.stdout!.on('data', (c: Buffer) => onLine(c, 'out'));
		child.stderr!.on('data', (c: Buffer) => onLine(c, 'err'));
		if (opts.stdin !== undefined) {
			child.stdin!.on('error', () => undefined); // a child that exits early must not crash us (EPIPE)
			child.stdin!.end(opts.stdin);
		}
		child.on('error', (err) => {
			if (beat) clearInterval(beat);
			if (timer) clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			if (beat) clearInterval(beat);
			if (timer) clearTimeout(timer);
			resolvePromise({ code, signal, stdout, stderr });
		});
	});
}

export function sha256(...parts: Array<string | Buffer>): string {
	const h = createHash('sha256');
	for (const p of parts) h.update(p);
	return h.digest('hex');
}

/** A cross-process lock (atomic mkdir) so that two runs never install into the cache at once. */
export async function withLock<T>(dir: string, log: Logger, fn: () => Promise<T>): Promise<T> {
	const lock = `${dir}.lock`;
	mkdirSync(join(lock, '..'), { recursive: true });
	const started = Date.now();
	let told = false;
	for (;;) {
		try {
			mkdirSync(lock);
			writeFileSync(join(lock, 'pid'), String(process.pid));
			break;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
			// A lock left by a process that no longer exists is stale.
			let owner = 0;
			try {
				owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
			} catch {
				/* being written */
			}
			if (owner && !pidAlive(owner)) {
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (!told) {
				log(`waiting for another process (pid ${owner || '?'}) to finish installing into ${dir}`);
				told = true;
			}
			if (Date.now() - started > 20 * 60_000)
				throw new Error(`lock ${lock} held for over 20 minutes`);
			await delay(2000);
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM';
	}
}

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves true when `p` settles within `ms`, false otherwise; leaves no timer behind. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<boolean>((r) => {
		timer = setTimeout(() => r(false), ms);
	});
	try {
		return await Promise.race([p.then(() => true), timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/** The environment of this process without the npm variables of a calling `npm run`. */
export function cleanNpmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const key of Object.keys(env))
		if (/^npm_(config|package|lifecycle)_/i.test(key)) delete env[key];
	return env;
}

export async function freePort(): Promise<number> {
	return new Promise((resolvePort, reject) => {
		const srv = createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const address = srv.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			srv.close(() => resolvePort(port));
		});
	});
}

/** Whether process `pid` holds the socket listening on `port` (Linux: /proc/net/tcp* and the process's descriptors). */
export function listensOn(pid: number, port: number): boolean {
	const inodes = new Set<string>();
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let lines: string[] = [];
		try {
			lines = readFileSync(table, 'utf8').trim().split('\n').slice(1);
		} catch {
			continue;
		}
		for (const line of lines) {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; state 0A is LISTEN
			const f = line.trim().split(/\s+/);
			if (f[3] === '0A' && parseInt(f[1].split(':')[1], 16) === port) inodes.add(f[9]);
		}
	}
	let fds: string[];
	try {
		fds = readdirSync(`/proc/${pid}/fd`);
	} catch {
		return false;
	}
	return fds.some((fd) => {
		try {
			return inodes.has(
				/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '',
			);
		} catch {
			return false;
		}
	});
}

/**
 * A detached child (its own process group) outlives its parent: if this process exits without stopping it
 * (an uncaught error, process.exit), end the child's group on the way out.
 */
export function killGroupOnExit(child: ChildProcess): void {
	const onExit = () => {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			/* already gone */
		}
	};
	process.once('exit', onExit);
	child.once('exit', () => process.removeListener('exit', onExit));
}
