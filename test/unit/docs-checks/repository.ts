/** The documents the docs checks read, as they are in the repository now (never a copy kept beside the tests). */
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
export const repoPathExists = (path: string): boolean => existsSync(join(ROOT, path));

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
