/**
 * Every example of examples/ run from the n8n editor in a browser, as a person does after `npm start`: the examples
 * imported and prepared as `npm start` leaves them (test/e2e/as-npm-start.ts), then per example what `npm start`
 * prints (scripts/start-kit.ts exampleHints): click *Execute workflow*, then, for the trigger examples, run the
 * analysis example in a second tab, run the printed interview command or the printed curl; an approval form is
 * answered in the browser. What the editor shows afterwards is checked against the execution it ran: every node
 * that ran is green, every connection carries the item count the node sent along it, no node shows an error, and
 * the candidate's name is in the output panel of each node whose output names one. Fails on uncaught page errors
 * and error toasts; every wait is bounded and named in its failure message. Two examples are not run here: the
 * PostgreSQL one, which `npm start` cannot run (it says what it needs), and the agent one, which `npm start` runs in
 * its public chat (test/e2e/agent-example-chat.test.ts, n8n 2.x).
 *
 * `npm run docs:screenshots` also writes the README's picture of the "analyze one resume" example from here
 * (test/e2e/browser.ts docsShot). The n8n is the run's shared one with HOME in its user folder, as for
 * test/e2e/examples.test.ts (the folder example reads n8n's files folder). The tests run in order: the first one's
 * approved invitation is the interview the second completes.
 */
import { execSync } from 'node:child_process';

import type { Page } from 'playwright-core';

import {
	REPO_ROOT,
	delay,
	listExamples,
	type ExecutionDetail,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import {
	AGENT_EXAMPLE,
	APPROVE,
	ATS_EXAMPLE,
	FOLDER_EXAMPLE,
	INTERVIEW_EVENT_EXAMPLE,
	POSTGRES_EXAMPLE,
	REPORT_EVENT_EXAMPLE,
	SAMPLE_APPLICANTS,
	exampleHints,
	settled,
	waitingForm,
} from '../../scripts/start-kit';
import { importExamplesAsNpmStart, type ExamplesAsNpmStart } from './as-npm-start';
import {
	docsShot,
	eventually,
	expectNoEditorError,
	launchEditorBrowser,
	shot,
	signIn,
	type EditorBrowser,
} from './browser';
import { bootRealN8n, type RealN8n } from './helpers';

/**
 * The example `npm start` gives no way to run: it needs a PostgreSQL server and credential (examples/README.md),
 * which `npm start` does not make; it prints what the example needs instead (exampleHints).
 */
const NOT_RUN_AFTER_NPM_START = [POSTGRES_EXAMPLE];
/**
 * Runs after `npm start` in its chat, not from the editor's button, on n8n 2.x only: test/e2e/agent-example-chat.test.ts
 * types what `npm start` prints there and answers the review's Approve.
 */
const RUN_IN_ITS_CHAT = [AGENT_EXAMPLE];
const notHere = (file: string) =>
	NOT_RUN_AFTER_NPM_START.includes(file) || RUN_IN_ITS_CHAT.includes(file);
const ANALYZE_ONE = 'analyze-one-resume.json';

let env: RealN8n;
let browser: EditorBrowser;
let prepared: ExamplesAsNpmStart;
/** The examples a test below ran from the editor. */
const ran = new Set<string>();

beforeAll(async () => {
	env = await bootRealN8n('e2e-examples-browser', { homeInUserFolder: true });
	prepared = await importExamplesAsNpmStart(
		env,
		listExamples().filter((file) => !notHere(file)),
	);
	browser = await launchEditorBrowser();
	await signIn(browser, env);
}, 300_000);

afterAll(async () => {
	await browser?.close();
	await env?.close();
});

/** Runs `fn` with a bound of `ms`; its failure names what was awaited and the bound. */
async function within<T>(
	what: string,
	ms: number,
	fn: (timeout: number) => Promise<T>,
): Promise<T> {
	try {
		return await fn(ms);
	} catch (error) {
		throw new Error(
			`${what}: not within ${ms / 1000} s (${(error as Error).message.split('\n')[0]})`,
		);
	}
}

const example = (file: string) => prepared.imported[file];

/** Opens an example's workflow on the canvas, the whole flow in view. */
async function openExample(page: Page, file: string): Promise<void> {
	await within(`${file}: the editor loads the workflow's page`, 60_000, (timeout) =>
		page.goto(`${env.n8n.baseUrl}/workflow/${example(file).id}`, {
			waitUntil: 'domcontentloaded',
			timeout,
		}),
	);
	await within(`${file}: the canvas shows the workflow`, 60_000, (timeout) =>
		page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout }),
	);
	await page.locator('[data-test-id="zoom-to-fit"]').click();
}

