/**
 * docs/install.md's manual install, run as written: `npm install --omit=peer --ignore-scripts ...` in an empty
 * `<user folder>/.n8n/nodes` (the packed tarball stands in for the registry name). Only the package lands there:
 * no n8n-workflow or zod beside it, so the nodes use n8n's own. Needs the build (`npm run build`) to pack.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');
const DOCS = readFileSync(join(REPO_ROOT, 'docs', 'install.md'), 'utf8');

let work: string;

beforeAll(() => {
	if (!existsSync(join(REPO_ROOT, 'dist', 'nodes')))
		throw new Error('dist/ is missing: run npm run build before this test');
	work = mkdtempSync(join(tmpdir(), 'ra-manual-install-'));
});

afterAll(() => {
	if (work) rmSync(work, { recursive: true, force: true });
});

test("docs/install.md's npm command installs the package alone into nodes/", () => {
	// The command as the documentation gives it, with the registry name and version replaced by the tarball.
	const documented =
		/npm install (--omit=peer --ignore-scripts --no-audit --no-fund) n8n-nodes-recruiting-analysis@\S+/.exec(
			DOCS,
		);
	expect(documented).not.toBeNull();
	const flags = documented![1].split(' ');

	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: REPO_ROOT,
		stdio: 'pipe',
	});
	const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
	expect(tarball).toBeDefined();

	const nodesDir = join(work, 'home', '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	execFileSync('npm', ['install', ...flags, join(work, tarball!)], {
		cwd: nodesDir,
		stdio: 'pipe',
	});

	expect(readdirSync(join(nodesDir, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual([
		'n8n-nodes-recruiting-analysis',
	]);
	const installed = join(nodesDir, 'node_modules', 'n8n-nodes-recruiting-analysis');
	const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
		expect(existsSync(join(installed, file))).toBe(true);
	}
	expect(existsSync(join(installed, 'node_modules'))).toBe(false);
}, 120_000);
