/**
 * Where the real n8n lives: the repository, the cache folder, and what an install consists of.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');

export function cacheDir(): string {
	if (process.env.RA_N8N_CACHE_DIR) return resolve(process.env.RA_N8N_CACHE_DIR);
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'n8n-nodes-recruiting-analysis');
}

/** A Node.js install: the one n8n runs on. */
export interface NodePaths {
	/** Folder of that Node (has `bin/node` and `include/node`): used as `npm_config_nodedir`. */
	nodeHome: string;
	/** Folder with its `node` and `npm`: put first on PATH of the n8n processes. */
	binDir: string;
	nodeBin: string;
	npmCli: string;
}

/** An installed n8n and the Node it runs on. */
export interface N8nHost extends NodePaths {
	/** `2` (n8n 2.x) or `1` (n8n 1.x). */
	line: '1' | '2';
	/** The n8n version installed, e.g. `2.41.1`. */
	version: string;
	/** Folder holding `node_modules/n8n`. */
	hostDir: string;
	n8nBin: string;
}
