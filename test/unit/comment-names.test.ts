/**
 * Every file a comment names exists, and so does the function, class or constant named right after it
 * (`engine/run.ts runNode`), in nodes/, credentials/, sandbox/, scripts/ and test/. A path is read from the
 * repository's root, the action node's folder, or the commenting file's folder and those above it; a bare file name
 * may be anywhere in the repository.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

import { commentRanges } from '../../scripts/measure-code';

const root = join(__dirname, '..', '..');
const SCANNED = ['nodes', 'credentials', 'sandbox', 'scripts', 'test'];
const NODE_FOLDER = join(root, 'nodes', 'RecruitingAnalysis');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', 'out']);

// A file name, optionally with folders, and the identifier right after it.
const NAMED =
	/(?<![\w./*<>{}$@:-])((?:\.{1,2}\/)*(?:[\w-][\w.-]*\/)*[\w-][\w.-]*\.(?:ts|js|mjs|cjs|json|md|yaml|yml))(?![\w/-])(?:\s+`?([A-Za-z_$][\w$]*))?/g;
// Identifiers, not English words: camelCase, PascalCase with two capitals, CONSTANT_CASE.
const IDENTIFIER =
	/^(?:[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$/;
// n8n's and other packages' own files, named where a comment cites the platform's source.
const OTHER_PACKAGE =
	/n8n-core|n8n-workflow|n8n-nodes-base|@n8n\/|packages\/|n8n\/dist|langchain|Node\.js/;
const NOT_IN_REPOSITORY = new Map([
	[
		'jest-results.json',
		'written into each fault run folder by test/faults/jest-results-reporter.js',
	],
	['nodes/package.json', "the ledger of n8n's community-package folder in a user folder"],
	['state.json', "an example value of the sandbox CLI's --data"],
]);

interface Repository {
	/** The existing files or folders `named` may mean, seen from `file`. */
	resolve(file: string, named: string): string[];
	read(path: string): string;
}

function walk(dir: string): string[] {
	const found: string[] = [];
	for (const name of readdirSync(dir)) {
		if (SKIPPED_FOLDERS.has(name)) continue;
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found.push(...walk(path));
		else found.push(path);
	}
	return found;
}

function repositoryAt(top: string): Repository {
	const byName = new Map<string, string[]>();
	for (const path of walk(top)) {
		byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
	}
	return {
		resolve(file, named) {
			const bases = [top, join(top, 'nodes', 'RecruitingAnalysis')];
			for (let dir = dirname(file); dir.startsWith(top); dir = dirname(dir)) bases.push(dir);
			const found = bases.map((base) => join(base, named)).filter((path) => existsSync(path));
			if (!named.includes('/')) found.push(...(byName.get(named) ?? []));
			return [...new Set(found)];
		},
		read: (path) => readFileSync(path, 'utf8'),
	};
}

/** One line per name a comment of `source` gets wrong, with its file and line. */
function wrongNames(file: string, source: string, repository: Repository): string[] {
	const problems: string[] = [];
	for (const range of commentRanges(source)) {
		const text = source.slice(range.pos, range.end);
		for (const match of text.matchAll(NAMED)) {
			const [, named, identifier] = match;
			const index = match.index ?? 0;
			const where = `${relative(root, file)}:${source.slice(0, range.pos + index).split('\n').length}`;
			if (NOT_IN_REPOSITORY.has(named)) continue;
			if (OTHER_PACKAGE.test(text.slice(Math.max(0, index - 60), index) + named)) continue;
			const found = repository.resolve(file, named);
			if (found.length === 0) {
				problems.push(`${where} names ${named}, which is not in the repository`);
				continue;
			}
			if (!identifier || !IDENTIFIER.test(identifier)) continue;
			const word = new RegExp(`(?<![\\w$])${identifier.replace(/\$/g, '\\$')}(?![\\w$])`);
			const files = found.filter((path) => statSync(path).isFile());
			if (files.length > 0 && !files.some((path) => word.test(repository.read(path)))) {
				problems.push(`${where} names ${named} ${identifier}, which is not in ${named}`);
			}
		}
	}
	return problems;
}

describe('names in comments', () => {
	const repository = repositoryAt(root);

	it('every file and function a comment names exists', () => {
		const files = SCANNED.flatMap((dir) => walk(join(root, dir))).filter((path) =>
			/\.(ts|js|mjs|cjs)$/.test(path),
		);
		expect(files.length).toBeGreaterThan(300);
		const problems = files.flatMap((file) =>
			wrongNames(file, readFileSync(file, 'utf8'), repository),
		);
		expect(problems).toEqual([]);
	});

	it('fails on a missing file, a missing function, and not on strings, other packages or words', () => {
		const file = join(NODE_FOLDER, 'engine', 'example.ts');
		const source = [
			'// The key goes only to its origin (transport/attempt.ts), see run.ts runNode and batch.ts.',
			'// Read from gone/missing.ts, as binary.ts noSuchFunction and errors.ts buildMessage do.',
			"const path = 'also/missing.ts'; // n8n-core requests-response.ts, whose header writes holds it",
			'/** engine/run.ts reads the CHANGELOG.md. */',
		].join('\n');
		expect(wrongNames(file, source, repository)).toEqual([
			'nodes/RecruitingAnalysis/engine/example.ts:2 names gone/missing.ts, which is not in the repository',
			'nodes/RecruitingAnalysis/engine/example.ts:2 names binary.ts noSuchFunction, which is not in binary.ts',
			'nodes/RecruitingAnalysis/engine/example.ts:2 names errors.ts buildMessage, which is not in errors.ts',
		]);
	});
});
