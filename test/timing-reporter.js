const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

/**
 * A jest reporter for the closing table of `npm test` (scripts/test-all.ts): one JSON line per test file (its
 * project, wall time and counts) appended to the file RA_TIMINGS_FILE names, with RA_TIMINGS_RUN as the run's name.
 * Without RA_TIMINGS_FILE it records nothing.
 */
class TimingReporter {
	constructor(globalConfig) {
		this.rootDir = globalConfig.rootDir;
	}

	onTestResult(test, result) {
		const file = process.env.RA_TIMINGS_FILE;
		if (!file) return;
		const { start, end } = result.perfStats;
		const row = {
			run: process.env.RA_TIMINGS_RUN ?? 'jest',
			project: test.context.config.displayName?.name ?? '',
			file: relative(this.rootDir, test.path),
			seconds: start && end ? (end - start) / 1000 : 0,
			passed: result.numPassingTests,
			failed: result.numFailingTests + (result.testExecError ? 1 : 0),
			skipped: result.numPendingTests + result.numTodoTests,
		};
		appendFileSync(file, `${JSON.stringify(row)}\n`);
	}
}

module.exports = TimingReporter;
