/**
 * `npm run measure:code`: the size of the published code (nodes/ and credentials/), printed as the table
 * CONTRIBUTING.md shows under "Code size". `--json` prints the same figures as JSON.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface CommentCount {
	characters: number;
	commentCharacters: number;
	commentLines: number;
	lines: number;
}

/** Every `//` and `/* *\/` comment of a TypeScript source, found by the parser (so never inside a string or regex). */
export function commentRanges(source: string): ts.CommentRange[] {
	const file = ts.createSourceFile('measured.ts', source, ts.ScriptTarget.Latest, false);
	const found = new Map<number, ts.CommentRange>();
	// Comments sit only in the trivia around nodes and node lists; a leading scan skips those on the same line.
	const at = (pos: number) => {
		for (const range of [
			...(ts.getLeadingCommentRanges(source, pos) ?? []),
			...(ts.getTrailingCommentRanges(source, pos) ?? []),
		]) {
			found.set(range.pos, range);
		}
	};
	const visit = (node: ts.Node) => {
		at(node.pos);
		at(node.end);
		ts.forEachChild(node, visit, (nodes) => {
			at(nodes.pos);
			at(nodes.end);
			nodes.forEach(visit);
		});
	};
	visit(file);
	return [...found.values()].sort((a, b) => a.pos - b.pos);
}

export function countComments(source: string): CommentCount {
	const ranges = commentRanges(source);
	const commentLineNumbers = new Set<number>();
	let commentCharacters = 0;
	for (const { pos, end } of ranges) {
		commentCharacters += end - pos;
		const first = source.slice(0, pos).split('\n').length;
		const last = first + source.slice(pos, end).split('\n').length - 1;
		for (let line = first; line <= last; line++) commentLineNumbers.add(line);
	}
	return {
		characters: source.length,
		commentCharacters,
		commentLines: commentLineNumbers.size,
		lines: countLines(source),
	};
}

/** Lines as `wc -l` counts them: a last line without a newline still counts. */
export function countLines(source: string): number {
	if (source === '') return 0;
	return source.split('\n').length - (source.endsWith('\n') ? 1 : 0);
}

