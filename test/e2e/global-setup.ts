/**
 * Once per `npm run test:e2e`: make sure the cached real n8n exists, then build and pack this package.
 * The tarball path reaches the test files through RA_E2E_TARBALL (set it to reuse a tarball).
 */
import { existsSync } from 'node:fs';

import { ensureN8n, packPackage } from '../../scripts/n8n-host';

export default async function globalSetup(): Promise<void> {
	const log = (line: string) => process.stderr.write(`[e2e setup] ${line}\n`);
	await ensureN8n(log);
	if (process.env.RA_E2E_TARBALL && existsSync(process.env.RA_E2E_TARBALL)) {
		log(`reusing ${process.env.RA_E2E_TARBALL}`);
		return;
	}
	const packed = await packPackage({ log });
	process.env.RA_E2E_TARBALL = packed.tarball;
}
