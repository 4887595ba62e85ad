/**
 * After a run of the real-n8n tests: stop the shared n8n still running in this process (test/e2e/shared-n8n.ts).
 */
import { stopAllShared } from './shared-n8n';

export default async function globalTeardown(): Promise<void> {
	const stopped = await stopAllShared();
	if (stopped > 0) process.stderr.write(`[e2e teardown] stopped ${stopped} shared n8n\n`);
}
