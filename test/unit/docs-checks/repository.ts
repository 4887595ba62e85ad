/** The documents the docs checks read, as they are in the repository now (never a copy kept beside the tests). */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');

/** Every document a user or contributor reads: the README, CONTRIBUTING, the CHANGELOG, docs/ and two READMEs. */
export const DOC_PATHS = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.sort()
		.map((f) => `docs/${f}`),
	'examples/README.md',
	'sandbox/README.md',
];

export const readDocs = (): Record<string, string> =>
	Object.fromEntries(DOC_PATHS.map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]));

/** A repository file's bytes, or undefined when there is no such file. */
export function readRepoFile(path: string): Buffer | undefined {
	const full = join(ROOT, path);
	return existsSync(full) && statSync(full).isFile() ? readFileSync(full) : undefined;
}

/** Whether a path names a file or a folder of the repository. */
/**
 * Whether a path is in the repository: a file git tracks (or a folder holding one), or a folder .gitignore names
 * whole (one the tools make, such as the browser tests' artifacts). Without git, whether it exists on disk.
 */
export function repoPathExists(path: string): boolean {
	const p = path.replace(/\/+$/, '');
	const known = repositoryPaths();
	return known ? known.has(p) : existsSync(join(ROOT, p));
}

let paths: Set<string> | undefined | null = null;
function repositoryPaths(): Set<string> | undefined {
	if (paths !== null) return paths;
	try {
		const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
			.split('\n')
			.filter(Boolean);
		paths = new Set<string>();
		for (const file of files) {
			const parts = file.split('/');
			for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('/'));
		}
		for (const line of (readRepoFile('.gitignore')?.toString('utf8') ?? '').split('\n')) {
			const entry = line.trim().replace(/^\//, '').replace(/\/+$/, '');
			if (entry && !entry.startsWith('#') && !/[*?[!]/.test(entry)) paths.add(entry);
		}
	} catch {
		paths = undefined;
	}
	return paths;
}

/** The node names of every example workflow (examples/*.json), as the docs quote them. */
export function exampleNodeNames(): string[] {
	return readdirSync(join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.flatMap((f) =>
			(
				JSON.parse(readFileSync(join(ROOT, 'examples', f), 'utf8')) as {
					nodes: Array<{ name: string }>;
				}
			).nodes.map((n) => n.name),
		);
}
