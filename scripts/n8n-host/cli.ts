/**
 * Command line: `tsx scripts/n8n-host/cli.ts ensure` installs into the cache the n8n lines RA_N8N_VERSIONS selects
 * (default both: n8n 2.x on Node 24, n8n 1.x on Node 22), side by side, and prints each install as a JSON line (nothing
 * else).
 */
import { ensureN8n } from './n8n-install';
import { selectedN8nLines } from './versions';

if (require.main === module) {
	const cmd = process.argv[2] ?? 'ensure';
	(async () => {
		if (cmd === 'ensure') {
			// The lines install side by side (each in its own folder, under its own lock): one downloads while the
			// other builds sqlite3, which on a fresh machine takes minutes off doing them one after the other.
			const hosts = await Promise.all(
				selectedN8nLines().map(async (line) => await ensureN8n(undefined, line)),
			);
			for (const host of hosts) process.stdout.write(`${JSON.stringify(host)}\n`);
		} else {
			throw new Error(`unknown command ${cmd} (use: ensure)`);
		}
	})().catch((err: unknown) => {
		process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
		process.exit(1);
	});
}
