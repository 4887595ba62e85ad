/**
 * Redis and PostgreSQL for n8n's queue mode, each a private server on a free loopback port with its data in a
 * temporary folder, removed when it stops. Debian's redis-server and postgresql are installed when missing.
 * PostgreSQL's initdb and postgres refuse to run as root: when this runs as root, both servers run as their
 * Debian system users (`postgres`, `redis`), their folders owned by them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
	chownSync,
	closeSync,
	existsSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readdirSync,
	rmSync,
} from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { delay, freePort, killGroupOnExit, run, settlesWithin, type Logger } from './index';
import { ensureDebianPackage } from './system-packages';

export interface ServiceProcess {
	name: string;
	port: number;
	pid: number;
	logFile: string;
	/** Ends the server (its process group) and removes its data folder. */
	stop(): Promise<void>;
}

interface Account {
	uid: number;
	gid: number;
}

/** The system account a server runs as when we are root (undefined: run as ourselves). */
function serviceAccount(user: string): Account | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const id = (flag: string) =>
		Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/** A temporary folder the account can write (and the log file inside it). */
function privateFolder(prefix: string, account: Account | undefined): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	if (account) chownSync(dir, account.uid, account.gid);
	return dir;
}

function spawnServer(
	cmd: string,
	args: string[],
	o: { account?: Account; logFile: string; cwd: string },
): { child: ChildProcess; exited: Promise<void> } {
	const out = openSync(o.logFile, 'a');
	const child = spawn(cmd, args, {
		cwd: o.cwd,
		stdio: ['ignore', out, out],
		detached: true, // its own process group: Ctrl-C in a terminal reaches us, and we stop it in order
		...(o.account ? { uid: o.account.uid, gid: o.account.gid } : {}),
		env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TZ: 'UTC' },
	});
	closeSync(out);
	killGroupOnExit(child);
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	return { child, exited };
}

async function stopGroup(
	child: ChildProcess,
	exited: Promise<void>,
	signal: NodeJS.Signals,
	log: Logger,
	name: string,
) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const send = (sig: NodeJS.Signals) => {
		try {
			process.kill(-child.pid!, sig);
		} catch {
			/* already gone */
		}
	};
	send(signal);
	if (!(await settlesWithin(exited, 15_000))) {
		log(`${name} (pid ${child.pid}) did not stop within 15 s; killing it`);
		send('SIGKILL');
		await exited;
	}
}

export function canConnect(port: number): Promise<boolean> {
	return new Promise((r) => {
		const socket = createConnection({ host: '127.0.0.1', port });
		socket.once('connect', () => {
			socket.destroy();
			r(true);
		});
		socket.once('error', () => r(false));
	});
}

function logTail(file: string, lines = 30): string {
	try {
		return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
	} catch {
		return '';
	}
}

// ---------------------------------------------------------------------------------------------
// Redis
// ---------------------------------------------------------------------------------------------

const REDIS_SERVER = '/usr/bin/redis-server';