/**
 * Clicks *Execute workflow* and returns n8n's answer to the request the editor sent: an execution id, or that it
 * listens on the trigger's test URL.
 */
async function clickExecuteWorkflow(
	page: Page,
	file: string,
): Promise<{ executionId?: string; waitingForWebhook?: boolean }> {
	const answer = page.waitForResponse(
		(r) =>
			r.request().method() === 'POST' &&
			/\/rest\/workflows\/[^/]+\/run$/.test(new URL(r.url()).pathname),
		{ timeout: 30_000 },
	);
	await page.locator('[data-test-id="execute-workflow-button"]').first().click();
	const response = await within(
		`${file}: n8n answers the editor's run request`,
		30_000,
		() => answer,
	);
	const body = (await response.json()) as {
		data?: { executionId?: string; waitingForWebhook?: boolean };
	};
	expect({ file, status: response.status() }).toEqual({ file, status: 200 });
	return body.data ?? {};
}

/** The ids of an example's executions so far. */
const executionIds = async (file: string) =>
	new Set((await env.n8n.listExecutions(example(file).id)).map((e) => e.id));

/** The execution of `file` the editor started (not among `before`, not a production run), once it has one. */
async function editorExecution(file: string, before: Set<string>, ms = 120_000): Promise<string> {
	const deadline = Date.now() + ms;
	for (;;) {
		const started = (await env.n8n.listExecutions(example(file).id)).filter(
			(e) => !before.has(e.id) && e.mode !== 'webhook',
		);
		if (started.length > 0) return started[0].id;
		if (Date.now() > deadline)
			throw new Error(`${file}: no execution from the editor's test URL within ${ms / 1000} s`);
		await delay(500);
	}
}

/** Follows an execution until it has ended or waits for a form; bounded and named. */
const followed = (file: string, executionId: string, ms = 240_000) =>
	within(`${file}: execution ${executionId} ends or waits for its form`, ms, (timeout) =>
		settled(env.n8n, executionId, timeout),
	);

/**
 * Answers the approval form the execution waits on, in the browser (its address in a new tab), with *Yes, invite
 * them*; checks that the form names the candidate (`expectName`); returns the execution once it has resumed and
 * ended.
 */
async function approveInBrowser(
	file: string,
	waiting: ExecutionDetail,
	expectName: string,
): Promise<ExecutionDetail> {
	const form = waitingForm(waiting, env.n8n.baseUrl);
	expect({ file, status: waiting.status, node: form?.node }).toEqual({
		file,
		status: 'waiting',
		node: 'Recruiter Approves',
	});
	// The editor opens a waiting form of its own run in a window of its own, sometimes before the run has reached it
	// (the window then shows no question); a person opens the form's address, as here, in a tab of its own.
	const formPage = await browser.ctx.newPage();
	await formPage.goto(form!.url, { waitUntil: 'domcontentloaded' });
	const select = formPage.locator('select').first();
	await select.waitFor({ timeout: 30_000 }).catch(async () => {
		const shown = (await formPage.locator('body').innerText()).replace(/\s+/g, ' ').slice(0, 300);
		throw new Error(
			`${file}: the approval form shows its question: not within 30 s (${form!.url} shows: ${shown})`,
		);
	});
	expect(await formPage.locator('body').innerText()).toContain(expectName);
	await select.selectOption({ label: APPROVE });
	await formPage.locator('#submit-btn').click();
	await within(`${file}: the approval form says it was submitted`, 30_000, (timeout) =>
		formPage.locator('#submitted-form').waitFor({ state: 'visible', timeout }),
	);
	await shot(formPage, `example-${file.replace(/\.json$/, '')}-form-answered`);
	await expectNoEditorError(browser, `${file}: approval form`, formPage);
	for (const open of browser.ctx.pages())
		if (
			open !== browser.page &&
			new URL(open.url(), 'http://x').pathname.startsWith('/form-waiting')
		)
			await open.close();
	// n8n can report the execution as waiting for a moment after the form was answered.
	const deadline = Date.now() + 60_000;
	for (;;) {
		const now = await followed(file, waiting.id);
		if (now.status !== 'waiting') return now;
		if (Date.now() > deadline)
			throw new Error(`${file}: execution ${waiting.id} still waiting 60 s after the form`);
		await delay(300);
	}
}

