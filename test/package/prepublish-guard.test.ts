/**
 * `npm publish` is refused outside the publish workflow (scripts/prepublish-guard.mjs as `prepublishOnly`): on a
 * laptop, in another workflow, or for a tag that is not package.json's version. Runs the guard as npm does, with
 * only the GitHub Actions variables under test set.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');
const GUARD = join(REPO_ROOT, 'scripts', 'prepublish-guard.mjs');
const VERSION = (
	JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** The environment without any GitHub Actions variable, plus `vars`. */
function envWith(vars: Record<string, string>): NodeJS.ProcessEnv {
	const env = Object.fromEntries(
		Object.entries(process.env).filter(([k]) => !k.startsWith('GITHUB_')),
	);
	return { ...env, ...vars };
}

function guard(vars: Record<string, string>) {
	const res = spawnSync(process.execPath, [GUARD], { env: envWith(vars), encoding: 'utf8' });
	return { status: res.status, stderr: res.stderr };
}

const inPublishWorkflow = {
	GITHUB_ACTIONS: 'true',
	GITHUB_WORKFLOW_REF: `recruiting-analysis/n8n-nodes-recruiting-analysis/.github/workflows/publish.yml@refs/tags/v${VERSION}`,
	GITHUB_REF_TYPE: 'tag',
	GITHUB_REF_NAME: `v${VERSION}`,
};

describe('prepublishOnly', () => {
	test('refuses a publish outside GitHub Actions', () => {
		const { status, stderr } = guard({});
		expect(status).toBe(1);
		expect(stderr).toContain('publish refused: npm publish runs only in GitHub Actions');
	});

	test('refuses a publish from another workflow (CI on a branch)', () => {
		const { status, stderr } = guard({
			...inPublishWorkflow,
			GITHUB_WORKFLOW_REF:
				'recruiting-analysis/n8n-nodes-recruiting-analysis/.github/workflows/ci.yml@refs/heads/main',
		});
		expect(status).toBe(1);
		expect(stderr).toContain('only in the publish workflow for a tag');
	});

	test("refuses a tag that is not package.json's version", () => {
		const { status, stderr } = guard({ ...inPublishWorkflow, GITHUB_REF_NAME: 'v99.0.0' });
		expect(status).toBe(1);
		expect(stderr).toContain(`the tag v99.0.0 does not match package.json's version ${VERSION}`);
	});

	test('lets the publish workflow publish the tagged version', () => {
		expect(guard(inPublishWorkflow)).toEqual({ status: 0, stderr: '' });
	});

	// npm publish runs the prepublishOnly script before packing (npm publish --dry-run skips it, so it is run by name).
	test("is package.json's prepublishOnly script: run as npm runs it on this machine, it refuses", () => {
		const res = spawnSync('npm', ['run', 'prepublishOnly'], {
			cwd: REPO_ROOT,
			env: envWith({}),
			encoding: 'utf8',
		});
		expect(res.status).not.toBe(0);
		expect(res.stderr).toContain(
			'prepublishOnly: publish refused: npm publish runs only in GitHub Actions',
		);
	});
});
