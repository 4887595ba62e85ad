/**
 * The documents cannot drift from the repository: every link and anchor resolves, every option and operation name
 * they quote is one the nodes offer, every default and limit they state is the code's constant, every screenshot
 * is newer than what it shows, and every time a command takes is stated as one place records it. Each check is a
 * function of strings (test/unit/docs-checks/); the second block feeds each a deliberately wrong document and
 * asserts that it fails naming the file, the line and the rule, so no check here can pass whatever the docs say.
 */
import { N8N_LINES } from '../../scripts/n8n-host/versions';
import { RecruitingAnalysisApi } from '../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysisSigningSecretApi } from '../../credentials/RecruitingAnalysisSigningSecretApi.credentials';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { RecruitingAnalysisFeedTrigger } from '../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { RecruitingAnalysisTrigger } from '../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';
import { codeClaims } from './docs-checks/claims';
import { checkLinks, checkQuotedPaths, githubSlug, headingAnchors } from './docs-checks/links';
import { checkNames, looksLikeName, N8N_LABELS, packageNames } from './docs-checks/names';
import { formatProblem, lineAt, type Problem } from './docs-checks/problems';
import { exampleNodeNames, readDocs, readRepoFile, repoPathExists } from './docs-checks/repository';
import { checkScreenshots, SCREENSHOT_RECORD } from './docs-checks/screenshots';
import { checkClaims, fold, statedValue } from './docs-checks/stated';
import { agrees, checkTimes, timeRecord } from './docs-checks/times';

const DOCS = readDocs();
const RECORD = readRepoFile(SCREENSHOT_RECORD)?.toString('utf8');

const realScreenshots = (docs = DOCS, record = RECORD, readFile = readRepoFile) =>
	checkScreenshots({ docs, record, readFile });

/** The problems as `file:line [rule] message` lines: an empty list, or the list is the failure message. */
const lines = (problems: Problem[]) => problems.map(formatProblem);

/** The names the package shows (its nodes' and credentials' description objects), its examples' node names, n8n's. */
const PACKAGE_NAMES = packageNames(
	[
		new RecruitingAnalysis().description,
		new RecruitingAnalysisTrigger().description,
		new RecruitingAnalysisFeedTrigger().description,
	],
	[new RecruitingAnalysisApi(), new RecruitingAnalysisSigningSecretApi()],
);
const KNOWN_NAMES = new Set([...PACKAGE_NAMES, ...exampleNodeNames(), ...N8N_LABELS]);
const realNames = (docs = DOCS) => checkNames({ docs, known: KNOWN_NAMES });

const CLAIMS = codeClaims();
const realClaims = (docs = DOCS) => checkClaims(docs, CLAIMS);

/** What the console says while it installs n8n 2.x and builds sqlite3, from the code that says it. */
const SQLITE_NOTE_FILE = 'scripts/n8n-host/n8n-install.ts';
const CONSOLE_TEXTS = [
	{
		key: 'n8n-2-install',
		file: 'scripts/n8n-host/versions.ts',
		text: N8N_LINES['2'].installNote,
	},
	{
		key: 'sqlite3-build',
		file: SQLITE_NOTE_FILE,
		text:
			/building sqlite3 from source \(([^)]*)\)/.exec(
				readRepoFile(SQLITE_NOTE_FILE)?.toString('utf8') ?? '',
			)?.[1] ?? '(no sqlite3 note found)',
	},
];
const realTimes = (docs = DOCS, consoleTexts = CONSOLE_TEXTS) => checkTimes({ docs, consoleTexts });

const realLinks = (docs = DOCS) =>
	checkLinks({
		docs,
		exists: repoPathExists,
		readText: (path) => readRepoFile(path)?.toString('utf8'),
	});

describe('the documents agree with the repository', () => {
	it('every relative link resolves to a repository file, and every #anchor to a heading there', () => {
		expect(lines(realLinks())).toEqual([]);
	});

	it('every repository path quoted as code names a file or folder that exists', () => {
		expect(lines(checkQuotedPaths({ docs: DOCS, exists: repoPathExists }))).toEqual([]);
	});

	it('every option, operation or node name quoted in italics or bold is one the package shows', () => {
		expect(lines(realNames())).toEqual([]);
	});

	it('every default, limit and price stated is the constant the code holds', () => {
		expect(lines(realClaims())).toEqual([]);
	});

	it('every time stated for npm start and npm test is a row of the one record, and agrees with its measurement', () => {
		expect(timeRecord(DOCS['CONTRIBUTING.md']).length).toBeGreaterThanOrEqual(5);
		expect(lines(realTimes())).toEqual([]);
	});

	it('every screenshot a document shows is recorded and newer than the file it shows', () => {
		expect(lines(realScreenshots())).toEqual([]);
	});
});

