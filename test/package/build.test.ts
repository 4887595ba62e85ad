/**
 * The package is built the way n8n's verification asks: `npm run build` and n8n's own CLI (`n8n-node build`,
 * from @n8n/node-cli) write the same dist/, and what `npm pack` takes from it is exactly the compiled nodes and
 * credentials, their codex files and icons. Both builds run in a temporary copy of the repository's files (its
 * node_modules linked in), so the repository's own dist/ is left alone; the copy is removed afterwards.
 */
import { execFileSync } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');
const N8N_NODE = join(REPO_ROOT, 'node_modules', '.bin', 'n8n-node');

let copy: string;

/** Every file under `dir`, relative to `root`, sorted. */
function filesUnder(root: string, dir = root): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true })
		.flatMap((e) =>
			e.isDirectory() ? filesUnder(root, join(dir, e.name)) : [relative(root, join(dir, e.name))],
		)
		.sort();
}

/** The repository's files as git sees them (tracked and new, without ignored ones), copied into `dest`. */
function copyRepository(dest: string) {
	const listed = execFileSync(
		'git',
		['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
		{ cwd: REPO_ROOT },
	)
		.toString()
		.split('\0')
		.filter((f) => f && existsSync(join(REPO_ROOT, f)));
	for (const file of listed) cpSync(join(REPO_ROOT, file), join(dest, file), { recursive: false });
	symlinkSync(join(REPO_ROOT, 'node_modules'), join(dest, 'node_modules'), 'dir');
}

function build(command: string, args: string[]): string[] {
	rmSync(join(copy, 'dist'), { recursive: true, force: true });
	execFileSync(command, args, { cwd: copy, stdio: 'pipe', env: { ...process.env, CI: 'true' } });
	return filesUnder(join(copy, 'dist'));
}

/** What the shipped sources compile to: each nodes/ and credentials/ .ts as .js, codex files and icons as they are. */
function expectedShipped(): string[] {
	return ['nodes', 'credentials']
		.flatMap((dir) => filesUnder(copy, join(copy, dir)))
		.filter((f) => !f.endsWith('.test.ts'))
		.flatMap((f) =>
			f.endsWith('.ts')
				? [f.replace(/\.ts$/, '.js')]
				: /\.(node\.json|svg|png)$/.test(f)
					? [f]
					: [],
		)
		.sort();
}

let npmBuild: string[];
let cliBuild: string[];

beforeAll(() => {
	copy = mkdtempSync(join(tmpdir(), 'ra-build-'));
	copyRepository(copy);
	npmBuild = build('npm', ['run', 'build', '--silent']);
	cliBuild = build(N8N_NODE, ['build']);
}, 180_000);

afterAll(() => {
	if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('the build', () => {
	test('npm run build and n8n-node build write the same dist/ file list', () => {
		expect(cliBuild.length).toBeGreaterThan(0);
		expect(cliBuild).toEqual(npmBuild);
	});

	test('dist/nodes and dist/credentials hold exactly the compiled sources, codex files and icons', () => {
		const shipped = cliBuild.filter((f) => f.startsWith('nodes/') || f.startsWith('credentials/'));
		expect(shipped).toEqual(expectedShipped());
		// Nothing from the tests, sandbox, scripts or benchmarks is compiled into dist/.
		expect(cliBuild.filter((f) => f.endsWith('.js') && !shipped.includes(f))).toEqual([]);
	});

	test('every node and credential package.json names is built, each node next to its codex file', () => {
		const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[]; credentials: string[] };
		};
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			expect(cliBuild).toContain(file.replace(/^dist\//, ''));
		}
		for (const node of manifest.n8n.nodes) {
			expect(cliBuild).toContain(node.replace(/^dist\//, '').replace(/\.js$/, '.json'));
		}
	});

	test('npm pack takes the compiled nodes and credentials and nothing else from dist/', () => {
		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--dry-run', '--json', '--silent'], { cwd: copy }).toString(),
		) as Array<{
			files: Array<{ path: string }>;
		}>;
		const paths = packed.files.map((f) => f.path).sort();
		const fromDist = paths.filter((p) => p.startsWith('dist/')).map((p) => p.slice('dist/'.length));
		expect(fromDist).toEqual(expectedShipped());
		expect(paths.filter((p) => !p.startsWith('dist/'))).toEqual([
			'LICENSE',
			'README.md',
			'package.json',
		]);
	});
});