/** The module specifiers a source imports or re-exports, type-only and `import('…')` types included. */
export function importSpecifiers(source: string): string[] {
	const file = ts.createSourceFile('measured.ts', source, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node) => {
		if (
			(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
			node.moduleSpecifier &&
			ts.isStringLiteral(node.moduleSpecifier)
		) {
			found.push(node.moduleSpecifier.text);
		} else if (
			ts.isImportTypeNode(node) &&
			ts.isLiteralTypeNode(node.argument) &&
			ts.isStringLiteral(node.argument.literal)
		) {
			found.push(node.argument.literal.text);
		} else if (
			ts.isCallExpression(node) &&
			(node.expression.kind === ts.SyntaxKind.ImportKeyword ||
				(ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
			node.arguments.length === 1 &&
			ts.isStringLiteralLike(node.arguments[0])
		) {
			found.push(node.arguments[0].text);
		} else if (
			ts.isImportEqualsDeclaration(node) &&
			ts.isExternalModuleReference(node.moduleReference)
		) {
			const expression = node.moduleReference.expression;
			if (ts.isStringLiteralLike(expression)) found.push(expression.text);
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

function resolveRelative(fromFile: string, specifier: string): string {
	const base = resolve(dirname(fromFile), specifier);
	const candidates = [base, `${base}.ts`, join(base, 'index.ts')];
	const hit = candidates.find((path) => existsSync(path) && statSync(path).isFile());
	if (!hit) throw new Error(`${fromFile} imports "${specifier}", which resolves to no file`);
	return hit;
}

/** The repository's own files `entry` pulls in, transitively through relative imports (the entry not counted). */
export function ownImports(
	entry: string,
	read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string[] {
	const seen = new Set<string>([entry]);
	const queue = [entry];
	while (queue.length > 0) {
		const file = queue.shift() as string;
		for (const specifier of importSpecifiers(read(file))) {
			if (!specifier.startsWith('.')) continue;
			const target = resolveRelative(file, specifier);
			if (seen.has(target)) continue;
			seen.add(target);
			queue.push(target);
		}
	}
	seen.delete(entry);
	return [...seen].sort();
}

/** The versions a node description declares (`version: 1` or `version: [1, 2]`). */
export function versionsOf(description: { version: number | number[] }): number[] {
	return Array.isArray(description.version) ? [...description.version] : [description.version];
}

function tsFiles(dir: string): string[] {
	const found: string[] = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found.push(...tsFiles(path));
		else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path);
	}
	return found;
}

export interface CodeSize {
	files: number;
	lines: number;
	commentLines: number;
	commentShare: number;
	analyzeResumeOwnFiles: number;
	analyzeResumeOwnLines: number;
	versions: Record<string, number[]>;
}

export const ANALYZE_RESUME_OPERATION =
	'nodes/RecruitingAnalysis/actions/analysis/analyzeResume.operation.ts';

async function nodeVersions(root: string, files: string[]): Promise<Record<string, number[]>> {
	const versions: Record<string, number[]> = {};
	for (const file of files.filter((path) => path.endsWith('.node.ts'))) {
		const module = (await import(file)) as Record<string, unknown>;
		for (const [name, exported] of Object.entries(module)) {
			if (typeof exported !== 'function') continue;
			const instance = new (
				exported as new () => { description?: { version: number | number[] } }
			)();
			if (instance.description)
				versions[`${name} (${relative(root, file)})`] = versionsOf(instance.description);
		}
	}
	return versions;
}

export async function measure(root: string): Promise<CodeSize> {
	const files = ['nodes', 'credentials'].flatMap((dir) => tsFiles(join(root, dir)));
	let lines = 0;
	let commentLines = 0;
	let characters = 0;
	let commentCharacters = 0;
	for (const file of files) {
		const count = countComments(readFileSync(file, 'utf8'));
		lines += count.lines;
		commentLines += count.commentLines;
		characters += count.characters;
		commentCharacters += count.commentCharacters;
	}
	const pulled = ownImports(join(root, ANALYZE_RESUME_OPERATION));
	return {
		files: files.length,
		lines,
		commentLines,
		commentShare: commentCharacters / characters,
		analyzeResumeOwnFiles: pulled.length,
		analyzeResumeOwnLines: pulled.reduce(
			(sum, file) => sum + countLines(readFileSync(file, 'utf8')),
			0,
		),
		versions: await nodeVersions(root, files),
	};
}

export function table(size: CodeSize): string {
	const number = (value: number) => value.toLocaleString('en-US');
	const rows = [
		['lines of nodes/ and credentials/ (.ts)', number(size.lines), 'at most 10,000'],
		['files', number(size.files), ''],
		[
			'comments, share of characters',
			`${(size.commentShare * 100).toFixed(1)} % (${number(size.commentLines)} lines)`,
			'at most 10 %',
		],
		[
			"own files Analyze Resume's operation pulls in",
			`${size.analyzeResumeOwnFiles} (${number(size.analyzeResumeOwnLines)} lines)`,
			'at most 25',
		],
		...Object.entries(size.versions).map(([node, versions]) => [
			`versions of ${node}`,
			`${versions.length} (${versions.map((v) => `version ${v}`).join(', ')})`,
			'one',
		]),
	];
	return [
		'| measure | figure | target |',
		'|---|---|---|',
		...rows.map((row) => `| ${row.join(' | ')} |`),
	].join('\n');
}

if (require.main === module) {
	const root = join(__dirname, '..');
	measure(root)
		.then((size) => {
			console.log(process.argv.includes('--json') ? JSON.stringify(size, null, 2) : table(size));
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exitCode = 1;
		});
}
