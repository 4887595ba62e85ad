/**
 * Command line: `tsx scripts/n8n-host/cli.ts ensure` installs Node 24 and n8n into the cache (nothing else).
 */
import { ensureN8n } from './n8n-install';

if (require.main === module) {
	const cmd = process.argv[2] ?? 'ensure';
	(async () => {
		if (cmd === 'ensure') {
			const host = await ensureN8n();
			process.stdout.write(`${JSON.stringify(host)}\n`);
		} else {
			throw new Error(`unknown command ${cmd} (use: ensure)`);
		}
	})().catch((err: unknown) => {
		process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
		process.exit(1);
	});
}
