/**
 * Every folder of the action node is named in docs/architecture.md, so the map cannot drift from the tree. No
 * line cap: cohesion decides where a file ends.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

describe('the layout', () => {
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
