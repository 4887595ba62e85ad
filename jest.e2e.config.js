const { projectsFor, realN8nProject } = require('./test/n8n-lines');

/**
 * Real-n8n tests (test/e2e): n8n 2.41.1 on Node 24 and n8n 1.123.81 on Node 22, from the cache that
 * `npm run n8n:setup` fills, our packed tarball installed as a community package, the sandbox on loopback.
 * One jest project per n8n line (RA_N8N_VERSIONS=2, 1 or both; default both); `npm start` runs on 2.x only.
 * Serial and slow by nature; the files share a running n8n where they can (test/e2e/helpers.ts `bootRealN8n`).
 * @type {import('jest').Config}
 */
module.exports = {
	projects: projectsFor(
		{
			...realN8nProject(['<rootDir>/test/e2e/**/*.test.ts']),
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
		},
		// On 1.x: no `npm start` and no queue mode (both run 2.x), and no Human review for tools nor the agent example
		// (they need n8n 2.x's review and Chat nodes: ai-agent-approval.test.ts, agent-example-chat.test.ts).
		// examples.test.ts leaves one case out on 1.x (the
		// folder example's error output: see the test); everything else runs on both lines.
		(line) =>
			line === '2'
				? {}
				: {
						testPathIgnorePatterns: [
							'/node_modules/',
							'/dist/',
							'<rootDir>/test/e2e/start.test.ts',
							'<rootDir>/test/e2e/queue.test.ts',
							'<rootDir>/test/e2e/ai-agent-approval.test.ts',
							'<rootDir>/test/e2e/agent-example-chat.test.ts',
						],
					},
	),
	testTimeout: 600000,
	// In band: the files share one n8n per line and boot setting (test/e2e/shared-n8n.ts), in the sequencer's order.
	maxWorkers: 1,
	testSequencer: '<rootDir>/test/real-n8n-sequencer.js',
	verbose: true,
	// No forceExit: every test file stops the sandbox and the n8n it started; the global teardown the shared n8n.
};
