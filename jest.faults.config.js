/**
 * The fault and abuse suite (issue 7): `npm run test:faults`. Files are `test/faults/*.faults.ts` (not
 * `*.test.ts`, so plain `jest` leaves them out). F3/F4 boot a real n8n: the global setup makes sure n8n
 * 2.41.1 is installed and packs this package once (RA_E2E_TARBALL reuses a tarball); the global teardown
 * renders test/faults/REPORT.md from the figures of the run (test/faults/out/).
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	testMatch: ['<rootDir>/test/faults/**/*.faults.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/'],
	moduleFileExtensions: ['ts', 'js', 'json'],
	testTimeout: 600000,
	maxWorkers: 1,
	globalSetup: '<rootDir>/test/faults/global-setup.ts',
	globalTeardown: '<rootDir>/test/faults/global-teardown.ts',
};
