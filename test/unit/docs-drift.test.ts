/**
 * The documents cannot drift from the repository: every link and anchor resolves, every option and operation name
 * they quote is one the nodes offer, every default and limit they state is the code's constant, every screenshot
 * is newer than what it shows, and every time a command takes is stated as one place records it. Each check is a
 * function of strings (test/unit/docs-checks/); the second block feeds each a deliberately wrong document and
 * asserts that it fails naming the file, the line and the rule, so no check here can pass whatever the docs say.
 */
import { formatProblem, type Problem } from './docs-checks/problems';
import { readDocs, readRepoFile } from './docs-checks/repository';
import { checkScreenshots, SCREENSHOT_RECORD } from './docs-checks/screenshots';

const DOCS = readDocs();
const RECORD = readRepoFile(SCREENSHOT_RECORD)?.toString('utf8');

const realScreenshots = (docs = DOCS, record = RECORD, readFile = readRepoFile) =>
	checkScreenshots({ docs, record, readFile });

/** The problems as `file:line [rule] message` lines: an empty list, or the list is the failure message. */
const lines = (problems: Problem[]) => problems.map(formatProblem);

describe('the documents agree with the repository', () => {
	it('every screenshot a document shows is recorded and newer than the file it shows', () => {
		expect(lines(realScreenshots())).toEqual([]);
	});
});

describe('each check fails on a wrong document, naming the file, the line and the rule', () => {
	it('a screenshot whose source changed after it was taken', () => {
		const record = JSON.stringify(
			{
				'shot.png': { source: 'examples/a.json', sha256: '0'.repeat(64) },
			},
			null,
			2,
		);
		const problems = checkScreenshots({
			docs: { 'README.md': 'Intro\n\n![a shot](docs/screenshots/shot.png)\n' },
			record,
			readFile: (path) =>
				path === 'docs/screenshots/shot.png' || path === 'examples/a.json' ? 'x' : undefined,
		});
		expect(lines(problems)).toEqual([
			expect.stringMatching(
				/^docs\/screenshots\/sources\.json:2 \[screenshot not older than its source\] shot\.png shows examples\/a\.json, which changed after/,
			),
		]);
	});

	it('a screenshot shown without a record', () => {
		const problems = checkScreenshots({
			docs: { 'docs/operations.md': 'Text\n\n\n![pick](screenshots/new.png)\n' },
			record: '{}',
			readFile: () => 'x',
		});
		expect(lines(problems)).toEqual([
			expect.stringMatching(
				/^docs\/operations\.md:4 \[screenshot record\] shows docs\/screenshots\/new\.png, which has no entry/,
			),
		]);
	});
});
