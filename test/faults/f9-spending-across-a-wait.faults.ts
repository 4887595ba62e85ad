/**
 * F9-wait: a Wait for approval between analysis and invitation, with the execution resumed by another process,
 * under a Spending Limit (docs/idempotency.md "Where the Spending Limit lives"). In a real n8n (our tarball
 * installed as a community package; 2.x, and 1.x where the fault suite's configuration selects it):
 *
 *   Manual Trigger → Input (Code: one resume) → Analyze Resume (Wait for Completion; Spending Limit L)
 *     → Wait (resume on a webhook call: the recruiter's approval) → Invite (the report Analyze made; Spending Limit L;
 *       On Error: continue)
 *
 * An analysis costs 1 credit and an invitation 2.5 in the sandbox. Two executions run up to their Wait: one under
 * a limit of 3 credits (the two writes together, 3.5, would pass it) and the control under 3.5 (they fit). n8n is
 * then stopped while both wait and started again on the same database (another process), and both Waits are
 * resumed by their webhook. Measured with the sandbox's exact counters and mail sink: the first execution's
 * invitation is not sent (no interview, no email) and its item says why, with what the execution spent before the
 * Wait; the control's invitation is sent and charged 2.5 credits.
 */
import { FigureBook, type FigureValue } from './figures';
import {
	caseWorkspace,
	formatWrites,
	minus,
	randomId,
	type CaseWorkspace,
	type Writes,
} from './f8-harness';
import {
	actionNode,
	byId,
	inputWorkflow,
	NONE,
	recruiterCredential,
	type Credential,
	resumeWaiting,
	waitingExecution,
} from './f9-harness';
import { makePdf } from '../fixtures/resumes';
import {
	nodeOutput,
	startN8n,
	type ExecutionDetail,
	type N8nInstance,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-wait' : `F9-wait-n8n${line}`,
	`The Spending Limit across a Wait resumed by another process (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const log = (text: string) => process.stderr.write(`[F9-wait] ${text}\n`);

let env: RealN8n;
/** n8n started again on the same database while the executions wait. */
let restarted: N8nInstance | undefined;
let w: CaseWorkspace;
let credential: Credential;

interface Case {
	id: string;
	what: string;
	limit: number;
	candidate: string;
	email: string;
	/** What the run before the Wait asks for, and what the resumed run asks for. */
	beforeWait: Writes;
	afterWait: Writes;
	/** Whether the invitation is sent (the control) or refused by the Spending Limit. */
	invited: boolean;
}

const analysis: Writes = { reports: 1, attempts: 1, interviews: 0, emails: 0 };
const invitation: Writes = { reports: 0, attempts: 0, interviews: 1, emails: 1 };

const CASES: Case[] = [
	{
		id: '1',
		what: 'limit 3 credits: the analysis (1) and the invitation (2.5) together pass it',
		limit: 3,
		candidate: 'F9 Wait Over',
		email: 'f9-wait-over@example.com',
		beforeWait: analysis,
		afterWait: NONE,
		invited: false,
	},
	{
		id: '2',
		what: 'control, limit 3.5 credits: the two fit',
		limit: 3.5,
		candidate: 'F9 Wait Within',
		email: 'f9-wait-within@example.com',
		beforeWait: analysis,
		afterWait: invitation,
		invited: true,
	},
];

/** Manual Trigger → Input → Analyze Resume → Wait (webhook) → Invite, under the case's Spending Limit. */
function workflow(c: Case): WorkflowJson {
	const pdf = makePdf({ candidate: c.candidate, outcome: 'completed', score: 7 });
	const input = [
		{
			json: { fileName: `${c.id}.pdf` },
			binary: {
				data: {
					data: pdf.toString('base64'),
					mimeType: 'application/pdf',
					fileName: `f9-wait-${c.id}.pdf`,
					fileExtension: 'pdf',
				},
			},
		},
	];
	return inputWorkflow(`F9-wait ${c.id}`, `return ${JSON.stringify(input)};`, [
		actionNode(credential, 'Analyze', 440, {
			resource: 'analysis',
			operation: 'analyzeResume',
			binaryPropertyName: 'data',
			jobDescriptionSource: 'existing',
			jobDescriptionId: byId(w.ws.jobDescriptionId),
			waitForCompletion: true,
			spendingLimit: c.limit,
			options: { waitTimeout: 120 },
		}),
		{
			id: randomId(),
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [660, 0],
			parameters: { resume: 'webhook', httpMethod: 'POST', options: {} },
			webhookId: randomId(),
		},
		actionNode(
			credential,
			'Invite',
			880,
			{
				resource: 'interview',
				operation: 'invite',
				reportId: byId("={{ $('Analyze').first().json.reportId }}"),
				candidateEmail: c.email,
				delivery: 'email',
				spendingLimit: c.limit,
			},
			'continueRegularOutput',
		),
	]);
}

interface Measured {
	c: Case;
	executionId: string;
	beforeWait: Writes;
	afterWait?: Writes;
	finished?: ExecutionDetail;
}
const measured = new Map<string, Measured>();
let setupError: unknown;

beforeAll(async () => {
	book.note(
		'One workspace; each row is one execution of Analyze Resume → Wait (resume on a webhook call) → Invite, both nodes with the same Spending Limit. Both executions run to their Wait in the first n8n process; that process is stopped while they wait, n8n is started again on the same database, and each Wait is resumed by its webhook. "before the Wait" and "after the resume" are the sandbox counters (reports, analysis attempts, interviews) and its mail sink (emails) measured at those moments. An analysis costs 1 credit, an invitation 2.5.',
	);
	try {
		env = await bootRealN8n('faults-f9-wait');
		w = await caseWorkspace(env.sandbox.baseUrl);
		credential = await recruiterCredential(env, w, 'F9-wait recruiter');
		for (const c of CASES) {
			const before = await w.writes();
			const { id } = await env.n8n.createWorkflow(workflow(c));
			const executionId = await env.n8n.startManualRun(id);
			const waiting = await waitingExecution(env.n8n, executionId);
			const analysed = nodeOutput(waiting.data, 'Analyze');
			log(`${c.id}: waiting (${executionId}); Analyze output ${JSON.stringify(analysed[0] ?? {})}`);
			measured.set(c.id, { c, executionId, beforeWait: minus(await w.writes(), before) });
		}
		// Another process: this n8n stops while the executions wait, a new one starts on the same database.
		await env.n8n.stop();
		restarted = await startN8n({ userFolder: env.userFolder, log, line });
		await restarted.login();
		for (const m of measured.values()) {
			const before = await w.writes();
			await resumeWaiting(restarted, restarted.baseUrl, m.executionId);
			m.finished = await restarted.finishedExecution(m.executionId);
			m.afterWait = minus(await w.writes(), before);
		}
	} catch (error) {
		setupError = error;
	}
}, 600_000);

afterAll(async () => {
	book.table('executions', rows);
	book.save();
	await restarted?.stop();
	await env?.close();
}, 120_000);

describe('F9-wait: the Spending Limit across a Wait resumed by another process', () => {
	for (const c of CASES) {
		it(
			c.invited
				? `${c.id} a Wait for approval resumed by another process under a Spending Limit the two writes fit: the invitation is sent and charged 2.5 credits`
				: `${c.id} a Wait for approval resumed by another process under a Spending Limit the two writes pass: the invitation is not sent, and the item says why`,
			() => {
				if (setupError) throw setupError;
				const m = measured.get(c.id)!;
				const e = m.finished!;
				const [invited] = nodeOutput(e.data, 'Invite');
				const [analysed] = nodeOutput(e.data, 'Analyze');
				const error = typeof invited?.error === 'string' ? invited.error : '';
				const description = typeof invited?.description === 'string' ? invited.description : '';
				const says = c.invited
					? invited?.creditsUsed === 2.5 && typeof invited?.interviewId === 'string'
					: error.includes(
							`Spending Limit of ${c.limit} credits reached: this invitation costs 2.5 credits and 1 was already spent`,
						) && description.includes('Raise Spending Limit (Credits)');
				const writesOk =
					Object.values(minus(m.beforeWait, c.beforeWait)).every((n) => n === 0) &&
					Object.values(minus(m.afterWait!, c.afterWait)).every((n) => n === 0);
				const ok = writesOk && says && e.status === 'success' && analysed?.status === 'completed';
				rows.push({
					execution: c.id,
					what: c.what,
					'Spending Limit': c.limit,
					'before the Wait': formatWrites(m.beforeWait),
					'after the resume': formatWrites(m.afterWait!),
					asked: `${formatWrites(c.beforeWait)}; then ${formatWrites(c.afterWait, 'no new write')}`,
					'Analyze report': `${String(analysed?.reportId)} ${String(analysed?.status)}`,
					'Invite item': c.invited
						? `interview ${String(invited?.interviewId)}, creditsUsed ${String(invited?.creditsUsed)}`
						: `${error} (${description.slice(0, 120)})`,
					status: e.status,
					held: ok ? 'yes' : '**no**',
				});
				book.check(
					`${c.id} ${c.what}: ${formatWrites(c.beforeWait)} before the Wait; ${c.invited ? '1 interview, 1 email after the resume' : 'no interview, no email after the resume, the item names the limit and the 1 credit spent before the Wait'}`,
					`before ${formatWrites(m.beforeWait)}; after ${formatWrites(m.afterWait!)}; ${c.invited ? `creditsUsed ${String(invited?.creditsUsed)}` : error}`,
					ok,
				);
				log(`${c.id}: ${ok ? 'held' : 'DID NOT HOLD'}; ${JSON.stringify(invited ?? {})}`);
				expect({ beforeWait: m.beforeWait, afterWait: m.afterWait }).toEqual({
					beforeWait: c.beforeWait,
					afterWait: c.afterWait,
				});
				expect(e.status).toBe('success');
				expect(analysed?.status).toBe('completed');
				// What the item says, as facts with their expected values (the row above keeps the texts).
				const outcome = c.invited
					? {
							creditsUsed: invited?.creditsUsed,
							interviewNamed: typeof invited?.interviewId === 'string',
						}
					: {
							limitNamed: String(error).includes(
								`Spending Limit of ${c.limit} credits reached: this invitation costs`,
							),
							spentNamed: String(error).includes('and 1 was already spent'),
						};
				expect(outcome).toEqual(
					c.invited
						? { creditsUsed: 2.5, interviewNamed: true }
						: { limitNamed: true, spentNamed: true },
				);
			},
		);
	}

	it("the mail sink: one email, to the control's candidate only", async () => {
		if (setupError) throw setupError;
		const mail = await w.mail();
		expect(mail.map((m) => m.to)).toEqual([CASES[1].email]);
	});
});
