const faults = require('./jest.faults.config');
const e2e = require('./jest.e2e.config');

/**
 * The fault suite and the end-to-end suite in one jest run (`npm test` runs this once per n8n line, the two lines
 * side by side: scripts/test-all.ts), so their files share one running n8n per line and boot setting
 * (test/e2e/shared-n8n.ts) instead of booting one per file. The same projects, files and options as
 * jest.faults.config.js and jest.e2e.config.js, named `faults, n8n 2.x`, `e2e, n8n 1.x` and so on.
 * @type {import('jest').Config}
 */
/**
 * RA_REAL_N8N_PART splits the files for jest runs side by side (scripts/test-all.ts): `polls`, the files that spend
 * most of their time waiting for n8n's poll ticks on the shared n8n (F3/F4 and F10: the feed trigger polls once a
 * minute; the tests poll four times a minute); `own`, the files that boot an n8n of their own and wait on it (F4 with
 * durable poll cursors, queue mode's and `npm start`'s end-to-end files: n8n 2.x only; F10 in queue mode and the
 * Spending Limit in queue mode, F9-queue: both lines) and the security file, whose n8n logs at debug level (a boot
 * setting no other file shares); and `rest`, every other file.
 * Unset: every file.
 */
const PARTS = {
	polls: '/test/faults/(f3-f4-real-n8n|f10-every-event-once)\\.faults\\.ts$',
	own: '/test/(faults/(f10-queue-each-event-once|f9-spending-in-queue-mode|f4-durable-poll-cursors)\\.faults|e2e/(queue|start|security)\\.test)\\.ts$',
};
const part = process.env.RA_REAL_N8N_PART ?? '';
if (!['', 'polls', 'own', 'rest'].includes(part))
	throw new Error(`RA_REAL_N8N_PART="${part}": use polls, own, rest or leave it unset`);
const others = `(${Object.values(PARTS).join('|')})`;
const partOf = (project) =>
	part === ''
		? project
		: {
				...project,
				testPathIgnorePatterns: [
					...(project.testPathIgnorePatterns ?? ['/node_modules/', '/dist/']),
					part === 'rest' ? others : `^(?!.*${PARTS[part]})`,
				],
			};

module.exports = {
	projects: [
		...faults.projects.map((p) => partOf({ ...p, displayName: `faults, ${p.displayName}` })),
		...e2e.projects.map((p) => partOf({ ...p, displayName: `e2e, ${p.displayName}` })),
	],
	testTimeout: 600000,
	maxWorkers: 1,
	testSequencer: '<rootDir>/test/real-n8n-sequencer.js',
	verbose: true,
};
