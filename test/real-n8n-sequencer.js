const Sequencer = require('@jest/test-sequencer').default;

/**
 * The order of the real-n8n test files (jest.faults.config.js, jest.e2e.config.js, jest.real-n8n.config.js): the 2.x
 * line before the 1.x line, and within a line the files that share one n8n together (test/e2e/shared-n8n.ts keeps
 * one idle shared n8n per process, so a file of another boot setting in between would cost a boot): the fault
 * files and the e2e files on n8n's defaults first, then the files whose n8n has HOME in its user folder (examples, from-scratch),
 * then the one at debug level (security), then those that boot their own (queue mode, `npm start`). Jest's default
 * order (the slowest and the failed first) only helps files that run side by side; these run one at a time.
 */
const GROUPS = [
	/\/test\/faults\/|\/test\/e2e\/(?!examples|from-scratch|security|queue|start)[^/]+$/,
	/\/test\/e2e\/(examples[.-]|from-scratch\.)/,
	/\/test\/e2e\/security\./,
	/\/test\/e2e\/queue\./,
	/\/test\/e2e\/start\./,
];

/** Files that stop the shared n8n and start it again (F10's replay after a restart, F9-wait's resume after one): last
 * in their group, so no file after them waits for a fresh boot. */
const RESTARTS_SHARED =
	/\/test\/faults\/(f10-every-event-once|f9-spending-across-a-wait)\.faults\.ts$/;

const lineOf = (test) => String(test.context.config.globals?.RA_N8N_LINE ?? '2');
const groupOf = (test) => {
	const i = GROUPS.findIndex((re) => re.test(test.path));
	return i === -1 ? GROUPS.length : i;
};

class RealN8nSequencer extends Sequencer {
	sort(tests) {
		return [...tests].sort(
			(a, b) =>
				lineOf(b).localeCompare(lineOf(a)) ||
				groupOf(a) - groupOf(b) ||
				Number(RESTARTS_SHARED.test(a.path)) - Number(RESTARTS_SHARED.test(b.path)) ||
				a.path.localeCompare(b.path),
		);
	}
}

module.exports = RealN8nSequencer;
