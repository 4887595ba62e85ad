/**
 * The jest configuration Stryker runs (stryker.config.mjs): jest.config.js, limited to the test files of the group
 * being mutated (RA_MUTATION_TESTS, set by test/mutation/run.ts), one worker per Stryker process. The global setup
 * and teardown are jest.config.js's: each Stryker sandbox folder gets its own temporary root for the n8n user folders.
 */
const base = require('../../jest.config.js');

const tests = (process.env.RA_MUTATION_TESTS ?? '').split(',').filter(Boolean);
if (tests.length === 0)
	throw new Error('RA_MUTATION_TESTS names no test files (run npm run test:mutation)');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	rootDir: '../..',
	testMatch: tests.map((t) =>
		t.endsWith('.ts') ? `<rootDir>/${t}` : `<rootDir>/${t}/**/*.test.ts`,
	),
	maxWorkers: 1,
};
