/**
 * A screenshot is as old as what it shows. docs/screenshots/sources.json records, for each screenshot, the file
 * it shows (an example workflow, or the operation whose panel it shows) and the SHA-256 of that file's bytes when
 * the screenshot was taken:
 *
 *     { "example-analyze-one-resume.png": { "source": "examples/analyze-one-resume.json", "sha256": "<hex>" } }
 *
 * The command that takes screenshots (`npm run docs:screenshots`) writes each entry with `recordScreenshot` below,
 * right after it wrote the PNG; a test never writes it. The check fails when a document shows a screenshot without
 * an entry, when an entry names a missing PNG or source, and when the source's bytes changed after the screenshot
 * was taken (the screenshot is stale: take it again).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';

import { lineAt, proseOnly, type Problem } from './problems';

export const SCREENSHOTS_DIR = 'docs/screenshots';
export const SCREENSHOT_RECORD = `${SCREENSHOTS_DIR}/sources.json`;

export interface ScreenshotEntry {
	/** The repository file the screenshot shows (an example, or the operation whose panel it shows). */
	source: string;
	/** SHA-256 (hex) of that file's bytes when the screenshot was taken. */
	sha256: string;
}

export const sha256 = (bytes: string | Buffer): string =>
	createHash('sha256').update(bytes).digest('hex');

/**
 * Records that `png` (a name under docs/screenshots/) was just taken of `source` (a path from the repository's
 * root): for the screenshot command only, never for a test run.
 */
export function recordScreenshot(root: string, png: string, source: string): void {
	const file = join(root, SCREENSHOT_RECORD);
	const record = existsSync(file)
		? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, ScreenshotEntry>)
		: {};
	record[png] = { source, sha256: sha256(readFileSync(join(root, source))) };
	const sorted = Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
	writeFileSync(file, `${JSON.stringify(sorted, null, '\t')}\n`);
}

/** What the check reads: the documents, the record's text, and the repository's files (undefined when absent). */
export interface ScreenshotInput {
	docs: Record<string, string>;
	record: string | undefined;
	readFile: (path: string) => Buffer | string | undefined;
}

/** Every image a document shows from docs/screenshots/, as a name under it, with where it is shown. */
function shownScreenshots(docs: Record<string, string>) {
	const shown: Array<{ doc: string; line: number; png: string }> = [];
	for (const [doc, text] of Object.entries(docs)) {
		for (const m of proseOnly(text).matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
			const target = posix.normalize(posix.join(posix.dirname(doc), m[1].split('#')[0]));
			if (target.startsWith(`${SCREENSHOTS_DIR}/`)) {
				shown.push({
					doc,
					line: lineAt(text, m.index),
					png: target.slice(SCREENSHOTS_DIR.length + 1),
				});
			}
		}
	}
	return shown;
}

export function checkScreenshots({ docs, record, readFile }: ScreenshotInput): Problem[] {
	const problems: Problem[] = [];
	let entries: Record<string, ScreenshotEntry> = {};
	if (record !== undefined) {
		try {
			entries = JSON.parse(record) as Record<string, ScreenshotEntry>;
		} catch (error) {
			return [
				{
					file: SCREENSHOT_RECORD,
					line: 1,
					rule: 'screenshot record',
					message: `is not JSON: ${(error as Error).message}`,
				},
			];
		}
	}
	const entryLine = (png: string) =>
		record === undefined ? 1 : lineAt(record, Math.max(0, record.indexOf(JSON.stringify(png))));
	for (const { doc, line, png } of shownScreenshots(docs)) {
		if (!(png in entries)) {
			problems.push({
				file: doc,
				line,
				rule: 'screenshot record',
				message: `shows ${SCREENSHOTS_DIR}/${png}, which has no entry in ${SCREENSHOT_RECORD} (what it shows and that file's SHA-256 when it was taken)`,
			});
		}
	}
	for (const [png, entry] of Object.entries(entries)) {
		const line = entryLine(png);
		if (readFile(`${SCREENSHOTS_DIR}/${png}`) === undefined) {
			problems.push({
				file: SCREENSHOT_RECORD,
				line,
				rule: 'screenshot record',
				message: `names ${SCREENSHOTS_DIR}/${png}, which does not exist`,
			});
			continue;
		}
		const source = entry?.source === undefined ? undefined : readFile(entry.source);
		if (source === undefined || typeof entry.sha256 !== 'string') {
			problems.push({
				file: SCREENSHOT_RECORD,
				line,
				rule: 'screenshot record',
				message: `${png}: its source ${JSON.stringify(entry?.source)} does not exist or it has no sha256`,
			});
			continue;
		}
		const now = sha256(source);
		if (now !== entry.sha256) {
			problems.push({
				file: SCREENSHOT_RECORD,
				line,
				rule: 'screenshot not older than its source',
				message: `${png} shows ${entry.source}, which changed after the screenshot was taken (sha256 then ${entry.sha256.slice(0, 12)}…, now ${now.slice(0, 12)}…): take it again with npm run docs:screenshots`,
			});
		}
	}
	return problems;
}
