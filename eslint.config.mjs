// What ships (nodes/, credentials/, package.json) is linted with n8n's own community-node config, exactly as
// `@n8n/node-cli` exports it (`config`: the rules n8n Cloud verification asks for, the same `n8n-node lint` applies
// in strict mode); everything else (sandbox/, test/, scripts/, bench/, root tooling) with eslint.dev.config.mjs.
// package.json's n8n.strict is false because strict mode requires this file to be n8n's two-line default, and that
// default lints every .ts file in the folder, tests and sandbox included, with the rules for node code.
import { defineConfig, globalIgnores } from 'eslint/config';
import { config as n8nCommunityNodeConfig } from '@n8n/node-cli/eslint';
import devConfig from './eslint.dev.config.mjs';

const shipped = ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'];

export default defineConfig(
	globalIgnores([
		'dist/**',
		'node_modules/**',
		'coverage/**',
		'bench/out/**',
		'test/e2e/artifacts/**',
		'.n8n-runs/**',
		// Stryker's copies of the project while a mutation run is going (npm run test:mutation).
		'.stryker-tmp/**',
		'**/*.d.ts',
	]),
	{ files: shipped, extends: [n8nCommunityNodeConfig] },
	{ ignores: shipped, extends: [devConfig] },
);
