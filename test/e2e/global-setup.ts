/**
 * Once per `npm run test:e2e` (jest runs a global setup once, whatever the number of projects using it): make sure
 * the cached real n8n of each line RA_N8N_VERSIONS selects and Debian's Chromium headless shell exist, then build
 * and pack this package. The tarball path reaches the test files through RA_E2E_TARBALL (set it to reuse a tarball).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import {
	ensureN8n,
	packPackage,
	removeFinishedRunFolders,
	removePackedPackage,
	selectedN8nLines,
} from '../../scripts/n8n-host';

/**
 * The browser the browser tests drive (test/e2e/browser.ts): Debian's Chromium headless shell; on a fresh machine (as
 * root) it is installed with apt-get.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

export function ensureChromium(log: (line: string) => void): void {
	if (existsSync(CHROMIUM)) return;
	if (process.getuid?.() !== 0) {
		throw new Error(
			`${CHROMIUM} is missing: install Debian's Chromium headless shell (sudo apt-get install -y chromium-headless-shell) or set CHROMIUM_PATH`,
		);
	}
	log(
		"installing Debian's Chromium headless shell for the editor browser tests (apt-get, about a minute)",
	);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', 'chromium-headless-shell'], {
		stdio: 'inherit',
		env,
	});
}

export default async function globalSetup(): Promise<void> {
	const log = (text: string) => process.stderr.write(`[e2e setup] ${text}\n`);
	ensureChromium(log);
	for (const line of selectedN8nLines()) await ensureN8n(log, line);
	if (process.env.RA_E2E_TARBALL && existsSync(process.env.RA_E2E_TARBALL)) {
		log(`reusing ${process.env.RA_E2E_TARBALL}`);
		return;
	}
	const packed = await packPackage({ log });
	process.env.RA_E2E_TARBALL = packed.tarball;
	// The end of the run (this is jest's main process; the e2e and fault suites both start here): the packed
	// tarball's temporary folder and the finished n8n run folders go. A reused RA_E2E_TARBALL is left alone.
	process.once('exit', () => {
		removePackedPackage(packed.tarball);
		const removed = removeFinishedRunFolders();
		log(
			`removed ${packed.tarball} and ${removed} finished n8n run folder(s) (RA_KEEP_N8N_RUNS=N keeps the newest N)`,
		);
	});
}
