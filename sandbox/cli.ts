/**
 * `npm run sandbox -- [--port 4010] [--host 127.0.0.1] [--public-url URL] [--data state.json] [--worker-delay-ms 50] [--webhook-time-scale 0.001] [--docs-origin https://docs.example] [--quiet]`
 *   limits of new workspaces: `[--profile default|strict] [--active-analysis-limit N] [--pending-upload-limit N]
 *   [--batch-capacity N] [--admission-deadline-ms N] [--quote-max-age-ms N] [--receipt-lifetime-ms N]` (each over the
 *   profile's value)
 * First stdout line: one JSON object {baseUrl, apiKey, webhookSecret, jobDescriptionId, workspaceId};
 * then one log line per request. Loopback only unless `--host` says otherwise: `--host 0.0.0.0` listens on every
 * interface (so that n8n in a container can reach it), and `--public-url` is the address that n8n uses then (for
 * example http://host.docker.internal:4010): it is printed as `baseUrl` and used in signed upload URLs.
 */
import { startSandbox, type ProfileName, type WorkspaceLimits } from './src';

/** CLI flag of each workspace limit (sandbox/README.md, "Profiles and limits"). */
const LIMIT_FLAGS: Record<keyof WorkspaceLimits, string> = {
	activeAnalysisLimit: 'active-analysis-limit',
	pendingUploadLimit: 'pending-upload-limit',
	batchCapacity: 'batch-capacity',
	admissionDeadlineMs: 'admission-deadline-ms',
	quoteMaxAgeMs: 'quote-max-age-ms',
	receiptLifetimeMs: 'receipt-lifetime-ms',
};

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	if (i >= 0) return process.argv[i + 1];
	const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
	return eq?.slice(name.length + 3);
}

function num(name: string): number | undefined {
	const v = arg(name);
	if (v === undefined) return undefined;
	const n = Number(v);
	if (!Number.isFinite(n)) throw new Error(`--${name} must be a number`);
	return n;
}

async function main(): Promise<void> {
	const sb = await startSandbox({
		port: num('port') ?? 4010,
		host: arg('host'),
		publicUrl: arg('public-url'),
		dataFile: arg('data'),
		workerDelayMs: num('worker-delay-ms'),
		webhookTimeScale: num('webhook-time-scale'),
		log: !process.argv.includes('--quiet'),
		docsOrigin: arg('docs-origin'),
		profile: arg('profile') as ProfileName | undefined,
		limits: Object.fromEntries(
			Object.entries(LIMIT_FLAGS).map(([limit, flag]) => [limit, num(flag)]),
		),
	});
	process.stdout.write(`${JSON.stringify({ baseUrl: sb.baseUrl, ...sb.seed })}\n`);
	const stop = () => {
		sb.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
	console.error(err);
	process.exit(1);
});
