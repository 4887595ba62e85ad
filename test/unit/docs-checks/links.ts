/**
 * Links and anchors. Rule: every link of a document (inline `[text](target)`, image `![alt](target)` or reference
 * definition `[name]: target`, outside code) whose target is not a URL with a scheme (https:, mailto:) resolves,
 * relative to the document's folder, to a file or folder of the repository; and every `#anchor` it carries into a
 * Markdown file (the same one or another) is the anchor GitHub makes for one of that file's headings.
 *
 * GitHub's anchors: the heading's text as rendered (emphasis marks and backticks dropped, a link's text kept),
 * lower case, every character that is not a letter, a digit, a space, a hyphen or an underscore dropped, each space
 * a hyphen; a heading whose anchor is already taken in the file gets `-1`, the next `-2`, and so on.
 */
import { posix } from 'node:path';

import { lineAt, proseOnly, type Problem } from './problems';

/** The anchor GitHub makes of one heading's Markdown text (before the duplicate suffix). */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/[`*]/g, '')
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a Markdown text's headings, duplicates numbered as GitHub numbers them. */
export function headingAnchors(markdown: string): string[] {
	const seen = new Map<string, number>();
	const anchors: string[] = [];
	for (const m of proseOnly(markdown, { keepCodeSpans: true }).matchAll(
		/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm,
	)) {
		const base = githubSlug(m[1]);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.push(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

export interface LinkInput {
	docs: Record<string, string>;
	/** Whether a repository path (from the root, no leading slash) is a file or folder. */
	exists: (path: string) => boolean;
	/** A Markdown file's text that is not among `docs`, or undefined. */
	readText: (path: string) => string | undefined;
}

/** Every link target of a document outside code, with its offset. */
function linksOf(text: string): Array<{ target: string; index: number }> {
	const prose = proseOnly(text);
	const found: Array<{ target: string; index: number }> = [];
	for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
		found.push({ target: m[1], index: m.index });
	}
	for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
		found.push({ target: m[1], index: m.index });
	}
	return found;
}

export function checkLinks({ docs, exists, readText }: LinkInput): Problem[] {
	const problems: Problem[] = [];
	for (const [doc, text] of Object.entries(docs)) {
		for (const { target, index } of linksOf(text)) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
			const line = lineAt(text, index);
			const hash = target.indexOf('#');
			const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
			const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
			const path =
				pathPart === ''
					? doc
					: posix.normalize(posix.join(posix.dirname(doc), pathPart)).replace(/\/$/, '');
			if (path.startsWith('..') || path.startsWith('/') || !exists(path)) {
				problems.push({
					file: doc,
					line,
					rule: 'relative link resolves',
					message: `links to ${target}, but ${path} is not in the repository`,
				});
				continue;
			}
			if (anchor === undefined || !path.endsWith('.md')) continue;
			const markdown = docs[path] ?? readText(path) ?? '';
			const anchors = headingAnchors(markdown);
			if (!anchors.includes(anchor)) {
				problems.push({
					file: doc,
					line,
					rule: 'anchor matches a heading',
					message: `links to ${target}, but ${path} has no heading with the anchor #${anchor}${
						nearest(anchor, anchors) ? ` (did you mean #${nearest(anchor, anchors)}?)` : ''
					}`,
				});
			}
		}
	}
	return problems;
}

/** The anchor sharing the longest start with `anchor`, as a hint. */
function nearest(anchor: string, anchors: string[]): string | undefined {
	let best: string | undefined;
	let bestLength = 2;
	for (const a of anchors) {
		let n = 0;
		while (n < a.length && a[n] === anchor[n]) n++;
		if (n > bestLength) [best, bestLength] = [a, n];
	}
	return best;
}

/** Top-level folders of the repository, and the action node's folders that the docs name from inside it. */
const TOP_FOLDERS = [
	'credentials',
	'nodes',
	'sandbox',
	'scripts',
	'test',
	'bench',
	'docs',
	'examples',
	'openapi',
	'n8n-host',
	'.github',
	'.ci',
];
const NODE_FOLDERS = [
	'actions',
	'engine',
	'writes',
	'transport',
	'validation',
	'webhook',
	'feed',
	'events',
	'methods',
];
export const NODE_DIR = 'nodes/RecruitingAnalysis';

/**
 * Paths quoted as code. Rule: a `code` span that is a path of the repository (it starts with a top-level folder, or
 * with one of the action node's folders, read under nodes/RecruitingAnalysis/; no wildcard, no spaces) names a file
 * or folder that exists. Bare file names and paths relative to something else (`src/…` in sandbox/README.md) are
 * not read.
 */
export function checkQuotedPaths({ docs, exists }: Omit<LinkInput, 'readText'>): Problem[] {
	const problems: Problem[] = [];
	const pattern = new RegExp(
		`\`((?:${[...TOP_FOLDERS, ...NODE_FOLDERS].map((f) => f.replace('.', '\\.')).join('|')})/[^\`\\s*…<]*)\``,
		'g',
	);
	for (const [doc, text] of Object.entries(docs)) {
		for (const m of text.matchAll(pattern)) {
			const quoted = m[1].replace(/[:#].*$/, '').replace(/\/$/, '');
			const path = NODE_FOLDERS.some((f) => `${quoted}/`.startsWith(`${f}/`))
				? `${NODE_DIR}/${quoted}`
				: quoted;
			if (!exists(path)) {
				problems.push({
					file: doc,
					line: lineAt(text, m.index),
					rule: 'quoted path exists',
					message: `names \`${m[1]}\`, but ${path} is not in the repository`,
				});
			}
		}
	}
	return problems;
}
