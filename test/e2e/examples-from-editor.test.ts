/**
 * The three examples that start from an event, run from the editor's Execute workflow button, the way `npm start`
 * prepares and explains them (test/e2e/as-npm-start.ts, with scripts/start-kit.ts): the trigger workflows active and
 * their production and test URLs registered with the sandbox (registerTriggerReceivers), then per example what `npm start` prints
 * (exampleHints): click Execute workflow, then run the analysis example, the interview command, or the curl that
 * posts an application. The button is `POST /rest/workflows/{id}/run`, as the editor sends it; the commands are
 * run as printed. The tests share one n8n and run in order: the first one's invitation is the interview the
 * second completes.
 */
import { execSync } from 'node:child_process';

import { REPO_ROOT, delay, nodeOutput, type ExecutionDetail } from '../../scripts/n8n-host';
import {
	APPROVE,
	ATS_EXAMPLE,
	INTERVIEW_EVENT_EXAMPLE,
	REPORT_EVENT_EXAMPLE,
	SAMPLE_APPLICANTS,
	answerForm,
	clickExecute,
	exampleHints,
	runAsEditor,
	settled,
	waitingForm,
	type HintContext,
} from '../../scripts/start-kit';
import { importExamplesAsNpmStart } from './as-npm-start';
import { bootRealN8n, type RealN8n } from './helpers';

let env: RealN8n;
let hints: HintContext;
const ids: Record<string, string> = {};
let reportId = '';
let interviewId = '';

beforeAll(async () => {
	// HOME in the user folder, as for the other examples files: they share one n8n (test/real-n8n-sequencer.js).
	env = await bootRealN8n('e2e-from-editor', { homeInUserFolder: true });
	const prepared = await importExamplesAsNpmStart(env, [
		'analyze-one-resume.json',
		REPORT_EVENT_EXAMPLE,
		INTERVIEW_EVENT_EXAMPLE,
		ATS_EXAMPLE,
	]);
	for (const [file, { id }] of Object.entries(prepared.imported)) ids[file] = id;
	hints = prepared.hints;
}, 300_000);

afterAll(async () => {
	await env?.close();
});

/** The editor's button on a webhook trigger: n8n answers that it waits for a call to the test URL. */
async function listen(file: string, triggerName: string): Promise<void> {
	const answer = await clickExecute(env.n8n, ids[file], triggerName);
	expect(answer).toEqual(expect.objectContaining({ waitingForWebhook: true }));
}

/** The execution the editor's test URL started (mode manual), followed until it ends or waits for a form. */
async function manualRun(file: string): Promise<ExecutionDetail> {
	for (let i = 0; i < 240; i++) {
		const manual = (await env.n8n.listExecutions(ids[file])).filter((e) => e.mode !== 'webhook');
		if (manual.length > 0) return await settled(env.n8n, manual[0].id, 120_000);
		await delay(500);
	}
	throw new Error(`${file}: no execution from the editor's test URL after 120 s`);
}

/** The command lines (indented) `npm start` prints for an example. */
const printedCommand = (file: string) =>
	exampleHints(file, hints)
		.filter((line) => line.startsWith('   '))
		.map((line) => line.trim());

const run = (command: string) =>
	execSync(command, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('report-result-to-ats runs from Execute workflow: the sandbox delivers the next report.result_ready to the test URL', async () => {
	expect(exampleHints(REPORT_EVENT_EXAMPLE, hints).join('\n')).toContain(
		`then run "${hints.names['analyze-one-resume.json']}"`,
	);
	await listen(REPORT_EVENT_EXAMPLE, 'Report Result Ready');
	// As printed: run the analysis example; it stops at its approval form, which is answered Yes.
	const demo = await runAsEditor(env.n8n, ids['analyze-one-resume.json'], 'Run Example', 180_000);
	const analyzed = nodeOutput(demo.data, 'Analyze Resume')[0];
	reportId = String(analyzed?.reportId);
	const form = waitingForm(demo, env.n8n.baseUrl);
	expect(form?.node).toBe('Recruiter Approves');
	await answerForm(form!, [APPROVE]);

	const fromEditor = await manualRun(REPORT_EVENT_EXAMPLE);
	expect({ status: fromEditor.status, error: fromEditor.data.resultData.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	expect(nodeOutput(fromEditor.data, 'Append ATS Row')).toEqual([
		expect.objectContaining({
			reportId,
			candidateName: analyzed?.candidateName,
			score: analyzed?.score,
		}),
	]);
});

test('interview-result-decision runs from Execute workflow: the printed command completes the invited interview', async () => {
	const [command] = printedCommand(INTERVIEW_EVENT_EXAMPLE);
	expect(command).toMatch(/^npx tsx scripts\/complete-interview\.ts http:\/\/127\.0\.0\.1:\d+ ws_/);
	// The invitation the first test approved (its email is in the sandbox's mail sink).
	for (let i = 0; i < 60 && !interviewId; i++) {
		const { items } = await env.sandbox.control.call<{ items: Array<{ interviewId: string }> }>(
			'GET',
			`/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/mail`,
		);
		interviewId = items[0]?.interviewId ?? '';
		if (!interviewId) await delay(500);
	}
	expect(interviewId).toMatch(/^int_/);
	await listen(INTERVIEW_EVENT_EXAMPLE, 'Interview Result Ready');
	expect(run(command)).toContain(`interview ${interviewId} completed`);

	const fromEditor = await manualRun(INTERVIEW_EVENT_EXAMPLE);
	expect({ status: fromEditor.status, error: fromEditor.data.resultData.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	expect(nodeOutput(fromEditor.data, 'Get Interview Result')).toEqual([
		expect.objectContaining({ id: interviewId, reportId }),
	]);
	const decided = [
		...nodeOutput(fromEditor.data, 'Advance Candidate'),
		...nodeOutput(fromEditor.data, 'Human Review'),
	];
	expect(decided).toEqual([
		expect.objectContaining({ interviewId, reportId, candidateName: expect.any(String) }),
	]);
});

test('ats-application-to-interview runs from Execute workflow: the printed curl posts a sample application', async () => {
	const [command] = printedCommand(ATS_EXAMPLE);
	expect(command).toContain(`${env.n8n.baseUrl}/webhook-test/ats-new-application`);
	await listen(ATS_EXAMPLE, 'New Application');
	run(command);

	const waiting = await manualRun(ATS_EXAMPLE);
	const form = waitingForm(waiting, env.n8n.baseUrl);
	expect(form?.node).toBe('Recruiter Approves');
	await answerForm(form!, [APPROVE]);
	let done = waiting;
	for (let i = 0; i < 100 && done.status === 'waiting'; i++) {
		await delay(200);
		done = await settled(env.n8n, waiting.id);
	}
	expect({ status: done.status, error: done.data.resultData.error?.message }).toEqual({
		status: 'success',
		error: undefined,
	});
	const applicant = SAMPLE_APPLICANTS[0];
	expect(nodeOutput(done.data, 'ATS Update')).toEqual([
		expect.objectContaining({
			applicationId: 'APP-1001',
			name: applicant.name,
			email: applicant.email,
			score: applicant.score,
		}),
	]);
});
