/**
 * The package as an earlier commit built it, for the "Before and after" comparison: that commit is checked out
 * into a temporary `git worktree`, its own dependencies installed (`npm ci`, from the npm cache where it can), its
 * own `npm run build` and `npm pack` run there, and the worktree removed again, so the tarball is exactly what that
 * commit shipped.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cleanNpmEnv, REPO_ROOT, run } from '../../scripts/n8n-host';
import type { Log } from './n8n';
import { OUR_NODE_VERSION } from './workflowNodes';

export interface PackedRef {
	tarball: string;
	/** The full commit the ref named when it was packed. */
	commit: string;
	/** Our node's version that commit's own bench put in its workflows (the version a user added then). */
	nodeVersion: number;
	/** Removes the temporary folder holding the tarball. */
	remove: () => void;
}

/** The short commit a ref names in this repository (throws a clear error for an unknown ref). */
export async function resolveRef(ref: string): Promise<string> {
	try {
		return (
			await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: REPO_ROOT })
		).stdout.trim();
	} catch {
		throw new Error(`--baseline-ref: "${ref}" names no commit of this repository`);
	}
}

/** OUR_NODE_VERSION of the commit's bench/lib/workflowNodes.ts (today's when that commit has none). */
async function benchNodeVersion(commit: string): Promise<number> {
	const source = await run('git', ['show', `${commit}:bench/lib/workflowNodes.ts`], {
		cwd: REPO_ROOT,
	}).catch(() => ({ stdout: '' }));
	const found = /OUR_NODE_VERSION = ([0-9.]+)/.exec(source.stdout);
	return found ? Number(found[1]) : OUR_NODE_VERSION;
}

export async function packRef(ref: string, log: Log): Promise<PackedRef> {
	const commit = await resolveRef(ref);
	const root = mkdtempSync(join(tmpdir(), 'ra-baseline-'));
	const tree = join(root, 'tree');
	const dest = join(root, 'pack');
	const env = cleanNpmEnv();
	log(`baseline ${ref} (${commit.slice(0, 7)}): checking out into ${tree}`);
	await run('git', ['worktree', 'add', '--detach', tree, commit], { cwd: REPO_ROOT, log });
	try {
		log('baseline: npm ci (its own lockfile; --prefer-offline, scripts off)');
		await run('npm', ['ci', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: tree,
			env,
			log,
			progress: 'baseline npm ci',
		});
		log('baseline: npm run build');
		await run('npm', ['run', 'build'], { cwd: tree, env, log, progress: 'baseline npm run build' });
		await run('mkdir', ['-p', dest]);
		const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dest], {
			cwd: tree,
			env,
			log,
		});
		const info = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
		const tarball = join(dest, info[0].filename);
		if (!existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
		log(`baseline packed: ${tarball}`);
		const nodeVersion = await benchNodeVersion(commit);
		log(`baseline: its bench used our node at version ${nodeVersion}`);
		return {
			tarball,
			commit,
			nodeVersion,
			remove: () => rmSync(root, { recursive: true, force: true }),
		};
	} catch (error) {
		rmSync(root, { recursive: true, force: true });
		throw error;
	} finally {
		// The checkout (and its node_modules) goes away whatever happened; the tarball stays until remove().
		await run('git', ['worktree', 'remove', '--force', tree], { cwd: REPO_ROOT, log }).catch(
			() => undefined,
		);
		rmSync(tree, { recursive: true, force: true });
		await run('git', ['worktree', 'prune'], { cwd: REPO_ROOT, log }).catch(() => undefined);
	}
}
