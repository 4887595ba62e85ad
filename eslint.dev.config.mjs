// ESLint rules for what does not ship (sandbox/, test/, scripts/, bench/ and the root tooling files): JavaScript's
// and typescript-eslint's recommended rules. What ships (nodes/, credentials/, package.json) is linted by n8n's own
// community-node config instead; eslint.config.mjs puts the two together, so `eslint .` lints everything.
import js from '@eslint/js';
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
