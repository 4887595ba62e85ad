/**
 * Real-n8n tests (test/e2e): n8n 2.41.1 on Node 24 from the cache that `npm run n8n:setup` fills,
 * our packed tarball installed as a community package, the sandbox on loopback. Serial and slow by nature.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/'],
	moduleFileExtensions: ['ts', 'js', 'json'],
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	testTimeout: 600000,
	maxWorkers: 1,
	verbose: true,
	// No forceExit: every test file stops the n8n and sandbox processes it starts.
};
