// ESLint rules for what does not ship (sandbox/, test/, scripts/, bench/ and the root tooling files): JavaScript's
// and typescript-eslint's recommended rules. What ships (nodes/, credentials/, package.json) is linted by n8n's own
// community-node config instead; eslint.config.mjs puts the two together, so `eslint .` lints everything.
// Tests (test/) also get eslint-plugin-jest's recommended and style rules (no skipped or focused test, no test
// without an assertion, no conditional expect, ...) and typescript-eslint's no-floating-promises: a promise a test
// forgets to await can fail after the test passed, or never.
import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		languageOptions: { globals: { ...globals.node } },
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
			],
		},
	},

	{
		files: ['test/**/*.ts'],
		extends: [jest.configs['flat/recommended'], jest.configs['flat/style']],
		languageOptions: {
			parserOptions: { project: './tsconfig.dev.json', tsconfigRootDir: import.meta.dirname },
		},
		rules: {
			'@typescript-eslint/no-floating-promises': 'error',
			// A skipped or focused test is an error here, not the recommended warning: nothing is skipped.
			'jest/no-disabled-tests': 'error',
			'jest/no-focused-tests': 'error',
			// Assertions made through the project's own helpers count as assertions: each of these asserts
			// (rejects* in test/sandbox expect the refusal; F8's conclude and F9's step assert the case's claims).
			'jest/expect-expect': [
				'error',
				{ assertFunctionNames: ['expect', 'expect*', 'rejects*', 'conclude', 'step'] },
			],
			// test/unit/docs.test.ts registers its checks with `check(name, fn)`, a test of its own.
			'jest/no-standalone-expect': ['error', { additionalTestBlockFunctions: ['check'] }],
			// Titles built by a function (one test per case of a table) are strings at run time.
			'jest/valid-title': ['error', { ignoreTypeOfTestName: true }],
		},
	},

	// Plain JavaScript (jest configs, test/n8n-lines.js, .prettierrc.js) is CommonJS run by Node.
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
);
