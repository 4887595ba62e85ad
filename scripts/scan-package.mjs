/**
 * `npm run scan:package`: the lint half of n8n's community-package scanner (`@n8n/scan-community-package`, whose
 * ESLint set-up this mirrors) run on this repository before anything is published: the packed tarball's compiled
 * `.js` and package.json, then the sources the scanner reads from the commit a package's provenance names
 * (package.json and nodes/, credentials/). Inline `eslint-disable` comments are ignored, as the scanner ignores
 * them. The scanner's other checks need a published version (npm provenance, the attested source fetched from
 * GitHub), so they run only after a publish: `npx @n8n/scan-community-package n8n-nodes-recruiting-analysis`.
 *
 * Usage: node scripts/scan-package.mjs [tarball]   (without a tarball: `npm pack` of the current build)
 * Exit code 0 when both passes find no error, 1 otherwise (the ESLint report is printed).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import { ESLint } from 'eslint';
import { defineConfig } from 'eslint/config';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import glob from 'fast-glob';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The scanner's flat config: community-node rules, no console, n8n-nodes-base's three rulesets. */
function scanConfig() {
	return defineConfig(
		n8nCommunityNodesPlugin.configs.recommended,
		{ rules: { 'no-console': 'error' } },
		{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
		{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
		{
			files: ['**/credentials/**/*.ts'],
			rules: {
				...n8nNodesBase.configs.credentials.rules,
				'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
				'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
			},
		},
		{
			files: ['**/nodes/**/*.ts'],
			rules: {
				...n8nNodesBase.configs.nodes.rules,
				'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
				'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
				'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
			},
		},
		{ files: ['**/*.json'], languageOptions: { parser: tsParser } },
		{ files: ['**/*.ts'], languageOptions: { parser: tsParser } },
	);
}

/** Lints `patterns` under `dir` as the scanner does; returns the number of files with errors. */
async function lintDir(label, dir, patterns) {
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: scanConfig(),
	});
	const files = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	if (files.length === 0)
		throw new Error(`${label}: no files matched ${patterns.join(', ')} in ${dir}`);
	const results = await eslint.lintFiles(files);
	const failed = results.filter((r) => r.errorCount > 0);
	if (failed.length > 0) {
		const formatter = await eslint.loadFormatter('stylish');
		process.stdout.write(await formatter.format(results));
	}
	process.stdout.write(`${label}: ${files.length} files scanned, ${failed.length} with errors\n`);
	return failed.length;
}

const work = mkdtempSync(join(tmpdir(), 'ra-scan-'));
try {
	let tarball = process.argv[2] ? resolve(process.argv[2]) : undefined;
	if (!tarball) {
		execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
			cwd: REPO_ROOT,
			stdio: ['ignore', 'ignore', 'inherit'],
		});
		const packed = readdirSync(work).find((f) => f.endsWith('.tgz'));
		if (!packed) throw new Error('npm pack wrote no tarball');
		tarball = join(work, packed);
	}
	const unpacked = join(work, 'package');
	execFileSync('tar', ['-xzf', tarball, '-C', work]);
	const failures =
		(await lintDir('tarball (compiled .js and package.json)', unpacked, [
			'**/*.js',
			'package.json',
		])) +
		(await lintDir('sources (package.json, nodes/, credentials/)', REPO_ROOT, [
			'package.json',
			'{nodes,credentials}/**/*.{js,ts,json}',
		]));
	process.exitCode = failures > 0 ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
