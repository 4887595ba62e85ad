/**
 * npm test's closing table names each failed test and the start of its error, so the last lines of a CI log say
 * what failed, and how busy the whole machine was (scripts/test-all-table.ts, test/timing-reporter.js).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	failureLines,
	readMachineCpu,
	readRows,
	type FileRow,
} from '../../../scripts/test-all-table';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const TimingReporter = require('../../timing-reporter.js');

let dir = '';
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'ra-closing-table-'));
});
afterEach(() => {
	delete process.env.RA_TIMINGS_FILE;
	rmSync(dir, { recursive: true, force: true });
});

function record(result: object): FileRow[] {
	process.env.RA_TIMINGS_FILE = join(dir, 'timings.jsonl');
	const reporter = new TimingReporter({ rootDir: '/repo' });
	reporter.onTestResult(
		{
			path: '/repo/test/e2e/examples.test.ts',
			context: { config: { displayName: { name: 'e2e' } } },
		},
		{
			perfStats: { start: 1000, end: 4000 },
			numPassingTests: 1,
			numFailingTests: 1,
			numPendingTests: 0,
			numTodoTests: 0,
			testExecError: undefined,
			...result,
		},
	);
	return readRows<FileRow>(process.env.RA_TIMINGS_FILE);
}

test('a failed test is recorded with its name and the first lines of its error, without colours or stack frames', () => {
	const [row] = record({
		testResults: [
			{ status: 'passed', fullName: 'it works', failureMessages: [] },
			{
				status: 'failed',
				fullName: '(c) the feed trigger routes events',
				failureMessages: [
					'Error: \u001b[2mexpect(\u001b[22mreceived\u001b[2m).toHaveLength(\u001b[22mexpected\u001b[2m)\u001b[22m\n\nExpected length: 1\nReceived length: 0\n    at Object.<anonymous> (/repo/test/e2e/examples.test.ts:340:3)\n    at processTicksAndRejections (node:internal)',
				],
			},
		],
	});
	expect(row).toMatchObject({
		file: 'test/e2e/examples.test.ts',
		seconds: 3,
		passed: 1,
		failed: 1,
	});
	expect(row.failures).toEqual([
		{
			test: '(c) the feed trigger routes events',
			error:
				'Error: expect(received).toHaveLength(expected)\nExpected length: 1\nReceived length: 0',
		},
	]);
	expect(failureLines([{ ...row, run: 'n8n 2.x rest' }], [])).toEqual([
		'',
		'FAILED n8n 2.x rest: test/e2e/examples.test.ts > (c) the feed trigger routes events',
		'    Error: expect(received).toHaveLength(expected)',
		'    Expected length: 1',
		'    Received length: 0',
	]);
});

test('a file that could not run is named as such, and a failed step without a failed test is named by its lane', () => {
	const [row] = record({
		numPassingTests: 0,
		numFailingTests: 0,
		testResults: [],
		testExecError: { message: 'beforeAll: n8n did not start within 120 s' },
	});
	expect(row.failed).toBe(1);
	const lines = failureLines(
		[{ ...row, run: 'n8n 1.x rest' }],
		[
			{ lane: 'checks', name: 'lint:openapi', seconds: 4, ok: false },
			{ lane: 'n8n 1.x', name: 'n8n 1.x rest', seconds: 60, ok: false, jestRun: 'n8n 1.x rest' },
		],
	);
	expect(lines).toEqual([
		'',
		'FAILED n8n 1.x rest: test/e2e/examples.test.ts > (the file itself)',
		'    beforeAll: n8n did not start within 120 s',
		'FAILED step checks: lint:openapi (its own output above says why)',
	]);
});

test('a run where everything passed adds no lines', () => {
	const [row] = record({
		numFailingTests: 0,
		testResults: [{ status: 'passed', fullName: 'ok', failureMessages: [] }],
	});
	expect(row.failures).toEqual([]);
	expect(
		failureLines(
			[{ ...row, run: 'jest' }],
			[{ lane: 'checks', name: 'jest', seconds: 1, ok: true }],
		),
	).toEqual([]);
});

test("the machine's CPU time is read from /proc/stat: idle and iowait are not busy, every other column is", () => {
	const stat = join(dir, 'stat');
	// user nice system idle iowait irq softirq steal guest guest_nice (ticks of 1/100 s)
	writeFileSync(
		stat,
		'cpu  1000 50 250 7000 100 20 30 0 0 0\ncpu0 500 25 125 3500 50 10 15 0 0 0\n',
	);
	expect(readMachineCpu(stat)).toEqual({ busy: 13.5, total: 84.5 });
	writeFileSync(stat, 'intr 1 2 3\n');
	expect(readMachineCpu(stat)).toBeUndefined();
	expect(readMachineCpu(join(dir, 'missing'))).toBeUndefined();
});