type RunData = Record<
	string,
	Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>
>;

/**
 * What the editor shows for a finished execution, against the execution's own data: each node that ran shows the
 * success mark, no node shows an error, each connection's label carries the number of items its source node sent on
 * that output (none when it sent none), and each node whose first output item has a `candidateName` shows that name
 * in its output panel.
 */
async function expectEditorShowsRun(page: Page, file: string, run: ExecutionDetail): Promise<void> {
	expect({ file, status: run.status, error: run.data.resultData.error?.message }).toEqual({
		file,
		status: 'success',
		error: undefined,
	});
	const wf: WorkflowJson = example(file).wf;
	const runData = (run.data.resultData as { runData: RunData }).runData;
	const ranNodes = Object.keys(runData);
	expect(ranNodes.length).toBeGreaterThan(1);
	for (const name of ranNodes) {
		await within(`${file}: the editor shows "${name}" green`, 60_000, (timeout) =>
			page
				.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`)
				.locator('[data-test-id="canvas-node-status-success"]')
				.waitFor({ timeout }),
		);
	}
	const withIssues = await page
		.locator('[data-test-id="canvas-node"]')
		.filter({ has: page.locator('[data-test-id="node-issues"]') })
		.evaluateAll((els) => els.map((e) => e.getAttribute('data-node-name')));
	expect({ file, withIssues }).toEqual({ file, withIssues: [] });

	// The label of each connection: "<n> item(s)" (n8n adds "total" after several runs of the node).
	const nameOf = new Map(wf.nodes.map((n) => [String(n.id ?? n.name), n.name]));
	const expected: Record<string, number> = {};
	const connections = wf.connections as Record<
		string,
		{ main?: Array<Array<{ node: string }> | null> }
	>;
	for (const [source, outputs] of Object.entries(connections)) {
		(outputs.main ?? []).forEach((targets, output) => {
			const sent = (runData[source] ?? []).reduce(
				(sum, r) => sum + (r.data?.main?.[output]?.length ?? 0),
				0,
			);
			for (const target of targets ?? []) expected[`${source} -> ${target.node}`] = sent;
		});
	}
	const readLabels = async () => {
		const labels = await page.$$eval('[data-test-id="edge-label"]', (els) =>
			els.map((e) => ({
				source: e.getAttribute('data-source-node-name') ?? '',
				target: e.getAttribute('data-target-node-name') ?? '',
				text: (e.textContent ?? '').replace(/\s+/g, ' ').trim(),
			})),
		);
		const shown: Record<string, number> = {};
		for (const l of labels) {
			const key = `${nameOf.get(l.source) ?? l.source} -> ${nameOf.get(l.target) ?? l.target}`;
			shown[key] = Number(/(\d+) items?/.exec(l.text)?.[1] ?? 0);
		}
		return shown;
	};
	const shown = await eventually(
		page,
		readLabels,
		(s) => JSON.stringify(s) === JSON.stringify({ ...s, ...expected }),
		30_000,
	);
	expect({ file, itemsOnConnections: pick(shown, Object.keys(expected)) }).toEqual({
		file,
		itemsOnConnections: expected,
	});

	for (const name of ranNodes) {
		const first = runData[name].at(-1)?.data?.main?.[0]?.[0]?.json;
		if (typeof first?.candidateName !== 'string') continue;
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
		const output = page.locator('[data-test-id="ndv"] [data-test-id="output-panel"]');
		const text = await eventually(
			page,
			async () => ((await output.count()) > 0 ? await output.first().innerText() : ''),
			(t) => t.includes(first.candidateName as string),
			30_000,
		);
		expect({ file, node: name, showsName: text.includes(first.candidateName) }).toEqual({
			file,
			node: name,
			showsName: true,
		});
		await page
			.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]')
			.first()
			.click();
		await within(`${file}: the panel of "${name}" closes`, 10_000, (timeout) =>
			page.locator('[data-test-id="ndv"] [data-test-id="output-panel"]').waitFor({
				state: 'hidden',
				timeout,
			}),
		);
	}
	// Nothing selected, the whole flow in view: the picture a person sees after the run.
	await page.locator('.vue-flow__pane').click({ position: { x: 5, y: 5 } });
	await page.locator('[data-test-id="zoom-to-fit"]').click();
	await expectNoEditorError(browser, `${file}: after the run`, page);
}

/** The items a node of the run sent on its first output (its last run). */
const outputOf = (run: ExecutionDetail, node: string) =>
	((run.data.resultData as { runData: RunData }).runData[node]?.at(-1)?.data?.main?.[0] ?? []).map(
		(item) => item.json,
	);

const pick = (o: Record<string, number>, keys: string[]) =>
	Object.fromEntries(keys.map((k) => [k, o[k]]));

/** The printed hint of an example (what `npm start` tells to do), and its command lines. */
const hintOf = (file: string) => exampleHints(file, prepared.hints);
const commandsOf = (file: string) =>
	hintOf(file)
		.filter((line) => line.startsWith('   '))
		.map((line) => line.trim());
const runCommand = (command: string) =>
	execSync(command, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A manual example: click Execute workflow; answer its approval form when it stops at one; the editor shows the run. */
async function runManualExample(
	page: Page,
	file: string,
	approval?: { name: string },
): Promise<ExecutionDetail> {
	expect(hintOf(file)[0]).toMatch(/^click Execute workflow/);
	await openExample(page, file);
	const started = await clickExecuteWorkflow(page, file);
	expect({ file, executionId: typeof started.executionId }).toEqual({
		file,
		executionId: 'string',
	});
	let run = await followed(file, started.executionId!);
	if (approval) run = await approveInBrowser(file, run, approval.name);
	await expectEditorShowsRun(page, file, run);
	ran.add(file);
	return run;
}

/** A trigger example: click Execute workflow, which makes n8n listen on the trigger's test URL. */
async function listen(page: Page, file: string): Promise<Set<string>> {
	await openExample(page, file);
	const before = await executionIds(file);
	const started = await clickExecuteWorkflow(page, file);
	expect({ file, waitingForWebhook: started.waitingForWebhook }).toEqual({
		file,
		waitingForWebhook: true,
	});
	return before;
}

test('report-result-to-ats listens on Execute workflow; analyze-one-resume, run in a second tab and approved in its form, sends it report.result_ready', async () => {
	expect(hintOf(REPORT_EVENT_EXAMPLE).join('\n')).toContain(
		`then run "${prepared.hints.names[ANALYZE_ONE]}"`,
	);
	const { page } = browser;
	const before = await listen(page, REPORT_EVENT_EXAMPLE);

	const tab = await browser.ctx.newPage();
	const analyzed = await runManualExample(tab, ANALYZE_ONE, { name: 'Ada Example' });
	await docsShot(tab, env, 'example-analyze-one-resume', `examples/${ANALYZE_ONE}`);
	await tab.close();

	const fromEditor = await followed(
		REPORT_EVENT_EXAMPLE,
		await editorExecution(REPORT_EVENT_EXAMPLE, before),
	);
	await expectEditorShowsRun(page, REPORT_EVENT_EXAMPLE, fromEditor);
	await shot(page, 'example-report-result-to-ats');
	const [{ reportId }] = outputOf(analyzed, 'Analyze Resume');
	expect(outputOf(fromEditor, 'Append ATS Row')).toEqual([expect.objectContaining({ reportId })]);
	ran.add(REPORT_EVENT_EXAMPLE);
});

test('interview-result-decision listens on Execute workflow; the printed command completes the approved interview', async () => {
	const [command] = commandsOf(INTERVIEW_EVENT_EXAMPLE);
	expect(command).toMatch(/^npx tsx scripts\/complete-interview\.ts /);
	const { page } = browser;
	const before = await listen(page, INTERVIEW_EVENT_EXAMPLE);
	expect(runCommand(command)).toMatch(/interview int_\S+ completed/);
	const fromEditor = await followed(
		INTERVIEW_EVENT_EXAMPLE,
		await editorExecution(INTERVIEW_EVENT_EXAMPLE, before),
	);
	await expectEditorShowsRun(page, INTERVIEW_EVENT_EXAMPLE, fromEditor);
	await shot(page, 'example-interview-result-decision');
	ran.add(INTERVIEW_EVENT_EXAMPLE);
});

test('ats-application-to-interview listens on Execute workflow; the printed curl posts an application, approved in its form', async () => {
	const [command] = commandsOf(ATS_EXAMPLE);
	expect(command).toContain('/webhook-test/');
	const { page } = browser;
	const before = await listen(page, ATS_EXAMPLE);
	runCommand(command);
	const waiting = await followed(ATS_EXAMPLE, await editorExecution(ATS_EXAMPLE, before));
	const applicant = SAMPLE_APPLICANTS[0];
	const run = await approveInBrowser(ATS_EXAMPLE, waiting, applicant.name);
	await expectEditorShowsRun(page, ATS_EXAMPLE, run);
	await shot(page, 'example-ats-application-to-interview');
	expect(outputOf(run, 'Analyze Resume')).toEqual([
		expect.objectContaining({ candidateName: applicant.name }),
	]);
	ran.add(ATS_EXAMPLE);
});

test('upload-many-start-many runs on Execute workflow', async () => {
	const run = await runManualExample(browser.page, 'upload-many-start-many.json');
	expect(outputOf(run, 'Start Many')).toHaveLength(outputOf(run, 'Upload Many').length);
	await shot(browser.page, 'example-upload-many-start-many');
});

test('analyze-many-resumes runs on Execute workflow', async () => {
	const run = await runManualExample(browser.page, 'analyze-many-resumes.json');
	expect(outputOf(run, 'Analyze Many')).toHaveLength(outputOf(run, 'Resume Files').length);
	await shot(browser.page, 'example-analyze-many-resumes');
});

test('shortlist-folder-of-resumes runs on Execute workflow on the sample files, approved in its form', async () => {
	expect(hintOf(FOLDER_EXAMPLE)[0]).toContain(prepared.hints.resumesDir);
	const run = await runManualExample(browser.page, FOLDER_EXAMPLE, { name: 'Ada Lovelace' });
	await shot(browser.page, 'example-shortlist-folder-of-resumes');
	expect(outputOf(run, 'Invite to Interview')).toHaveLength(2);
});

test('feed-route-by-event-type runs on Execute workflow: the latest events of the feed, routed by type', async () => {
	const run = await runManualExample(browser.page, 'feed-route-by-event-type.json');
	expect(outputOf(run, 'Event Feed').length).toBeGreaterThan(0);
	await shot(browser.page, 'example-feed-route-by-event-type');
});

test('every example of examples/ ran from the editor, but the PostgreSQL one npm start says it cannot run and the agent one it runs in its chat', () => {
	expect([...ran].sort()).toEqual(listExamples().filter((file) => !notHere(file)));
	for (const file of NOT_RUN_AFTER_NPM_START)
		expect(hintOf(file)[0]).toMatch(/^not runnable as started: it needs a PostgreSQL server/);
});
