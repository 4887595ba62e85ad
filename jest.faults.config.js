const { projectsFor, realN8nProject } = require('./test/n8n-lines');

/**
 * The fault and abuse suite (issues 7 and 11): `npm run test:faults`. Files are `test/faults/*.faults.ts` (not
 * `*.test.ts`, so plain `jest` leaves them out). F3/F4 and F8 boot a real n8n: the global setup makes sure n8n is
 * installed and packs this package once (RA_E2E_TARBALL reuses a tarball). The figures of a run go to a temporary
 * folder; `npm run report:faults` runs the suite and renders test/faults/REPORT.md from them. On n8n 2.x every file
 * runs; on n8n 1.x (RA_N8N_VERSIONS, default both) the real-n8n files F3/F4, F9 (with F9-wait and F9-queue, the
 * Spending Limit in a 1.x queue stack), F10, F10's PostgreSQL remedy and F10 in queue mode (a 1.x queue stack) run
 * again.
 * @type {import('jest').Config}
 */
const projects = projectsFor(realN8nProject(['<rootDir>/test/faults/**/*.faults.ts']), (line) =>
	line === '2'
		? {}
		: {
				testMatch: [
					'<rootDir>/test/faults/f3-f4-real-n8n.faults.ts',
					'<rootDir>/test/faults/f9-recruiters-week.faults.ts',
					'<rootDir>/test/faults/f9-reminders.faults.ts',
					'<rootDir>/test/faults/f9-files-and-refusals.faults.ts',
					'<rootDir>/test/faults/f9-spending-across-a-wait.faults.ts',
					'<rootDir>/test/faults/f9-spending-in-queue-mode.faults.ts',
					'<rootDir>/test/faults/f10-every-event-once.faults.ts',
					'<rootDir>/test/faults/f10-postgres-remedy.faults.ts',
					'<rootDir>/test/faults/f10-queue-each-event-once.faults.ts',
				],
			},
);
// One figures folder for the whole run: made before it, stamped (or removed) after it; the teardown also stops the
// shared n8n (test/e2e/shared-n8n.ts).
projects[0].globalSetup = '<rootDir>/test/faults/global-setup.ts';
projects[0].globalTeardown = '<rootDir>/test/faults/global-teardown.ts';

module.exports = {
	projects,
	testTimeout: 600000,
	// In band: the files share one n8n per line (test/e2e/shared-n8n.ts), in the sequencer's order.
	maxWorkers: 1,
	testSequencer: '<rootDir>/test/real-n8n-sequencer.js',
};
