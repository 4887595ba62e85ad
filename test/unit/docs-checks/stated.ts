/**
 * Defaults, limits and prices stated in prose. Each claim names the sentences that state one value (a pattern whose
 * groups are the stated values, read over the text with its line breaks and callout marks folded, so a sentence
 * wrapped over lines is one), the documents that must state it, and the value the code holds (its constant, read
 * by the caller). A stated value that differs fails at its line; a document that no longer states it at all fails
 * too, so a reworded sentence cannot slip out of the check unnoticed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { lineAt, type Problem } from './problems';

export interface Claim {
	/** The rule, as a failure names it. */
	rule: string;
	/** The sentences that state it; each group is one stated value. */
	pattern: RegExp;
	/** What the code holds, one value per group that matched (of the alternative that matched). */
	expected: Array<number | string>;
	/** Documents that must state it at least once. */
	statedIn: string[];
}

const WORDS: Record<string, number> = {
	one: 1,
	two: 2,
	three: 3,
	four: 4,
	five: 5,
	six: 6,
	seven: 7,
	eight: 8,
	nine: 9,
	ten: 10,
	twenty: 20,
};

/** A stated value as the code would hold it: "1,000" → 1000, "five" → 5, "2.5" → 2.5; other text as it is. */
export function statedValue(text: string): number | string {
	const t = text.trim().toLowerCase();
	if (t in WORDS) return WORDS[t];
	const n = Number(t.replace(/,/g, ''));
	return t !== '' && Number.isFinite(n) ? n : text.trim();
}

/** The text with each line break (and the `> ` of a callout after it) folded into one space, and where each char was. */
export function fold(text: string): { flat: string; origin: number[] } {
	let flat = '';
	const origin: number[] = [];
	const re = /[ \t]*\n(?:[ \t]*>)?[ \t]*/g;
	let last = 0;
	for (const m of text.matchAll(re)) {
		for (let i = last; i < m.index; i++) {
			flat += text[i];
			origin.push(i);
		}
		flat += ' ';
		origin.push(m.index);
		last = m.index + m[0].length;
	}
	for (let i = last; i < text.length; i++) {
		flat += text[i];
		origin.push(i);
	}
	return { flat, origin };
}

export function checkClaims(docs: Record<string, string>, claims: Claim[]): Problem[] {
	const problems: Problem[] = [];
	const folded = Object.entries(docs).map(([doc, text]) => ({ doc, text, ...fold(text) }));
	for (const claim of claims) {
		const flags = claim.pattern.flags.includes('g')
			? claim.pattern.flags
			: `${claim.pattern.flags}g`;
		for (const { doc, text, flat, origin } of folded) {
			let found = 0;
			for (const m of flat.matchAll(new RegExp(claim.pattern.source, flags))) {
				found++;
				const stated = m
					.slice(1)
					.filter((v) => v !== undefined)
					.map(statedValue);
				if (stated.every((v, i) => v === claim.expected[i])) continue;
				problems.push({
					file: doc,
					line: lineAt(text, origin[m.index]),
					rule: claim.rule,
					message: `states ${JSON.stringify(stated)} in "${m[0]}", but the code holds ${JSON.stringify(claim.expected)}`,
				});
			}
			if (found === 0 && claim.statedIn.includes(doc)) {
				problems.push({
					file: doc,
					line: 1,
					rule: claim.rule,
					message: `no longer states it (no sentence matches ${claim.pattern.source}): say it again, or change where the check looks`,
				});
			}
		}
	}
	return problems;
}

/**
 * A numeric constant that its module does not export, read from the source (`const NAME = 0.7;`, `60_000`,
 * `30 * 1000`): the value the code runs with, not a copy. Throws when the constant is gone.
 */
export function sourceConstant(root: string, file: string, name: string): number {
	const source = readFileSync(join(root, file), 'utf8');
	const m = new RegExp(`const ${name}\\s*=\\s*([\\d_.\\s*]+);`).exec(source);
	if (!m) throw new Error(`${file} has no numeric constant ${name}`);
	return m[1]
		.split('*')
		.map((part) => Number(part.replace(/_/g, '').trim()))
		.reduce((a, b) => a * b, 1);
}
