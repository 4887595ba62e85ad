/**
 * The layout docs/architecture.md describes holds: no source file over 400 lines outside tests and fixtures, and
 * every folder of the action node named in docs/architecture.md (so the map cannot drift from the tree).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const SOURCE_ROOTS = ['nodes', 'credentials', 'sandbox', 'scripts', 'bench'];
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
	const found: string[] = [];
	for (const name of readdirSync(dir)) {
		if (name === 'node_modules' || name === 'out' || name === 'fixtures') continue;
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
		else if (/\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
	}
	return found;
}

describe('the layout', () => {
	it(`has no source file over ${MAX_LINES} lines outside tests and fixtures`, () => {
		const files = SOURCE_ROOTS.flatMap((dir) => sourceFiles(join(root, dir)));
		expect(files.length).toBeGreaterThan(50);
		const long = files
			.map((file) => ({
				file: relative(root, file),
				lines: readFileSync(file, 'utf8').split('\n').length - 1,
			}))
			.filter(({ lines }) => lines > MAX_LINES);
		expect(long).toEqual([]);
	});

	it('names every folder of the action node in docs/architecture.md', () => {
		const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
		const nodeDir = join(root, 'nodes', 'RecruitingAnalysis');
		const folders = readdirSync(nodeDir).filter((name) =>
			statSync(join(nodeDir, name)).isDirectory(),
		);
		const actionFolders = readdirSync(join(nodeDir, 'actions')).filter((name) =>
			statSync(join(nodeDir, 'actions', name)).isDirectory(),
		);
		expect(folders).toContain('engine');
		const missing = [
			...folders.map((name) => `${name}/`),
			...actionFolders.map((name) => (name === 'common' ? 'actions/common/' : name)),
		].filter((name) => !doc.includes(name));
		expect(missing).toEqual([]);
		expect(actionFolders).not.toContain('shared');
	});
});
