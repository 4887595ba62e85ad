/**
 * n8n itself: each line installed once from its recipe and lockfile in the repository (`n8n-host/`,
 * `n8n-host/1.x/`) into its own folder of the cache, with sqlite3 built for the Node it runs on.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNodeRuntime, nodeEnv } from './node-runtime';
import { cacheDir, type N8nHost, type NodePaths } from './paths';
import { defaultLog, run, sha256, withLock, type Logger } from './process';
import { N8N_LINES, type N8nLine, type N8nLineSpec } from './versions';

/** The version of the default line (2.x). */
export const N8N_VERSION = N8N_LINES['2'].version;

function hostSpecHash(spec: N8nLineSpec): string {
	return sha256(
		readFileSync(join(spec.specDir, 'package.json')),
		readFileSync(join(spec.specDir, 'package-lock.json')),
	);
}

/** sqlite3's native binding, which `npm rebuild sqlite3` builds. */
function sqliteBinding(hostDir: string): string {
	return join(hostDir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

function hostOf(spec: N8nLineSpec, node: NodePaths): N8nHost {
	const hostDir = join(cacheDir(), spec.cacheName);
	return {
		...node,
		line: spec.line,
		version: spec.version,
		hostDir,
		n8nBin: join(hostDir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
}

/**
 * Makes sure a real n8n of the given line (the version pinned in its recipe) is installed in the cache.
 * Idempotent: a marker file holds the hash of the recipe's package.json + package-lock.json and the Node version.
 */
export async function ensureN8n(log: Logger = defaultLog, line: N8nLine = '2'): Promise<N8nHost> {
	const spec = N8N_LINES[line];
	const host = hostOf(spec, await ensureNodeRuntime(spec.node, log));
	const nodeVersion = (await run(host.nodeBin, ['--version'])).stdout.trim();
	const want = `${hostSpecHash(spec)} node ${nodeVersion}`;
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
		copyFileSync(join(spec.specDir, 'package.json'), join(host.hostDir, 'package.json'));
		copyFileSync(join(spec.specDir, 'package-lock.json'), join(host.hostDir, 'package-lock.json'));
		const env = nodeEnv(host);
		const t0 = Date.now();
		log(
			`installing n8n ${spec.version} into ${host.hostDir} on Node ${nodeVersion} (${spec.installNote})`,
		);
		await run(
			host.nodeBin,
			[host.npmCli, 'install', '--ignore-scripts', '--no-audit', '--no-fund'],
			{
				cwd: host.hostDir,
				env,
				log,
				progress: `npm install n8n ${spec.version}`,
				timeoutMs: 30 * 60_000,
			},
		);
		log(
			`npm install done in ${Math.round((Date.now() - t0) / 1000)} s; building sqlite3 from source (about 2 minutes)`,
		);
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
		const version = (
			await run(host.nodeBin, [host.n8nBin, '--version'], { env, cwd: host.hostDir })
		).stdout.trim();
		if (!version.includes(spec.version))
			throw new Error(`expected n8n ${spec.version}, got "${version}"`);
		writeFileSync(marker, want);
		log(`n8n ${version} ready on Node ${nodeVersion} (${Math.round((Date.now() - t0) / 1000)} s)`);
		return host;
	});
}
