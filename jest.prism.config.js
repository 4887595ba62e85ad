/**
 * The node tests (test/nodes: the action node, the triggers, the transport) again, with Stoplight Prism's validating
 * proxy between the nodes and the sandbox (RA_PRISM=1, see test/helpers/prism.ts): every request and answer is checked
 * against openapi/openapi.yaml, and a violation or warning fails the run wherever it happened (test/helpers/prism-setup.ts).
 * `npx jest -c jest.prism.config.js`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

process.env.RA_PRISM = '1';

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/nodes/**/*.test.ts'],
	testPathIgnorePatterns: [
		...base.testPathIgnorePatterns,
		// Lost answers are injected by dropping the connection after the commit; a proxy cannot pass a dropped
		// connection on (Prism answers 500 instead), so these tests prove nothing through it and run direct only.
		'<rootDir>/test/nodes/action/retries.test.ts',
		// Same reason: its repeats follow answers lost by dropped connections, and it checks the advice the node
		// gives for a network error (through Prism the drop arrives as a 500 with another message).
		'<rootDir>/test/nodes/action/exactly-once.test.ts',
		// The transport's own tests drive it with traffic that is off the contract on purpose (connections dropped
		// mid-answer, redirects, wrong base URLs, answers that are not the API's) and read the raw answers the
		// sandbox recorded; a proxy in between would change what they test. The same transport is exercised
		// through Prism by every action and trigger test.
		'<rootDir>/test/nodes/transport/',
		// No API traffic: the node's own input validation and its description.
		'<rootDir>/test/nodes/action/validation.test.ts',
		'<rootDir>/test/nodes/action/description.test.ts',
	],
	// Node's environment with Prism's packages loaded once per worker, not once per file.
	testEnvironment: '<rootDir>/test/helpers/prism-environment.js',
	setupFilesAfterEnv: ['<rootDir>/test/helpers/prism-setup.ts'],
};
