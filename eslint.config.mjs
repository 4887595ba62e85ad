// Flat ESLint config. What ships (nodes/, credentials/, package.json) gets n8n's community-node rules: the
// `eslint-plugin-n8n-nodes-base` community / credentials / nodes configs on their files and the recommended preset
// of `@n8n/eslint-plugin-community-nodes` (the rules of n8n's verified-node scan). Everything TypeScript also gets
// typescript-eslint's recommended rules.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const shipped = ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'];

export default tseslint.config(
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'coverage/**',
			'bench/out/**',
			'test/e2e/artifacts/**',
			'.n8n-runs/**',
			'**/*.d.ts',
		],
	},

	// TypeScript everywhere (nodes, credentials, sandbox, tests, scripts, benchmarks).
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		languageOptions: { globals: { ...globals.node } },
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},

	// Plain JavaScript at the root (gulpfile, index.js, jest.config.js) is CommonJS run by Node.
	{
		files: ['**/*.js', '**/*.cjs'],
		extends: [js.configs.recommended],
		languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
	},
	{
		files: ['**/*.mjs'],
		extends: [js.configs.recommended],
		languageOptions: { sourceType: 'module', globals: { ...globals.node } },
	},

	// package.json is parsed as an ESTree object (the community rules read ObjectExpression nodes).
	{
		files: ['package.json'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Community credentials link to their own documentation, not to docs.n8n.io slugs.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These three contradict n8n's newer rules (community `node-connection-type-literal` requires
			// NodeConnectionTypes.Main instead of 'main'; maxValue on limits is fine) and n8n's own node-cli
			// eslint config switches them off for the same reason.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},

	// n8n's community-node rules (verified-node scan) on everything that ships.
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: shipped,
	},
);
