/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json', diagnostics: false }],
	},
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/e2e/'],
	moduleFileExtensions: ['ts', 'js', 'json'],
	testTimeout: 60000,
	maxWorkers: 2,
	globalSetup: '<rootDir>/test/tmp-root-setup.js',
	globalTeardown: '<rootDir>/test/tmp-root-teardown.js',
};
