/**
 * An empty n8n database, already migrated, per installed n8n: the tests copy it into each fresh user folder, so an
 * n8n they start does not run every one of n8n's migrations again on a new SQLite file (about a third of the CPU of
 * a start, which a test run pays some thirty times). The copy is what n8n itself leaves after its first start: its
 * database (with its write-ahead log) and its `config` (the encryption key the database's own keys are sealed with),
 * no owner, no workflow, no credential. `npm start` does not use it: a person's first start is n8n's own.
 */
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ensureN8n } from './n8n-install';
import { cacheDir } from './paths';
import { defaultLog, type Logger } from './process';
import { startN8n } from './start';
import type { N8nLine } from './versions';

/** The files of `<user folder>/.n8n` that make the copy (the `-wal` one only when n8n left it). */
const FILES = ['database.sqlite', 'database.sqlite-wal', 'config'];
const COMPLETE = '.complete';

/** Copies the database's files that `from` holds into `to`. */
function copyDatabase(from: string, to: string): void {
	for (const file of FILES)
		if (existsSync(join(from, file))) copyFileSync(join(from, file), join(to, file));
}

/**
 * The folder holding the migrated database of this line's installed n8n (made on first use by starting that n8n
 * once on an empty folder). Keyed by the install (its marker: n8n's recipe, lockfile and Node), so a new n8n
 * gets a new one. Safe when several processes ask at once: each makes its own and the first to finish keeps it.
 */
export async function migratedDatabase(line: N8nLine, log: Logger = defaultLog): Promise<string> {
	const host = await ensureN8n(log, line);
	const install = readFileSync(join(host.hostDir, '.installed'), 'utf8');
	const key = createHash('sha256').update(install).digest('hex').slice(0, 12);
	const base = join(cacheDir(), 'database-templates');
	const dir = join(base, `${line}.x-${host.version}-${key}`);
	if (existsSync(join(dir, COMPLETE))) return dir;
	mkdirSync(base, { recursive: true });
	const making = mkdtempSync(join(base, 'making-'));
	try {
		mkdirSync(join(making, '.n8n'));
		log(`migrating an empty n8n ${host.version} database once, for the n8n the tests start`);
		const n8n = await startN8n({ userFolder: making, line, log, label: 'template' });
		await n8n.stop();
		const made = join(making, 'made');
		mkdirSync(made);
		copyDatabase(join(making, '.n8n'), made);
		writeFileSync(join(made, COMPLETE), install);
		try {
			renameSync(made, dir);
		} catch (error) {
			// Another process finished first: keep its copy.
			if (!existsSync(join(dir, COMPLETE))) throw error;
		}
		return dir;
	} finally {
		rmSync(making, { recursive: true, force: true });
	}
}

/** Puts the migrated database of this line into a fresh user folder (before n8n starts there). */
export async function seedUserFolder(
	userFolder: string,
	line: N8nLine,
	log: Logger = defaultLog,
): Promise<void> {
	const template = await migratedDatabase(line, log);
	const target = join(userFolder, '.n8n');
	mkdirSync(target, { recursive: true });
	if (existsSync(join(target, 'database.sqlite')))
		throw new Error(`${userFolder} already has an n8n database: it is not a fresh folder`);
	copyDatabase(template, target);
}
