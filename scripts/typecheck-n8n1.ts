/**
 * `npm run typecheck:n8n1`: type-checks the shipped code (nodes/, credentials/) against the n8n-workflow that
 * n8n 1.x uses, so a use of an API that only n8n 2.x has fails here instead of at run time in a user's n8n.
 * The version is the one n8n's 1.x lockfile pins (n8n-host/1.x/package-lock.json); it is installed into a
 * temporary folder (npm's cache makes later runs take seconds) and the folder is removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8N_LINES, REPO_ROOT } from './n8n-host';

const lock = JSON.parse(
	readFileSync(join(N8N_LINES['1'].specDir, 'package-lock.json'), 'utf8'),
) as {
	packages: Record<string, { version?: string }>;
};
const version = lock.packages['node_modules/n8n-workflow']?.version;
if (!version) throw new Error('n8n-host/1.x/package-lock.json pins no n8n-workflow');

const dir = mkdtempSync(join(tmpdir(), 'ra-n8n-workflow-1x-'));
const step = (cmd: string, args: string[], cwd: string) => {
	const res = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
	if (res.status !== 0) process.exitCode = res.status ?? 1;
	return res.status === 0;
};
try {
	writeFileSync(
		join(dir, 'package.json'),
		JSON.stringify({ name: 'n8n-workflow-1x', private: true }),
	);
	const installed = step(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--prefer-offline',
			'--loglevel=error',
			`n8n-workflow@${version}`,
		],
		dir,
	);
	if (installed) {
		const tsconfig = join(dir, 'tsconfig.json');
		writeFileSync(
			tsconfig,
			JSON.stringify({
				extends: join(REPO_ROOT, 'tsconfig.json'),
				compilerOptions: {
					noEmit: true,
					baseUrl: REPO_ROOT,
					typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
					paths: { 'n8n-workflow': [join(dir, 'node_modules', 'n8n-workflow')] },
				},
				include: [
					join(REPO_ROOT, 'credentials', '**', '*.ts'),
					join(REPO_ROOT, 'nodes', '**', '*.ts'),
				],
			}),
		);
		process.stdout.write(
			`type-checking nodes/ and credentials/ against n8n-workflow ${version} (n8n ${N8N_LINES['1'].version})\n`,
		);
		if (step(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', tsconfig], REPO_ROOT)) {
			process.stdout.write(`0 type errors against n8n-workflow ${version}\n`);
		}
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
