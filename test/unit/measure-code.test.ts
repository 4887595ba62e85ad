/**
 * The counting of scripts/measure-code.ts on sources written here, not on the repository's own figures.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	countComments,
	countLines,
	importSpecifiers,
	ownImports,
	table,
	versionsOf,
} from '../../scripts/measure-code';

const SOURCE = [
	'// one',
	"const url = 'http://example.com/*not*/'; // two",
	'/* three',
	'   four */',
	'const pattern = /\\/\\/ no/;',
	'const text = `// not ${url /* five */} either`;',
	'/** six */',
	'export const x = 1;',
	'',
].join('\n');

describe('measure-code', () => {
	it('counts // and /* */ comments by their characters and lines, not strings, regexes or templates', () => {
		const count = countComments(SOURCE);
		const comments = ['// one', '// two', '/* three\n   four */', '/* five */', '/** six */'];
		expect(count.commentCharacters).toBe(comments.join('').length);
		expect(count.commentLines).toBe(6);
		expect(count.lines).toBe(8);
		expect(count.characters).toBe(SOURCE.length);
	});

	it('counts a comment at the end of a file and a file of only comments', () => {
		expect(countComments('const a = 1;\n// last').commentCharacters).toBe('// last'.length);
		expect(countComments('/* a */ // b\n').commentCharacters).toBe('/* a */// b'.length);
		expect(countComments('').commentCharacters).toBe(0);
		const inside =
			'function f() {\n\t// empty\n}\ncall(/* arg */ 1, 2); // after\nconst t = { a: 1 /* in */ };\n';
		expect(countComments(inside).commentCharacters).toBe(
			'// empty/* arg */// after/* in */'.length,
		);
	});

	it('counts lines as wc -l does, with or without a last newline', () => {
		expect(countLines('a\nb\n')).toBe(2);
		expect(countLines('a\nb')).toBe(2);
		expect(countLines('')).toBe(0);
	});

	it('finds value, type-only, re-exported and import() type specifiers', () => {
		const source = [
			"import { a } from './a';",
			"import type { B } from '../b';",
			"export { c } from './c';",
			"export * from './d';",
			"type E = import('./e').E;",
			"import { IExecuteFunctions } from 'n8n-workflow';",
			"const f = require('./f');",
			'const s = "import { g } from \'./g\'";',
		].join('\n');
		expect(importSpecifiers(source)).toEqual([
			'./a',
			'../b',
			'./c',
			'./d',
			'./e',
			'n8n-workflow',
			'./f',
		]);
	});

	describe('ownImports', () => {
		let dir: string;
		beforeEach(() => {
			dir = mkdtempSync(join(tmpdir(), 'ra-measure-code-'));
		});
		afterEach(() => {
			rmSync(dir, { recursive: true, force: true });
		});

		it('walks relative imports transitively, once each, through index files and type imports', () => {
			mkdirSync(join(dir, 'lib'));
			writeFileSync(
				join(dir, 'entry.ts'),
				"import { a } from './a';\nimport type { L } from './lib';\nimport 'zod';\n",
			);
			writeFileSync(join(dir, 'a.ts'), "export { b } from './b';\nimport './entry';\n");
			writeFileSync(
				join(dir, 'b.ts'),
				"import type { L } from './lib/index';\nexport const b = 1;\n",
			);
			writeFileSync(join(dir, 'lib', 'index.ts'), 'export type L = 1;\n');
			writeFileSync(join(dir, 'unused.ts'), 'export const u = 1;\n');
			expect(ownImports(join(dir, 'entry.ts'))).toEqual(
				[join(dir, 'a.ts'), join(dir, 'b.ts'), join(dir, 'lib', 'index.ts')].sort(),
			);
		});

		it('fails naming the file and the import that resolves to nothing', () => {
			writeFileSync(join(dir, 'entry.ts'), "import { a } from './gone';\n");
			expect(() => ownImports(join(dir, 'entry.ts'))).toThrow(/entry\.ts imports "\.\/gone"/);
		});
	});

	it('reads one or several versions and prints them in the table', () => {
		expect(versionsOf({ version: 2 })).toEqual([2]);
		expect(versionsOf({ version: [1, 1.1] })).toEqual([1, 1.1]);
		const printed = table({
			files: 3,
			lines: 12345,
			commentLines: 40,
			commentShare: 0.0825,
			analyzeResumeOwnFiles: 7,
			analyzeResumeOwnLines: 900,
			versions: { Node: [1, 2] },
		});
		expect(printed).toContain(
			'| lines of nodes/ and credentials/ (.ts) | 12,345 | at most 10,000 |',
		);
		expect(printed).toContain(
			'| comments, share of characters | 8.3 % (40 lines) | at most 10 % |',
		);
		expect(printed).toContain('| 7 (900 lines) |');
		expect(printed).toContain('| versions of Node | 2 (version 1, version 2) |');
	});
});
