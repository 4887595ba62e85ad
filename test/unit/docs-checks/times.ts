/**
 * How long the commands take, stated in one place. CONTRIBUTING.md's table under "How long the commands take" is the
 * record: one row per measured step (a key, what was measured and how, the measured seconds, and how the docs state
 * it). Rule: in README.md and CONTRIBUTING.md every time phrase of the forms "about N minutes", "N to M minutes" and
 * "under N minutes" is the "stated as" of a row (word for word), each row's "stated as" agrees with its measured
 * seconds ("about N minutes": the measurements' mean rounds to N minutes; "N to M minutes": each measurement rounds
 * into that range), and the console texts that announce a step (the n8n install's note) use their row's phrase.
 */
import { lineAt, type Problem } from './problems';
import { fold } from './stated';

export const TIMES_DOC = 'CONTRIBUTING.md';
export const TIMES_HEADING = '## How long the commands take';

export interface TimeRow {
	key: string;
	seconds: number[];
	statedAs: string;
	line: number;
}

/** The record's rows: `| key | what | measured | stated as |`, seconds read from "N s" in the measured cell. */
export function timeRecord(contributing: string): TimeRow[] {
	const start = contributing.indexOf(`\n${TIMES_HEADING}\n`);
	if (start === -1) return [];
	const rows: TimeRow[] = [];
	const after = contributing.slice(start + 1);
	const lines = after.split('\n');
	const firstLine = lineAt(contributing, start + 1);
	let inTable = false;
	for (const [i, line] of lines.entries()) {
		if (i > 0 && line.startsWith('## ')) break;
		if (!line.startsWith('|')) {
			if (inTable) break;
			continue;
		}
		inTable = true;
		const cells = line
			.slice(1, -1)
			.split('|')
			.map((c) => c.trim());
		const key = /^`([a-z0-9-]+)`$/.exec(cells[0])?.[1];
		if (!key || cells.length < 4) continue;
		rows.push({
			key,
			seconds: [...cells[2].matchAll(/(\d+) s\b/g)].map((m) => Number(m[1])),
			statedAs: cells[3].replace(/[*`]/g, ''),
			line: firstLine + i,
		});
	}
	return rows;
}

/** Whether a phrase such as "about 5 minutes" or "3 to 4 minutes" says what the measured seconds say. */
export function agrees(statedAs: string, seconds: number[]): boolean {
	if (seconds.length === 0) return false;
	const minutes = seconds.map((s) => Math.round(s / 60));
	const about = /^about (\d+) minutes?$/.exec(statedAs);
	if (about) {
		const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
		return Math.round(mean / 60) === Number(about[1]);
	}
	const range = /^(?:about )?(\d+) to (\d+) minutes$/.exec(statedAs);
	if (range) return minutes.every((m) => m >= Number(range[1]) && m <= Number(range[2]));
	return false;
}

/** The time phrases a document states. */
const PHRASE = /\b(?:about |under )?\d+(?: to \d+)? minutes\b/g;
const isClaim = (phrase: string) => /^(about|under) /.test(phrase) || / to /.test(phrase);

export interface TimeInput {
	docs: Record<string, string>;
	/** Console texts that announce a step: the row they must use, where they are, their text. */
	consoleTexts: Array<{ key: string; file: string; text: string }>;
}

export function checkTimes({ docs, consoleTexts }: TimeInput): Problem[] {
	const problems: Problem[] = [];
	const record = timeRecord(docs[TIMES_DOC] ?? '');
	if (record.length === 0) {
		return [
			{
				file: TIMES_DOC,
				line: 1,
				rule: 'times stated from one record',
				message: `has no table of measured times under "${TIMES_HEADING}"`,
			},
		];
	}
	for (const row of record) {
		if (!agrees(row.statedAs, row.seconds)) {
			problems.push({
				file: TIMES_DOC,
				line: row.line,
				rule: 'stated time agrees with the measurement',
				message: `row ${row.key} states "${row.statedAs}" for ${row.seconds.join(' s, ')} s measured`,
			});
		}
	}
	const stated = new Set(record.map((r) => r.statedAs.toLowerCase()));
	const recordLines = new Set(record.map((r) => r.line));
	for (const doc of ['README.md', TIMES_DOC]) {
		const text = docs[doc] ?? '';
		const { flat, origin } = fold(text);
		for (const m of flat.matchAll(PHRASE)) {
			if (!isClaim(m[0])) continue;
			const line = lineAt(text, origin[m.index]);
			if (doc === TIMES_DOC && recordLines.has(line)) continue;
			if (!stated.has(m[0].toLowerCase())) {
				problems.push({
					file: doc,
					line,
					rule: 'times stated from one record',
					message: `states "${m[0]}", which no row of ${TIMES_DOC} "${TIMES_HEADING.slice(3)}" states (${[...stated].join('; ')})`,
				});
			}
		}
	}
	for (const { key, file, text } of consoleTexts) {
		const row = record.find((r) => r.key === key);
		if (!row || !text.toLowerCase().includes(row.statedAs.toLowerCase())) {
			problems.push({
				file,
				line: 1,
				rule: 'console times from the same record',
				message: `says "${text}", not row ${key}'s "${row?.statedAs ?? '(no such row)'}"`,
			});
		}
	}
	return problems;
}
