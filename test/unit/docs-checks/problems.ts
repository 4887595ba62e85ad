/**
 * What every docs check returns: the problems it found, each naming the file, the line (from 1) and the rule, so
 * that a failure says where to look and what is wrong. Every check is a function of strings (the documents'
 * text, the code's values), so the tests of the checks feed them wrong documents without touching a tracked file.
 */
export interface Problem {
	file: string;
	line: number;
	rule: string;
	message: string;
}

/** `file:line [rule] message`: how a problem reads in a test's failure. */
export const formatProblem = (p: Problem): string => `${p.file}:${p.line} [${p.rule}] ${p.message}`;

/** The line (from 1) of a character offset in a text. */
export function lineAt(text: string, index: number): number {
	let line = 1;
	for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
	return line;
}

/**
 * The text with fenced code blocks and inline code spans blanked (replaced by spaces, line breaks kept), so that
 * offsets and line numbers still point into the original, and a link or a name shown as code is not read as prose.
 */
export function proseOnly(text: string, { keepCodeSpans = false } = {}): string {
	const blank = (s: string) => s.replace(/[^\n]/g, ' ');
	let out = text.replace(/^( {0,3})(```|~~~)[^\n]*\n[^]*?^\1\2[^\n]*$/gm, blank);
	// Indented code blocks (four spaces after a blank line) are commands, not prose.
	out = out.replace(
		/(^|\n\n)((?: {4}|\t)[^\n]*(?:\n(?: {4}|\t)[^\n]*)*)/g,
		(_m, lead: string, block: string) => lead + blank(block),
	);
	if (!keepCodeSpans) out = out.replace(/`[^`\n]+`/g, blank);
	return out;
}
