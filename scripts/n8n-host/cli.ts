/**
 * Command line: `tsx scripts/n8n-host/cli.ts ensure` installs into the cache the n8n lines RA_N8N_VERSIONS selects
 * (default both: n8n 2.x on Node 24, n8n 1.x on Node 22) and prints each install as a JSON line (nothing else).
 */
import { ensureN8n } from './n8n-install';
import { selectedN8nLines } from './versions';

if (require.main === module) {
	const cmd = process.argv[2] ?? 'ensure';
	(async () => {
		if (cmd === 'ensure') {
			for (const line of selectedN8nLines()) {
				const host = await ensureN8n(undefined, line);
				process.stdout.write(`${JSON.stringify(host)}\n`);
			}
		} else {
			throw new Error(`unknown command ${cmd} (use: ensure)`);
		}
	})().catch((err: unknown) => {
		process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
		process.exit(1);
	});
}
