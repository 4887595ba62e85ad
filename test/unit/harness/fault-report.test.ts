import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FigureBook, type Section } from '../../faults/figures';
import { renderReport, type JestResults, type RunOrigin } from '../../faults/render-report';

const JestResultsReporter = jest.requireActual<
	new () => {
		onTestResult(test: unknown, result: unknown): void;
		onRunComplete(contexts: unknown, results: unknown): void;
	}
>('../../faults/jest-results-reporter.js');

const ORIGIN: RunOrigin = {
	commit: '0123456789abcdef0123456789abcdef01234567',
	subject: 'the commit under test',
	uncommitted: [],
	exitCode: 0,
};

function section(id: string, testFile: string, project: string | undefined, ok: boolean): Section {
	return {
		id,
		title: `${id} title`,
		layer: 'layer',
		testFile,
		project,
		figures: {},
		checks: [{ claim: `${id} claim`, measured: 1, ok }],
		notes: [],
	};
}

function passing(file: string, project?: string): JestResults['files'][number] {
	return {
		file,
		project,
		execError: null,
		tests: [{ name: 'x', status: 'passed', failure: null }],
	};
}

describe('the fault report is rendered from the run that checked it', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'ra-fault-report-test-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	function write(sections: Section[], jest?: JestResults): void {
		for (const s of sections) writeFileSync(join(dir, `${s.id}.json`), JSON.stringify(s));
		if (jest) writeFileSync(join(dir, 'jest-results.json'), JSON.stringify(jest));
	}

	const totals = (failed: number): JestResults['totals'] => ({
		tests: 3,
		passed: 3 - failed,
		failed,
		pending: 0,
		todo: 0,
		suites: 2,
		failedSuites: failed > 0 ? 1 : 0,
		suitesThatDidNotRun: 0,
		success: failed === 0,
	});

	it('names the commit, jest totals and exit code, and says the run passed only when all of it held', () => {
		write([section('F1-F2', 'test/faults/f1.faults.ts', undefined, true)], {
			totals: totals(0),
			files: [passing('test/faults/f1.faults.ts')],
		});
		const { text } = renderReport(dir, ORIGIN);
		expect(text).toContain('**Verdict: the run passed.**');
		expect(text).toContain(`\`${ORIGIN.commit}\` (the commit under test), working tree clean`);
		expect(text).toContain('Jest: 3 tests, 3 passed, 0 failed, 0 skipped; 2 test files, 0 failed');
		expect(text).toContain('exit code 0');
		expect(text).toContain('## Findings (claims that did not hold)\n\nNone.');
	});

	it('a test that failed before recording its claim is a failed row of its section and a finding', () => {
		write([section('F9', 'test/faults/f9.faults.ts', 'n8n 2.x', true)], {
			totals: totals(1),
			files: [
				{
					file: 'test/faults/f9.faults.ts',
					project: 'n8n 2.x',
					execError: null,
					tests: [{ name: 'F9 week: d3', status: 'failed', failure: 'Error: boom' }],
				},
			],
		});
		const { text } = renderReport(dir, { ...ORIGIN, exitCode: 1 });
		expect(text).toContain('**Verdict: the run FAILED.**');
		expect(text).toContain('| test passed: F9 week: d3 | Error: boom | **no** |');
		expect(text).toContain('- F9: test passed: F9 week: d3 (measured Error: boom)');
		expect(text).toContain('| F9 title | layer | 0.0 | 1/2 |');
	});

	it('a failure lands in the section of its own n8n line, and a file with no figures gets a section', () => {
		write(
			[
				section('F3-F4', 'test/faults/f3.faults.ts', 'n8n 2.x', true),
				section('F3-F4-n8n1', 'test/faults/f3.faults.ts', 'n8n 1.x', true),
			],
			{
				totals: totals(2),
				files: [
					passing('test/faults/f3.faults.ts', 'n8n 2.x'),
					{
						file: 'test/faults/f3.faults.ts',
						project: 'n8n 1.x',
						execError: null,
						tests: [{ name: 'F4 poll', status: 'failed', failure: 'Error: poll' }],
					},
					{
						file: 'test/faults/f8.faults.ts',
						project: 'n8n 2.x',
						execError: 'Cannot find module',
						tests: [],
					},
				],
			},
		);
		const { text, sections } = renderReport(dir, { ...ORIGIN, exitCode: 1 });
		expect(sections).toBe(3);
		expect(text).toContain('- F3-F4-n8n1: test passed: F4 poll (measured Error: poll)');
		expect(text).not.toContain('- F3-F4: test passed');
		expect(text).toContain(
			'- test/faults/f8.faults.ts (n8n 2.x): test/faults/f8.faults.ts ran (measured Cannot find module)',
		);
	});

	it('without jest results or with a non-zero exit code the run is not reported as passed', () => {
		write([section('F5', 'test/faults/f5.faults.ts', undefined, true)]);
		expect(renderReport(dir, ORIGIN).text).toContain('Jest: no results were written');
		expect(renderReport(dir, ORIGIN).text).toContain('the run FAILED');
		writeFileSync(
			join(dir, 'jest-results.json'),
			JSON.stringify({ totals: totals(0), files: [passing('test/faults/f5.faults.ts')] }),
		);
		expect(renderReport(dir, { ...ORIGIN, exitCode: 1 }).text).toContain('the run FAILED');
		expect(renderReport(dir, ORIGIN).text).toContain('the run passed');
	});

	it("the reporter writes jest's own statuses, by file and project, to the figures folder", () => {
		const previous = process.env.RA_FAULT_FIGURES_DIR;
		process.env.RA_FAULT_FIGURES_DIR = dir;
		try {
			const reporter = new JestResultsReporter();
			reporter.onTestResult(
				{ context: { config: { displayName: { name: 'n8n 1.x', color: 'white' } } } },
				{
					testFilePath: join(__dirname, '..', '..', 'faults', 'f9.faults.ts'),
					testExecError: undefined,
					testResults: [
						{
							fullName: 'week d1',
							status: 'failed',
							failureMessages: ['\u001b[31mError: claim did not hold\u001b[39m\n    at x'],
						},
					],
				},
			);
			reporter.onRunComplete([], {
				numTotalTests: 1,
				numPassedTests: 0,
				numFailedTests: 1,
				numPendingTests: 0,
				numTodoTests: 0,
				numTotalTestSuites: 1,
				numFailedTestSuites: 1,
				numRuntimeErrorTestSuites: 0,
				success: false,
			});
		} finally {
			if (previous === undefined) delete process.env.RA_FAULT_FIGURES_DIR;
			else process.env.RA_FAULT_FIGURES_DIR = previous;
		}
		const { text } = renderReport(dir, { ...ORIGIN, exitCode: 1 });
		expect(text).toContain('Jest: 1 tests, 0 passed, 1 failed');
		expect(text).toContain(
			'- test/faults/f9.faults.ts (n8n 1.x): test passed: week d1 (measured Error: claim did not hold)',
		);
	});
});

describe('a FigureBook claim is an assertion', () => {
	it('check throws when the claim does not hold, after recording it as a failed row', () => {
		const book = new FigureBook('T', 'title', 'layer');
		expect(book.check('holds', 1, true)).toBe(true);
		expect(() => book.check('does not hold', 2, false)).toThrow(
			'claim did not hold: does not hold (measured 2)',
		);
		book.fail('collected failure', 'case x rejected');
		expect(book.section.checks.map((c) => [c.claim, c.ok])).toEqual([
			['holds', true],
			['does not hold', false],
			['collected failure', false],
		]);
		expect(book.section.testFile).toBe('test/unit/harness/fault-report.test.ts');
		expect(book.section.checks[0].test).toBe(
			'a FigureBook claim is an assertion check throws when the claim does not hold, after recording it as a failed row',
		);
	});
});
