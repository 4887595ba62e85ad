/**
 * The fault and abuse suite (issues 7 and 11): `npm run test:faults`. Files are `test/faults/*.faults.ts` (not
 * `*.test.ts`, so plain `jest` leaves them out). F3/F4 and F8 boot a real n8n: the global setup makes sure n8n
 * 2.41.1 is installed and packs this package once (RA_E2E_TARBALL reuses a tarball). The figures of a run go to a
 * temporary folder; `npm run report:faults` runs the suite and renders test/faults/REPORT.md from them.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true, diagnostics: false }],
	},
	testMatch: ['<rootDir>/test/faults/**/*.faults.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/'],
	moduleFileExtensions: ['ts', 'js', 'json'],
	testTimeout: 600000,
	maxWorkers: 1,
	globalSetup: '<rootDir>/test/faults/global-setup.ts',
	globalTeardown: '<rootDir>/test/faults/global-teardown.ts',
};
