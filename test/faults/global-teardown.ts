/** After `npm run test:faults`: stamp the run and render test/faults/REPORT.md from its figures. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { OUT_DIR } from './figures';

export default async function globalTeardown(): Promise<void> {
	const file = join(OUT_DIR, 'run.json');
	const meta = JSON.parse(readFileSync(file, 'utf8')) as { startedAt: string };
	const finishedAt = new Date();
	const totalSeconds = Math.round((finishedAt.getTime() - Date.parse(meta.startedAt)) / 1000);
	writeFileSync(file, `${JSON.stringify({ ...meta, generatedAt: finishedAt.toISOString(), totalSeconds }, null, 2)}\n`);
	await import('./render-report');
}
