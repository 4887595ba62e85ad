/**
 * `prepublishOnly`: `npm publish` goes ahead only inside this repository's publish workflow
 * (.github/workflows/publish.yml) running for a version tag that matches package.json's version. n8n's scanner
 * refuses a package without npm provenance, and only that workflow publishes with it (npm trusted publishing);
 * a publish from a laptop would put a version on the registry that n8n cannot verify.
 *
 * Reads GitHub Actions' own variables: GITHUB_ACTIONS, GITHUB_WORKFLOW_REF ("owner/repo/.github/workflows/
 * publish.yml@refs/tags/v1.2.3"), GITHUB_REF_TYPE and GITHUB_REF_NAME. Exit code 1 with the reason otherwise.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why a publish in environment `env` for package version `version` is refused, or undefined when it may go. */
export function refusal(env, version) {
	if (env.GITHUB_ACTIONS !== 'true') {
		return (
			'npm publish runs only in GitHub Actions (.github/workflows/publish.yml on a version tag), not on this machine: push the tag v' +
			version
		);
	}
	const workflowRef = env.GITHUB_WORKFLOW_REF ?? '';
	if (!/^[^/]+\/[^/]+\/\.github\/workflows\/publish\.yml@refs\/tags\//.test(workflowRef)) {
		return `npm publish runs only in the publish workflow for a tag (.github/workflows/publish.yml@refs/tags/v…), not in ${workflowRef || 'an unnamed workflow'}`;
	}
	if (env.GITHUB_REF_TYPE !== 'tag' || env.GITHUB_REF_NAME !== `v${version}`) {
		return `the tag ${env.GITHUB_REF_NAME ?? '(none)'} does not match package.json's version ${version} (expected v${version})`;
	}
	return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const pkg = JSON.parse(
		readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8'),
	);
	const reason = refusal(process.env, pkg.version);
	if (reason) {
		process.stderr.write(`prepublishOnly: publish refused: ${reason}\n`);
		process.exitCode = 1;
	}
}
