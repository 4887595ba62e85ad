/** Resume files for the benchmarks, written to bench/out (git-ignored) from the test fixtures' PDF maker. */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { makePdf } from '../../test/fixtures/resumes';

/** `count` distinct PDFs of exactly `sizeBytes` each in `dir` (reused when already there). Returns the glob. */
export function ensureResumes(dir: string, count: number, sizeBytes: number): string {
	const ok =
		existsSync(dir) &&
		readdirSync(dir).filter((f) => f.endsWith('.pdf')).length === count &&
		readdirSync(dir).every((f) => statSync(join(dir, f)).size === sizeBytes);
	if (!ok) {
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		for (let i = 0; i < count; i++) {
			const name = `candidate-${String(i).padStart(4, '0')}`;
			writeFileSync(
				join(dir, `${name}.pdf`),
				makePdf({ candidate: name, outcome: 'completed', sizeBytes }),
			);
		}
	}
	return join(dir, '*.pdf');
}
