/**
 * npm run test:mutation: StrykerJS (stryker.config.mjs) over the groups of test/mutation/groups.js, one group after
 * the other (or those named: `npm run test:mutation -- feed writes`), then test/mutation/REPORT.md from their
 * results (test/mutation/render.ts). Stryker 10 needs Node 22 or later: on an older Node it runs on the Node 24 the
 * n8n host uses (scripts/n8n-host/node-runtime.ts). Each group's commit and wall time are kept beside its result,
 * with whether the run was fresh (no reports/mutation/<group>.incremental.json before it) and, for an incremental
 * run, the group's last fresh run.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { ensureNodeRuntime } from '../../scripts/n8n-host/node-runtime';
import { NODE_24 } from '../../scripts/n8n-host/versions';
import { renderMutationReport } from './render';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GROUPS } = require('./groups.js') as {
	GROUPS: Array<{ name: string; mutate: string[]; tests: string[] }>;
};

const root = join(__dirname, '..', '..');
const out = join(root, 'reports', 'mutation');

export const slugOf = (name: string): string => name.replace(/\W+/g, '-');

async function nodeBinary(): Promise<string> {
	if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
	return (await ensureNodeRuntime(NODE_24)).nodeBin;
}

async function runGroup(node: string, group: (typeof GROUPS)[number]): Promise<number> {
	const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root }).toString().trim();
	// The report this script renders after each group is no change to the code under test.
	const dirty = execFileSync(
		'git',
		['status', '--porcelain', '--', 'nodes', 'test', ':(exclude)test/mutation/REPORT.md'],
		{ cwd: root },
	)
		.toString()
		.trim();
	const slug = slugOf(group.name);
	// Without an incremental file Stryker tests every mutant: only such a run's wall time is the whole group's.
	const fresh = !existsSync(join(out, `${slug}.incremental.json`));
	const runFile = join(out, `${slug}.run.json`);
	const before = existsSync(runFile)
		? (JSON.parse(readFileSync(runFile, 'utf8')) as Record<string, unknown>)
		: undefined;
	const lastFresh = fresh
		? undefined
		: before?.fresh === true
			? { commit: before.commit, startedAt: before.startedAt, wallSeconds: before.wallSeconds }
			: before?.lastFresh;
	const started = Date.now();
	const code = await new Promise<number>((resolve) => {
		const child = spawn(
			node,
			[
				join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'),
				'run',
				'stryker.config.mjs',
			],
			{
				cwd: root,
				stdio: 'inherit',
				env: {
					...process.env,
					RA_MUTATION_GROUP: group.name,
					RA_MUTATION_TESTS: group.tests.join(','),
				},
			},
		);
		child.on('exit', (c) => resolve(c ?? 1));
	});
	writeFileSync(
		runFile,
		JSON.stringify(
			{
				group: group.name,
				commit,
				uncommittedChanges: dirty.length > 0,
				startedAt: new Date(started).toISOString(),
				wallSeconds: Math.round((Date.now() - started) / 1000),
				fresh,
				...(lastFresh ? { lastFresh } : {}),
				cores: cpus().length,
				concurrency: Number(process.env.RA_MUTATION_CONCURRENCY ?? 1),
				exitCode: code,
				tests: group.tests,
			},
			null,
			2,
		),
	);
	return code;
}

async function main(): Promise<void> {
	const wanted = process.argv.slice(2);
	const groups = wanted.length ? GROUPS.filter((g) => wanted.includes(g.name)) : GROUPS;
	if (groups.length === 0) throw new Error(`no group named ${wanted.join(', ')}`);
	mkdirSync(out, { recursive: true });
	const node = await nodeBinary();
	let failed = 0;
	for (const group of groups) {
		console.log(`\n=== mutating ${group.name} (${group.mutate.join(', ')})`);
		if ((await runGroup(node, group)) !== 0) failed++;
		renderMutationReport();
	}
	process.exitCode = failed ? 1 : 0;
}

void main();
