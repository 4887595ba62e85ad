/**
 * Once per run of the fault suite: a figures folder for this run (a fresh temporary one unless
 * `npm run report:faults` named its own in RA_FAULT_FIGURES_DIR), then the real n8n for F3/F4 and F8 as the e2e
 * suite prepares it (each n8n line selected, from the cache, this package built and packed once; RA_E2E_TARBALL
 * reuses a tarball).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import e2eGlobalSetup from '../e2e/global-setup';
import { FIGURES_DIR_VAR } from './figures';

/** Set when the figures folder is this run's own temporary folder (the global teardown removes it). */
export const OWN_FIGURES_VAR = 'RA_FAULT_FIGURES_OWN';

export default async function globalSetup(): Promise<void> {
	if (!process.env[FIGURES_DIR_VAR]) {
		process.env[FIGURES_DIR_VAR] = mkdtempSync(join(tmpdir(), 'ra-fault-figures-'));
		process.env[OWN_FIGURES_VAR] = '1';
	}
	const dir = process.env[FIGURES_DIR_VAR]!;
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, 'run.json'),
		`${JSON.stringify({ startedAt: new Date().toISOString() }, null, 2)}\n`,
	);
	const started = Date.now();
	await e2eGlobalSetup();
	process.stderr.write(
		`[faults setup] real n8n ready and package packed in ${Math.round((Date.now() - started) / 1000)} s\n`,
	);
}