describe('each check fails on a wrong document, naming the file, the line and the rule', () => {
	it("anchors are GitHub's: lower case, punctuation dropped, spaces to hyphens, duplicates numbered", () => {
		expect(githubSlug('A reminder (Interview → Resend)')).toBe('a-reminder-interview--resend');
		expect(githubSlug('3. Docker')).toBe('3-docker');
		expect(githubSlug('`npm test`: *what* [runs](x.md)')).toBe('npm-test-what-runs');
		expect(headingAnchors('# Notes\n\n```\n# not a heading\n```\n## Notes\n### Notes')).toEqual([
			'notes',
			'notes-1',
			'notes-2',
		]);
	});

	it('a broken anchor into another document', () => {
		const docs = {
			...DOCS,
			'README.md': DOCS['README.md'].replace(
				'docs/install.md#agents-and-money',
				'docs/install.md#agents-and-mony',
			),
		};
		expect(lines(realLinks(docs))).toEqual([
			expect.stringMatching(
				/^README\.md:\d+ \[anchor matches a heading\] links to docs\/install\.md#agents-and-mony, but docs\/install\.md has no heading with the anchor #agents-and-mony \(did you mean #agents-and-money\?\)$/,
			),
		]);
	});

	it('a broken anchor within the same document, at its line', () => {
		const problems = checkLinks({
			docs: { 'docs/a.md': '# Title\n\n## Where it holds\n\nSee [below](#where-it-hold).\n' },
			exists: () => true,
			readText: () => undefined,
		});
		expect(lines(problems)).toEqual([
			'docs/a.md:5 [anchor matches a heading] links to #where-it-hold, but docs/a.md has no heading with the anchor #where-it-hold (did you mean #where-it-holds?)',
		]);
	});

	it('a relative link to a file that is not there (a link in code is not read)', () => {
		const problems = checkLinks({
			docs: { 'docs/a.md': 'One\n[the guide](instal.md) and `[x](nothing.md)`\n' },
			exists: (path) => path === 'docs/install.md',
			readText: () => undefined,
		});
		expect(lines(problems)).toEqual([
			'docs/a.md:2 [relative link resolves] links to instal.md, but docs/instal.md is not in the repository',
		]);
	});

	it('a quoted path to a file that moved, read under the node folder for its own folders', () => {
		const docs = {
			...DOCS,
			'docs/install.md': DOCS['docs/install.md'].replace(
				'`actions/common/toolMode.ts`',
				'`actions/common/toolModes.ts`',
			),
		};
		expect(lines(checkQuotedPaths({ docs, exists: repoPathExists }))).toEqual([
			expect.stringMatching(
				/^docs\/install\.md:\d+ \[quoted path exists\] names `actions\/common\/toolModes\.ts`, but nodes\/RecruitingAnalysis\/actions\/common\/toolModes\.ts is not in the repository$/,
			),
		]);
	});

	it('names: the shape of a display name, and the short forms a name may take', () => {
		expect(looksLikeName('Spending Limit (Credits)')).toBe(true);
		expect(looksLikeName("Run Without a Person's Review")).toBe(true);
		expect(looksLikeName('not a name')).toBe(false);
		expect(looksLikeName('Yes, invite them')).toBe(false);
		expect(PACKAGE_NAMES.has('Wait Timeout')).toBe(true);
		expect(PACKAGE_NAMES.has('Feed Trigger')).toBe(true);
		expect(PACKAGE_NAMES.has('Recruiting Analysis Tool')).toBe(true);
	});

	it('a misspelt option name (Options → …) in a real document', () => {
		const docs = {
			...DOCS,
			'docs/operations.md': DOCS['docs/operations.md'].replace(
				'*Options > Idempotency Key*',
				'*Options > Idempotency Keys*',
			),
		};
		expect(lines(realNames(docs))).toEqual([
			expect.stringMatching(
				/^docs\/operations\.md:\d+ \[quoted name exists\] quotes \*Options > Idempotency Keys\*, but no node, credential, example or n8n label is named "Idempotency Keys"$/,
			),
		]);
	});

	it('a retired option name and a misspelt operation name, each at its line', () => {
		const problems = checkNames({
			docs: {
				'docs/idempotency.md':
					'Give your own reference (*External Reference*).\n\nRun **Interview → Invite Manny** again.\n',
			},
			known: KNOWN_NAMES,
		});
		expect(lines(problems)).toEqual([
			'docs/idempotency.md:1 [quoted name exists] quotes *External Reference*, but no node, credential, example or n8n label is named "External Reference"',
			'docs/idempotency.md:3 [quoted name exists] quotes **Interview → Invite Manny**, but no node, credential, example or n8n label is named "Invite Manny"',
		]);
	});

	it('stated values: "1,000" is 1000, "five" is 5, "2.5" is 2.5; a wrapped callout folds into one line', () => {
		expect([statedValue('1,000'), statedValue('five'), statedValue('2.5')]).toEqual([1000, 5, 2.5]);
		expect(fold('> a\n> b\nc').flat).toBe('> a b c');
	});

	/** Each claim's first statement in its first document, its first stated value changed to 7919. */
	const wrongStatements = CLAIMS.map((claim) => {
		const doc = claim.statedIn[0];
		const original = DOCS[doc];
		const { flat, origin } = fold(original);
		const m = new RegExp(claim.pattern.source, 'd').exec(flat)!;
		const group = m.indices!.findIndex((span, i) => i > 0 && span !== undefined);
		const [start, end] = m.indices![group]!;
		const from = origin[start];
		const wrong = original.slice(0, from) + '7919' + original.slice(origin[end - 1] + 1);
		return { rule: claim.rule, doc, line: lineAt(original, origin[m.index]), wrong };
	});

	it.each(wrongStatements)(
		'a wrong value for "$rule" fails at $doc:$line',
		({ rule, doc, line, wrong }) => {
			expect(lines(realClaims({ ...DOCS, [doc]: wrong }))).toEqual([
				expect.stringContaining(`${doc}:${line} [${rule}] states [7919`),
			]);
		},
	);

	it('a wrong default Spending Limit, and a sentence that no longer states it', () => {
		const wrongDefault = DOCS['README.md'].replace(
			"Spending Limit's default is **10 credits**",
			"Spending Limit's default is **0 credits**",
		);
		expect(lines(realClaims({ ...DOCS, 'README.md': wrongDefault }))).toEqual([
			expect.stringMatching(
				/^README\.md:\d+ \[the Spending Limit's default\] states \[0\] in "Spending Limit's default is \*\*0 credits", but the code holds \[10\]$/,
			),
		]);
		const dropped = DOCS['docs/triggers.md'].replace(
			'A scheduled poll runs the reads five at a time',
			'A scheduled poll runs several reads at once',
		);
		expect(lines(realClaims({ ...DOCS, 'docs/triggers.md': dropped }))).toEqual([
			expect.stringMatching(
				/^docs\/triggers\.md:1 \[feed trigger: a scheduled poll's resource reads at a time\] no longer states it/,
			),
		]);
	});

	it('times: "about N minutes" rounds from the mean, "N to M minutes" holds each measurement', () => {
		expect([agrees('about 5 minutes', [297]), agrees('about 3 minutes', [297])]).toEqual([
			true,
			false,
		]);
		expect([agrees('3 to 4 minutes', [186, 244]), agrees('3 to 4 minutes', [297])]).toEqual([
			true,
			false,
		]);
	});

	it('a time that no row states, a row whose wording its measurement contradicts, a console note that differs', () => {
		const readme = DOCS['README.md'].replace(
			'about 5 minutes and 2.6 GB',
			'about 3 to 4 minutes and 2.6 GB',
		);
		// The npm-test row's wording made to contradict its measurement (whatever the row holds today).
		const npmTestRow = /^(\| `npm-test` \|.*\| )(\d+) s \| about \d+ minutes \|$/m;
		const measured = npmTestRow.exec(DOCS['CONTRIBUTING.md'])?.[2];
		expect(measured).toBeDefined();
		const wrong = Math.round(Number(measured) / 60) + 5;
		const contributing = DOCS['CONTRIBUTING.md'].replace(
			npmTestRow,
			(_, start: string) => `${start}${measured} s | about ${wrong} minutes |`,
		);
		expect(contributing).not.toBe(DOCS['CONTRIBUTING.md']);
		const problems = lines(
			realTimes({ ...DOCS, 'README.md': readme, 'CONTRIBUTING.md': contributing }, [
				{
					key: 'n8n-2-install',
					file: 'scripts/n8n-host/versions.ts',
					text: 'about 3 minutes and 2.6 GB the first time',
				},
			]),
		);
		const line = (text: string, phrase: string) => lineAt(text, text.indexOf(phrase));
		expect(problems).toEqual(
			expect.arrayContaining([
				expect.stringMatching(
					new RegExp(
						`^README\\.md:${line(readme, 'about 3 to 4 minutes and')} \\[times stated from one record\\] states "about 3 to 4 minutes"`,
					),
				),
				`CONTRIBUTING.md:${line(contributing, '| `npm-test`')} [stated time agrees with the measurement] row npm-test states "about ${wrong} minutes" for ${measured} s measured`,
				expect.stringMatching(
					/^scripts\/n8n-host\/versions\.ts:1 \[console times from the same record\] says "about 3 minutes and 2\.6 GB the first time", not row n8n-2-install's "about 5 minutes"$/,
				),
			]),
		);
	});

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
