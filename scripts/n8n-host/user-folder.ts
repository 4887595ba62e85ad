/**
 * N8N_USER_FOLDERs: one fresh folder per run, kept in the cache, old ones pruned.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheDir } from './paths';
import { pidAlive } from './process';

/**
 * Where the per-run N8N_USER_FOLDERs live: in the cache folder, outside the repository, so that jest's module
 * map never sees the package copies n8n keeps under `.n8n/nodes` (they would collide with this package's name).
 */
export function runsDir(): string {
	return process.env.RA_N8N_RUNS_DIR
		? resolve(process.env.RA_N8N_RUNS_DIR)
		: join(cacheDir(), 'runs');
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
	const folder = mkdtempSync(
		join(base, `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}-`),
	);
	mkdirSync(join(folder, '.n8n'), { recursive: true });
	writeFileSync(join(folder, '.owner-pid'), String(process.pid));
	return folder;
}

/**
 * Removes the run folders of runsDir() beyond the newest `keep`, except those of a process that still runs
 * (another suite on the same machine); its own are removed. Returns how many it removed.
 */
function pruneRunFolders(base: string, keep = KEEP_RUN_FOLDERS): number {
	if (!existsSync(base)) return 0;
	let removed = 0;
	const folders = readdirSync(base, { withFileTypes: true })
		.filter((e) => e.isDirectory())
		.map((e) => ({ path: join(base, e.name), mtime: statSync(join(base, e.name)).mtimeMs }))
		.sort((a, b) => b.mtime - a.mtime);
	for (const { path } of folders.slice(keep)) {
		let owner = 0;
		try {
			owner = Number(readFileSync(join(path, '.owner-pid'), 'utf8'));
		} catch {
			/* made before owners were recorded */
		}
		if (owner && owner !== process.pid && pidAlive(owner)) continue;
		rmSync(path, { recursive: true, force: true });
		removed++;
	}
	return removed;
}

/**
 * End of a run (test suites, npm start): remove the finished run folders (each holds n8n's database, tens of
 * MB); RA_KEEP_N8N_RUNS=N keeps the newest N for a look afterwards. Folders of live processes stay.
 */
export function removeFinishedRunFolders(): number {
	return pruneRunFolders(runsDir(), Number(process.env.RA_KEEP_N8N_RUNS ?? 0));
}
