/**
 * n8n itself: installed once from the recipe and lockfile in `n8n-host/` into the cache, sqlite3 built for Node 24.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNode24, node24Env } from './node-runtime';
import { HOST_SPEC_DIR, N8N_VERSION, type N8nHost } from './paths';
import { defaultLog, run, sha256, withLock, type Logger } from './process';

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
