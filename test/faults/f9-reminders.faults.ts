/**
 * F9, two reminders on two days, in a real n8n (our tarball installed as a community package; 2.x, and 1.x where
 * the fault suite's configuration selects it). A recruiter's reminder workflow
 *
 *   Manual Trigger → Input (Code: the candidates with a pending invitation) → Resend
 *
 * runs on day 1, and again on day 2 with the sandbox clock moved a day on; on day 2 every answer to the resends is
 * lost after the service queued the email (commit-then-drop on each of the node's tries), so the execution fails,
 * and the recruiter presses Retry on it in the executions list (POST /rest/executions/:id/retry, original
 * workflow). docs/idempotency.md ("A reminder: Interview > Resend") says what each run may send: one email per
 * candidate on each day, nothing more on the Retry. Measured after each run: the sandbox's mail sink (every email
 * queued, by candidate) and counters, and the node's output (each item names the email delivery it queued).
 */
import { FigureBook, type FigureValue } from './figures';
import {
	caseWorkspace,
	formatWrites,
	inputCode,
	minus,
	retryExecution,
	type CaseWorkspace,
	type Writes,
} from './f8-harness';
import {
	actionNode,
	inputWorkflow,
	recruiterCredential,
	STEP_TIMEOUT,
	type Credential,
} from './f9-harness';
import { nodeOutput, type ExecutionDetail, type WorkflowJson } from '../../scripts/n8n-host';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';
import { completedReport, invited } from '../sandbox/setup';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-reminders' : `F9-reminders-n8n${line}`,
	`Two reminders on two days, in a real n8n (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const CANDIDATES = 2;
const DAY_MS = 24 * 3600 * 1000;
const RESEND = 'Resend';

let env: RealN8n;
let w: CaseWorkspace;
let workflowId = '';
/** The candidates: their address and pending invitation. */
let candidates: Array<{ email: string; interviewId: string }> = [];
/** Emails each run asked for, so far (the invitations included). */
let expectedEmails = 0;

/** Manual Trigger → Input (Code: the candidates) → Resend. */
function reminderWorkflow(credential: Credential): WorkflowJson {
	return inputWorkflow('F9 reminders', inputCode(candidates.map((c) => ({ json: c }))), [
		actionNode(credential, RESEND, 440, {
			resource: 'interview',
			operation: 'resend',
			interviewId: { __rl: true, mode: 'id', value: '={{ $json.interviewId }}' },
			options: {},
		}),
	]);
}

/** Emails in the mail sink by candidate address (the invitation and every resend). */
async function emailsByCandidate(): Promise<Record<string, number>> {
	const mail = await w.mail();
	return Object.fromEntries(
		candidates.map((c) => [c.email, mail.filter((m) => m.to === c.email).length]),
	);
}

interface StepSpec {
	id: string;
	what: string;
	/** Emails the step asks for (one per candidate, or none). */
	emails: number;
	execution: 'success' | 'error';
}

/** Runs one step, measures the writes it made, records them, and asserts the counts the step asks for. */
async function step(
	spec: StepSpec,
	run: () => Promise<ExecutionDetail>,
): Promise<{ execution: ExecutionDetail; deliveries: string[] }> {
	const started = Date.now();
	const before = await w.writes();
	const execution = await run();
	const after = await w.writes();
	const added = minus(after, before);
	expectedEmails += spec.emails;
	const asked: Writes = { reports: 0, attempts: 0, interviews: 0, emails: spec.emails };
	const deliveries = nodeOutput(execution.data, RESEND)
		.map((o) => (typeof o.deliveryId === 'string' ? o.deliveryId : ''))
		.filter((d) => d !== '');
	const byCandidate = await emailsByCandidate();
	const ok =
		Object.values(minus(added, asked)).every((n) => n === 0) &&
		after.emails === expectedEmails &&
		execution.status === spec.execution;
	rows.push({
		step: spec.id,
		what: spec.what,
		execution: `${execution.id} ${execution.status}`,
		'new writes': formatWrites(added),
		asked: formatWrites(asked, 'no email'),
		'emails so far': after.emails,
		'emails expected': expectedEmails,
		'emails by candidate': Object.values(byCandidate).join(' / '),
		'items naming a delivery': deliveries.length,
		seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
		held: ok ? 'yes' : '**no**',
	});
	book.check(
		`${spec.id} ${spec.what}: ${formatWrites(asked, 'no new email')}; ${expectedEmails} emails in all; execution ${spec.execution}`,
		`new ${formatWrites(added)}; ${after.emails} emails in all; execution ${execution.status}`,
		ok,
	);
	process.stderr.write(
		`[F9-reminders] ${spec.id}: ${ok ? 'held' : 'DID NOT HOLD'}; new ${formatWrites(added)}; ${execution.status}\n`,
	);
	expect({ step: spec.id, added, emails: after.emails, execution: execution.status }).toEqual({
		step: spec.id,
		added: asked,
		emails: expectedEmails,
		execution: spec.execution,
	});
	return { execution, deliveries };
}

beforeAll(async () => {
	book.note(
		'One workspace; each row is one run of the reminder workflow (Manual Trigger → Input → Resend, two candidates with a pending invitation). "new writes" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) after the run minus before; the invitations were sent before the first row (2 emails). Day 2 loses every answer to the resends after the service queued them (all 4 tries of each item), so that execution fails; its Retry is the executions list\'s Retry (original workflow).',
	);
	env = await bootRealN8n('faults-f9-reminders');
	w = await caseWorkspace(env.sandbox.baseUrl);
	candidates = await Promise.all(
		Array.from({ length: CANDIDATES }, async (_, i) => {
			const email = `f9-reminder-${i + 1}@example.com`;
			const reportId = await completedReport(w.ws, {
				candidate: `F9 Reminder ${i + 1}`,
				outcome: 'completed',
				score: 7,
			});
			const interview = await invited(w.ws, reportId, email);
			return { email, interviewId: String(interview.interviewId) };
		}),
	);
	expectedEmails = CANDIDATES;
	const credential = await recruiterCredential(env, w, 'F9 reminders');
	workflowId = (await env.n8n.createWorkflow(reminderWorkflow(credential))).id;
}, 420_000);

afterAll(async () => {
	await w?.control.clearFaults();
	book.table('steps', rows);
	book.set('emails (sandbox mail sink)', w ? (await w.mail()).length : 'not measured');
	book.set('emails asked for', expectedEmails);
	book.save();
	await env?.close();
}, 120_000);

const runs: Record<string, { execution: ExecutionDetail; deliveries: string[] }> = {};

describe('F9: two reminders on two days', () => {
	it(
		'day 1: the reminder workflow sends one email to each candidate',
		async () => {
			runs.day1 = await step(
				{ id: 'R1', what: 'day 1: reminders', emails: CANDIDATES, execution: 'success' },
				async () => await env.n8n.runManually(workflowId),
			);
			expect(runs.day1.deliveries).toHaveLength(CANDIDATES);
		},
		STEP_TIMEOUT,
	);

	it(
		'day 2 (the sandbox clock a day on), every answer lost after the emails were queued: one more email each, the execution fails',
		async () => {
			await w.control.advanceClock(DAY_MS);
			await w.control.setFaults({
				rules: [
					{
						method: 'POST',
						path: '/api/v1/interviews/{id}/resend',
						mode: 'commit-then-drop',
						count: 4 * CANDIDATES,
					},
				],
			});
			try {
				runs.day2 = await step(
					{
						id: 'R2',
						what: 'day 2: reminders, answers lost',
						emails: CANDIDATES,
						execution: 'error',
					},
					async () => await env.n8n.runManually(workflowId),
				);
			} finally {
				await w.control.clearFaults();
			}
		},
		STEP_TIMEOUT,
	);

	it(
		"day 2's execution retried (executions list, original workflow): nothing more sent, each item names day 2's email",
		async () => {
			const failed = runs.day2?.execution;
			if (!failed) throw new Error('day 2 did not run');
			const retried = await step(
				{ id: 'R3', what: "day 2's execution retried", emails: 0, execution: 'success' },
				async () => {
					const retry = await retryExecution(env.n8n, failed.id, false);
					if (!retry.id) throw new Error(`n8n refused the Retry: ${retry.refused}`);
					return await env.n8n.finishedExecution(retry.id);
				},
			);
			const mail = await w.mail();
			const day1 = new Set(runs.day1?.deliveries ?? []);
			const day2Emails = mail
				.filter((m) => candidates.some((c) => c.email === m.to))
				.map((m) => m.deliveryId)
				.slice(-CANDIDATES);
			expect(retried.deliveries).toHaveLength(CANDIDATES);
			expect(new Set(retried.deliveries)).toEqual(new Set(day2Emails));
			expect(retried.deliveries.filter((d) => day1.has(d))).toEqual([]);
		},
		STEP_TIMEOUT,
	);

	it('the two days in all: each candidate has had the invitation and two reminders (3 emails), no more', async () => {
		const byCandidate = await emailsByCandidate();
		const asked = Object.fromEntries(candidates.map((c) => [c.email, 3]));
		book.check(
			'each candidate: the invitation and two reminders, 3 emails',
			byCandidate,
			JSON.stringify(byCandidate) === JSON.stringify(asked),
		);
		expect(byCandidate).toEqual(asked);
	});
});
