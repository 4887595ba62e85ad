/**
 * A jest reporter that `npm run report:faults` (test/faults/report.ts) adds to the fault suite: it writes what jest
 * itself concluded (every test's status and first failure line, by file and project, and the run's totals) to
 * jest-results.json in the run's figures folder, so test/faults/render-report.ts renders the report from the run
 * that checked it: a test that failed before recording its claims becomes a failed row, and the totals are jest's.
 */
const { writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { stripVTControlCharacters } = require('node:util');

const ROOT = join(__dirname, '..', '..');

function firstLine(text) {
	// Jest's failure messages carry ANSI colours and a stack; the report keeps the message's first line.
	const plain = stripVTControlCharacters(String(text ?? ''));
	const line = plain
		.split('\n')
		.map((l) => l.trim())
		.find((l) => l !== '' && !l.startsWith('●'));
	return (line ?? plain.trim()).slice(0, 400);
}

class JestResultsReporter {
	constructor() {
		this.files = [];
	}

	onTestResult(test, result) {
		const displayName = test.context.config.displayName;
		this.files.push({
			file: relative(ROOT, result.testFilePath),
			project: typeof displayName === 'string' ? displayName : displayName?.name,
			execError: result.testExecError ? firstLine(result.testExecError.message) : null,
			tests: result.testResults.map((t) => ({
				name: t.fullName,
				status: t.status,
				failure: t.failureMessages.length > 0 ? firstLine(t.failureMessages[0]) : null,
			})),
		});
	}

	onRunComplete(_contexts, results) {
		const dir = process.env.RA_FAULT_FIGURES_DIR;
		if (!dir) return;
		const totals = {
			tests: results.numTotalTests,
			passed: results.numPassedTests,
			failed: results.numFailedTests,
			pending: results.numPendingTests,
			todo: results.numTodoTests,
			suites: results.numTotalTestSuites,
			failedSuites: results.numFailedTestSuites,
			suitesThatDidNotRun: results.numRuntimeErrorTestSuites,
			// jest sets results.success only after the reporters ran: the same rule, from the counts.
			success:
				results.numFailedTests === 0 &&
				results.numFailedTestSuites === 0 &&
				results.numRuntimeErrorTestSuites === 0 &&
				results.numTotalTestSuites > 0,
		};
		writeFileSync(
			join(dir, 'jest-results.json'),
			`${JSON.stringify({ totals, files: this.files }, null, 2)}\n`,
		);
	}
}

module.exports = JestResultsReporter;
