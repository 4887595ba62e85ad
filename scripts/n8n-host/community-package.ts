/**
 * The package under test: built and packed from this repository, then installed into an n8n user folder the
 * way n8n's community-package installer does.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ensureNodeRuntime, nodeEnv } from './node-runtime';
import { REPO_ROOT } from './paths';
import { cleanNpmEnv, defaultLog, run, type Logger } from './process';
import { N8N_LINES, type N8nLine } from './versions';

export interface PackedPackage {
	tarball: string;
	name: string;
	version: string;
}

/** `npm run build` then `npm pack` into a fresh temporary folder. */
export async function packPackage(
	opts: { log?: Logger; skipBuild?: boolean } = {},
): Promise<PackedPackage> {
	const log = opts.log ?? defaultLog;
	const env = cleanNpmEnv();
	if (!opts.skipBuild) {
		log('building the package (npm run build)');
		await run('npm', ['run', 'build'], { cwd: REPO_ROOT, env, log, progress: 'npm run build' });
	}
	const dest = mkdtempSync(join(tmpdir(), 'ra-pack-'));
	const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dest], {
		cwd: REPO_ROOT,
		env,
		log,
	});
	const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
		filename: string;
		name: string;
		version: string;
	}>;
	const tarball = join(dest, info[0].filename);
	if (!existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
	log(`packed ${info[0].name}@${info[0].version} -> ${tarball}`);
	return { tarball, name: info[0].name, version: info[0].version };
}

/**
 * Installs a package tarball into `<userFolder>/.n8n/nodes` the way n8n's CommunityPackagesService
 * does (packages/cli/src/modules/community-packages): unpack into `nodes/node_modules/<name>`, strip dev, peer
 * and optional dependencies from its package.json, `npm install` inside it with scripts off, no lockfile,
 * shallow strategy and no bin links, then record it in the `nodes/package.json` ledger. n8n loads every
 * package under `nodes/node_modules` at start. The npm is that of the Node the given n8n line runs on.
 */
export async function installCommunityPackage(
	tarball: string,
	userFolder: string,
	opts: { log?: Logger; line?: N8nLine } = {},
): Promise<{ packageDir: string; name: string; version: string }> {
	const log = opts.log ?? defaultLog;
	const host = await ensureNodeRuntime(N8N_LINES[opts.line ?? '2'].node, log);
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const staging = mkdtempSync(join(tmpdir(), 'ra-unpack-'));
	await run('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1']);
	const manifest = JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as Record<
		string,
		unknown
	> & {
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
		{ cwd: packageDir, env: nodeEnv(host), log },
	);
	if (opts.line === '1') {
		// n8n 1.x runs `npm outdated` in this folder on every listing of community packages (Settings > Community
		// nodes) with an environment of its own (PATH, NODE_PATH, NODE_ENV only), so only a project .npmrc reaches
		// that npm: offline, it answers at once instead of trying the registry for 70 s (nothing may dial out).
		writeFileSync(join(nodesDir, '.npmrc'), 'offline=true\n');
	}
	const ledgerPath = join(nodesDir, 'package.json');
	const ledger = existsSync(ledgerPath)
		? (JSON.parse(readFileSync(ledgerPath, 'utf8')) as { dependencies?: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} };
	ledger.dependencies = { ...(ledger.dependencies ?? {}), [manifest.name]: manifest.version };
	writeFileSync(ledgerPath, JSON.stringify(ledger, null, 2));
	log(`installed ${manifest.name}@${manifest.version} into ${packageDir}`);
	return { packageDir, name: manifest.name, version: manifest.version };
}

/** Removes the temporary `ra-pack-*` folder packPackage() made for `tarball` (nothing else). */
export function removePackedPackage(tarball: string): void {
	const folder = dirname(tarball);
	if (basename(folder).startsWith('ra-pack-') && dirname(folder) === tmpdir())
		rmSync(folder, { recursive: true, force: true });
}