/** `port`: a given port, e.g. to start Redis again where a stopped one listened; otherwise a free one. */
export async function startRedis(o: {
	log: Logger;
	logDir?: string;
	port?: number;
}): Promise<ServiceProcess> {
	ensureDebianPackage('redis-server', () => existsSync(REDIS_SERVER), o.log);
	const account = serviceAccount('redis');
	const dir = privateFolder('ra-redis-', account);
	const port = o.port ?? (await freePort());
	const logFile = join(o.logDir ?? dir, `redis-${port}.log`);
	// No persistence: the queue lives as long as the stack.
	const { child, exited } = spawnServer(
		REDIS_SERVER,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
		],
		{ account, logFile, cwd: dir },
	);
	const started = Date.now();
	while (!(await canConnect(port))) {
		if (child.exitCode !== null)
			throw new Error(`redis-server exited (${child.exitCode})\n${logTail(logFile)}`);
		if (Date.now() - started > 30_000)
			throw new Error(`redis-server not listening on ${port} after 30 s\n${logTail(logFile)}`);
		await delay(100);
	}
	o.log(`Redis on 127.0.0.1:${port} (pid ${child.pid}); log: ${logFile}`);
	return {
		name: 'redis',
		port,
		pid: child.pid!,
		logFile,
		async stop() {
			await stopGroup(child, exited, 'SIGTERM', o.log, 'redis-server');
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

/** The bin folder of the newest installed PostgreSQL (Debian: /usr/lib/postgresql/<major>/bin). */
function postgresBinDir(): string | undefined {
	const base = '/usr/lib/postgresql';
	if (!existsSync(base)) return undefined;
	const majors = readdirSync(base)
		.filter(
			(v) =>
				existsSync(join(base, v, 'bin', 'postgres')) && existsSync(join(base, v, 'bin', 'initdb')),
		)
		.sort((a, b) => Number(b) - Number(a));
	return majors.length ? join(base, majors[0], 'bin') : undefined;
}

export interface PostgresProcess extends ServiceProcess {
	database: string;
	user: string;
	binDir: string;
}

export async function startPostgres(o: {
	log: Logger;
	logDir?: string;
	database?: string;
}): Promise<PostgresProcess> {
	ensureDebianPackage('postgresql', () => postgresBinDir() !== undefined, o.log);
	const binDir = postgresBinDir()!;
	const account = serviceAccount('postgres');
	const dir = privateFolder('ra-postgres-', account);
	const data = join(dir, 'data');
	const user = 'n8n';
	const database = o.database ?? 'n8n';
	const port = await freePort();
	const logFile = join(o.logDir ?? dir, `postgres-${port}.log`);
	const asAccount = account ? { uid: account.uid, gid: account.gid } : {};
	// Trust on loopback only: the server listens on 127.0.0.1 and a socket in its private folder.
	await runAs(
		join(binDir, 'initdb'),
		['-D', data, '-U', user, '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C.UTF-8'],
		asAccount,
		dir,
	);
	// Durability settings off: this database lives as long as the stack.
	const { child, exited } = spawnServer(
		join(binDir, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
			'-c',
			'max_connections=200',
		],
		{ account, logFile, cwd: dir },
	);
	const started = Date.now();
	for (;;) {
		if (child.exitCode !== null)
			throw new Error(`postgres exited (${child.exitCode})\n${logTail(logFile)}`);
		const ready = await run(
			join(binDir, 'pg_isready'),
			['-h', '127.0.0.1', '-p', String(port), '-U', user, '-q'],
			{},
		).then(
			() => true,
			() => false,
		);
		if (ready) break;
		if (Date.now() - started > 60_000)
			throw new Error(`postgres not ready on ${port} after 60 s\n${logTail(logFile)}`);
		await delay(200);
	}
	await run(join(binDir, 'createdb'), [
		'-h',
		'127.0.0.1',
		'-p',
		String(port),
		'-U',
		user,
		database,
	]);
	o.log(
		`PostgreSQL ${binDir.split('/').at(-2)} on 127.0.0.1:${port} (pid ${child.pid}, database ${database}); log: ${logFile}`,
	);
	return {
		name: 'postgres',
		port,
		pid: child.pid!,
		logFile,
		database,
		user,
		binDir,
		async stop() {
			// SIGINT: PostgreSQL's fast shutdown (ends sessions, then exits).
			await stopGroup(child, exited, 'SIGINT', o.log, 'postgres');
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

function runAs(
	cmd: string,
	args: string[],
	account: { uid?: number; gid?: number },
	cwd: string,
): Promise<void> {
	return new Promise((resolveRun, reject) => {
		const child = spawn(cmd, args, {
			cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
			...account,
			env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' },
		});
		let out = '';
		child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
		child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
		child.once('error', reject);
		child.once('close', (code) =>
			code === 0
				? resolveRun()
				: reject(new Error(`${cmd} exited with ${code}\n${out.slice(-2000)}`)),
		);
	});
}
