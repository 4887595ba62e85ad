/**
 * Debian packages the queue-mode stack needs (redis-server, postgresql), installed with apt-get when missing,
 * as scripts/ci-prepare.sh does for Chromium's headless shell: root runs apt-get itself, anyone else needs sudo without a password.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import type { Logger } from './index';

let updated = false;

/** Makes sure `probe` exists, installing the Debian package `pkg` with apt-get if it does not. */
export function ensureDebianPackage(pkg: string, probe: () => boolean, log: Logger): void {
	if (probe()) return;
	const root = process.getuid?.() === 0;
	const sudo = root ? [] : ['sudo', '-n'];
	if (!root && !existsSync('/usr/bin/sudo')) {
		throw new Error(
			`${pkg} is missing: install it (apt-get install -y ${pkg}) or run this as root`,
		);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const apt = (args: string[]) => {
		const [cmd, ...rest] = [...sudo, 'apt-get', ...args];
		execFileSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env });
	};
	log(`installing Debian's ${pkg} (apt-get)`);
	if (!updated) {
		apt(['update', '-qq']);
		updated = true;
	}
	apt(['install', '-y', '-qq', '--no-install-recommends', pkg]);
	if (!probe()) throw new Error(`apt-get installed ${pkg}, but it is still not found`);
}
