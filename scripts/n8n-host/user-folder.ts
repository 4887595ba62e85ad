/**
 * N8N_USER_FOLDERs: one fresh folder per run, kept in the cache, old ones pruned.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheDir } from './paths';
import { pidAlive } from './process';

/**
 * Where the per-run N8N_USER_FOLDERs live: in the cache folder, outside the repository, so that jest's module
 * map never sees the package copies n8n keeps under `.n8n/nodes` (they would collide with this package's name).
 */
export function runsDir(): string {
	return process.env.RA_N8N_RUNS_DIR ? resolve(process.env.RA_N8N_RUNS_DIR) : join(cacheDir(), 'runs');
}

/** How many finished run folders runsDir() keeps (each holds a SQLite database of tens of MB). */
export const KEEP_RUN_FOLDERS = Number(process.env.RA_KEEP_N8N_RUNS ?? 6);

/**
 * A fresh N8N_USER_FOLDER (n8n keeps its database, config and `nodes/` under `<it>/.n8n`) in runsDir().
 * Older folders beyond KEEP_RUN_FOLDERS are removed, unless the process that made them still runs.
 */
export function createUserFolder(label = 'run'): string {
	const base = runsDir();
	mkdirSync(base, { recursive: true });
	pruneRunFolders(base);
	const folder = mkdtempSync(join(base, `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}-`));
	mkdirSync(join(folder, '.n8n'), { recursive: true });
	writeFileSync(join(folder, '.owner-pid'), String(process.pid));
	return folder;
}

function pruneRunFolders(base: string): void {
	const folders = readdirSync(base, { withFileTypes: true })
		.filter((e) => e.isDirectory())
		.map((e) => ({ path: join(base, e.name), mtime: statSync(join(base, e.name)).mtimeMs }))
		.sort((a, b) => b.mtime - a.mtime);
	for (const { path } of folders.slice(KEEP_RUN_FOLDERS)) {
		let owner = 0;
		try {
			owner = Number(readFileSync(join(path, '.owner-pid'), 'utf8'));
		} catch {
			/* made before owners were recorded */
		}
		if (owner && owner !== process.pid && pidAlive(owner)) continue;
		rmSync(path, { recursive: true, force: true });
	}
}
