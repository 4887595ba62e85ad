/**
 * After a run of the fault suite: stop the shared n8n still running (test/e2e/shared-n8n.ts), stamp the run in its
 * figures folder, then remove the folder if it was this run's
 * own temporary one. The suite never writes REPORT.md; `npm run report:faults` renders it (test/faults/report.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import stopSharedN8n from '../e2e/global-teardown';
import { figuresDir } from './figures';
import { OWN_FIGURES_VAR } from './global-setup';

export default async function globalTeardown(): Promise<void> {
	await stopSharedN8n();
	const dir = figuresDir();
	if (process.env[OWN_FIGURES_VAR]) {
		rmSync(dir, { recursive: true, force: true });
		return;
	}
	const file = join(dir, 'run.json');
	const meta = JSON.parse(readFileSync(file, 'utf8')) as { startedAt: string };
	const finishedAt = new Date();
	const totalSeconds = Math.round((finishedAt.getTime() - Date.parse(meta.startedAt)) / 1000);
	writeFileSync(
		file,
		`${JSON.stringify({ ...meta, generatedAt: finishedAt.toISOString(), totalSeconds }, null, 2)}\n`,
	);
}
