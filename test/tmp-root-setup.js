const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/**
 * jest.config.js's globalSetup: one temporary folder per jest run, named by RA_TEST_TMP to the workers (they inherit
 * the environment). The engine harness keeps each test file's n8n user folder and binary stores below it
 * (test/helpers/engine/environment.ts); test/tmp-root-teardown.js removes it when the run ends, so no test file
 * leaves a folder behind even when jest ends its workers without their exit handlers running.
 */
module.exports = () => {
	process.env.RA_TEST_TMP = mkdtempSync(join(tmpdir(), 'ra-jest-'));
};
