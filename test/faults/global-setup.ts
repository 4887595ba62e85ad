/**
 * Once per `npm run test:faults`: start a fresh figures folder (the report shows one run only), then prepare the
 * real n8n for F3/F4 as the e2e suite does (each n8n line selected, from the cache, this package built and packed once;
 * RA_E2E_TARBALL reuses a tarball).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import e2eGlobalSetup from '../e2e/global-setup';
import { OUT_DIR } from './figures';

export default async function globalSetup(): Promise<void> {
	rmSync(OUT_DIR, { recursive: true, force: true });
	mkdirSync(OUT_DIR, { recursive: true });
	writeFileSync(join(OUT_DIR, 'run.json'), `${JSON.stringify({ startedAt: new Date().toISOString() }, null, 2)}\n`);
	const started = Date.now();
	await e2eGlobalSetup();
	process.stderr.write(`[faults setup] real n8n ready and package packed in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
