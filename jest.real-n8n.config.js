const faults = require('./jest.faults.config');
const e2e = require('./jest.e2e.config');

/**
 * The fault suite and the end-to-end suite in one jest run (`npm test` runs this once per n8n line, the two lines
 * side by side: scripts/test-all.ts), so their files share one running n8n per line and boot setting
 * (test/e2e/shared-n8n.ts) instead of booting one per file. The same projects, files and options as
 * jest.faults.config.js and jest.e2e.config.js, named `faults, n8n 2.x`, `e2e, n8n 1.x` and so on.
 * @type {import('jest').Config}
 */
module.exports = {
	projects: [
		...faults.projects.map((p) => ({ ...p, displayName: `faults, ${p.displayName}` })),
		...e2e.projects.map((p) => ({ ...p, displayName: `e2e, ${p.displayName}` })),
	],
	testTimeout: 600000,
	maxWorkers: 1,
	testSequencer: '<rootDir>/test/real-n8n-sequencer.js',
	verbose: true,
};
