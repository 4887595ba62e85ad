const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

/** The first lines of an error, without jest's colours and stack frames: enough to say what failed. */
function firstLines(text, count = 6) {
	return (
		text
			// eslint-disable-next-line no-control-regex
			.replace(/\u001b\[[0-9;]*m/g, '')
			.split('\n')
			.filter((line) => line.trim() && !/^\s+at /.test(line))
			.slice(0, count)
			.join('\n')
	);
}

/**
 * A jest reporter for the closing table of `npm test` (scripts/test-all.ts): one JSON line per test file (its
 * project, wall time, counts, and each failed test's name with the first lines of its error) appended to the file
 * RA_TIMINGS_FILE names, with RA_TIMINGS_RUN as the run's name. Without RA_TIMINGS_FILE it records nothing.
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
			failures: [
				...result.testResults
					.filter((t) => t.status === 'failed')
					.map((t) => ({ test: t.fullName, error: firstLines(t.failureMessages.join('\n')) })),
				...(result.testExecError
					? [{ test: '(the file itself)', error: firstLines(result.testExecError.message ?? '') }]
					: []),
			],
		};
		appendFileSync(file, `${JSON.stringify(row)}\n`);
	}
}

module.exports = TimingReporter;
