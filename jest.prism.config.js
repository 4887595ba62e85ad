/**
 * The action node's tests again, with Stoplight Prism's validating proxy between the node and the sandbox
 * (RA_PRISM=1, see test/helpers/prism.ts): every request and answer is checked against openapi/openapi.yaml, and a
 * violation fails the test that caused it. `npx jest -c jest.prism.config.js`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

process.env.RA_PRISM = '1';

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/nodes/action/**/*.test.ts'],
	testPathIgnorePatterns: [
		...base.testPathIgnorePatterns,
		// Lost answers are injected by dropping the connection after the commit; a proxy cannot pass a dropped
		// connection on (Prism answers 500 instead), so these tests prove nothing through it and run direct only.
		'<rootDir>/test/nodes/action/retries.test.ts',
		// No API traffic: the node's own input validation and its description.
		'<rootDir>/test/nodes/action/validation.test.ts',
		'<rootDir>/test/nodes/action/description.test.ts',
	],
	setupFilesAfterEnv: ['<rootDir>/test/helpers/prism-setup.ts'],
};
