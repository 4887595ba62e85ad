/**
 * F9-queue: the Spending Limit's fault cases in n8n's queue mode (docs/idempotency.md "Where the Spending Limit
 * lives", docs/scaling.md "The Spending Limit in queue mode"). One real n8n stack for every case (Redis,
 * PostgreSQL, the main, two workers, one webhook process: scripts/n8n-host/queue.ts; the worker lock shortened to
 * 10 s so that a killed worker is noticed within seconds), our tarball installed as a community package, the
 * sandbox process's counters and mail sink as the truth. An analysis costs 1 credit, an invitation 2.5 (2 in case 4).
 *
 * 1. Analyze Many (4 files, limit 5) is charged, its wait reaches the Batch Timeout; Retry runs the Invite: refused.
 * 2. The same with every batch read answering 503.
 * 3. Analyze Many with On Error: continue, whose wait reaches the Batch Timeout, then a Wait resumed on the OTHER
 *    worker (the first one stopped), then Invite: refused under 5; sent under the control's 6.5.
 * 4. Invite Many (limit 10, 4 invitations at 2 credits) whose batch reads answer 503: the total saved with the failed
 *    execution is the 8 credits the sandbox charged.
 * 5. A worker killed (SIGKILL) during Invite Many (12 candidates, limit 17.5: its batch holds 7), then n8n's Retry and
 *    a re-run of the same workflow: the Retry runs no node; the re-run reports the 7 as recovered with their
 *    interviews, invites the 5 others, and the killed run and the re-run together spend at most twice the limit.
 * 6. The API's clock 5 s and 5 min behind and ahead of n8n's (a proxy on loopback shifts the API's Date header and
 *    every time in its answers: f9-harness.ts clockShiftingProxy): Analyze Many of 25 files under a limit of 20
 *    charges 20 and says so item by item.
 * 7. Behind the same proxy at the same four skews: a Start Many refused for the allowance (3 reports) is submitted
 *    again by a re-run after the top-up (the batch is told as the earlier run's by the API's own times).
 *
 * The same file runs on n8n 1.x (a 1.x queue stack: scripts/n8n-host/queue.ts `line`); there case 5 differs as n8n
 * does: 1.x gives the killed worker's stalled job to the other worker, which runs the execution again from its start.
 * The same cases outside queue mode: f9-spending-after-a-failed-wait and test/nodes/action (spending-limit-errors,
 * rerun-after-crash, clock-skew).
 */
import { FigureBook, type FigureValue } from './figures';
import {
	caseWorkspace,
	formatWrites,
	minus,
	retryExecution,
	type CaseWorkspace,
	type Writes,
} from './f8-harness';
import {
	actionNode,
	analyzeThenInvite,
	batchReadsFail,
	failBatchWait,
	letBatchFinish,
	byId,
	clockShiftingProxy,
	completedReports,
	creditsOf,
	inputWorkflow,
	inviteManyWorkflow,
	recruiterCredential,
	resumesCode,
	resumeWaiting,
	savedSpending,
	waitingExecution,
	type Credential,
} from './f9-harness';
import { delay, nodeOutput } from '../../scripts/n8n-host';
import type { QueueStack } from '../../scripts/n8n-host/queue';
import { bootRealN8n, n8nLineUnderTest, n8nUnderTest, type RealN8n } from '../e2e/helpers';

const line = n8nLineUnderTest();
const book = new FigureBook(
	line === '2' ? 'F9-queue' : `F9-queue-n8n${line}`,
	`The Spending Limit's fault cases in queue mode: failed waits, Retry, a Wait resumed on another worker, a killed worker (F9; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} queue mode (main, 2 workers, 1 webhook process, Redis, PostgreSQL) + sandbox process`,
);
const rows: Array<Record<string, FigureValue>> = [];
const log = (text: string) => process.stderr.write(`[F9-queue] ${text}\n`);
const TIMEOUT = 300_000;

let env: RealN8n;
const stack = (): QueueStack => env.stack!;

beforeAll(async () => {
	book.note(
		'One queue-mode stack for every case, one sandbox workspace per case. "sandbox" columns are the workspace\'s counters (reports, analysis attempts, interviews) and its mail sink (emails) at that moment, counted from the start of the case; credits are those writes at the sandbox\'s prices (1 per analysis attempt, 2.5 per interview unless the row says otherwise).',
	);
	env = await bootRealN8n('faults-f9-queue', {
		queue: {
			line,
			workers: 2,
			webhooks: 1,
			env: {
				QUEUE_WORKER_LOCK_DURATION: '10000',
				QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
				QUEUE_WORKER_STALLED_INTERVAL: '5000',
			},
		},
	});
}, 600_000);

afterAll(async () => {
	try {
		book.table('executions', rows);
		book.save();
	} finally {
		await env?.close();
	}
}, 180_000);

/** Starts a workflow as the editor's Execute workflow does; a worker runs it. */
async function start(workflowId: string): Promise<string> {
	return await env.n8n.startManualRun(workflowId);
}

/** Sets up a case: a fresh workspace and the recruiter's credential for it. */
async function newCase(name: string): Promise<{ w: CaseWorkspace; credential: Credential }> {
	const w = await caseWorkspace(env.sandbox.baseUrl);
	return { w, credential: await recruiterCredential(env, w, `F9-queue ${name}`) };
}

const inviteText = (item: Record<string, unknown> | undefined): string =>
	typeof item?.interviewId === 'string'
		? `interview ${item.interviewId}, creditsUsed ${String(item.creditsUsed)}`
		: `${String(item?.error ?? '(no item)')}`.slice(0, 160);

function row(
	id: string,
	what: string,
	limit: number,
	workers: string,
	first: string,
	after: Writes,
	item: string,
	held: boolean,
	interviewPrice = 2.5,
): void {
	rows.push({
		case: id,
		what,
		'Spending Limit': limit,
		workers,
		'first execution': first,
		'sandbox at the end': formatWrites(after),
		'credits charged': creditsOf(after, interviewPrice),
		emails: after.emails,
		'item / total': item,
		held: held ? 'yes' : '**no**',
	});
}

interface RetryCase {
	id: string;
	what: string;
	failure: 'timeout' | 'read503';
}

const RETRY_CASES: RetryCase[] = [
	{ id: '1', what: 'limit 5, the wait reaches the Batch Timeout, then Retry', failure: 'timeout' },
	{ id: '2', what: 'limit 5, every batch read answers 503, then Retry', failure: 'read503' },
];

describe('F9-queue: the Spending Limit in queue mode', () => {
	for (const c of RETRY_CASES) {
		it(
			`${c.id} ${c.what}: 4 analyses charged once, the Invite refused by the Retry, no interview, no email`,
			async () => {
				const { w, credential } = await newCase(c.id);
				await failBatchWait(w, c.failure);
				const before = await w.writes();
				const { id } = await env.n8n.createWorkflow(
					analyzeThenInvite({
						credential,
						jobDescriptionId: w.ws.jobDescriptionId,
						name: `F9-queue ${c.id}`,
						tag: `queue${c.id}`,
						limit: 5,
						email: `f9-queue-${c.id}@example.com`,
					}),
				);
				const failed = await stack().waitForExecution(await start(id), TIMEOUT);
				const atFailure = minus(await w.writes(), before);
				const savedAtFailure = savedSpending(failed);
				await letBatchFinish(w, c.failure);
				const retry = await retryExecution(env.n8n, failed.id, false);
				if (!retry.id) throw new Error(`Retry refused: ${String(retry.refused)}`);
				const retried = await stack().waitForExecution(retry.id, TIMEOUT);
				const after = minus(await w.writes(), before);
				const [invited] = nodeOutput(retried.data, 'Invite');
				const error = typeof invited?.error === 'string' ? invited.error : '';
				const measured = {
					failed: failed.status,
					savedAtFailure,
					atFailure,
					retried: retried.status,
					after,
					limitNamed: error.includes('Spending Limit of 5 credits reached'),
					spentNamed: error.includes('and 4 were already spent'),
				};
				const expected = {
					failed: 'error',
					savedAtFailure: 4,
					atFailure: { reports: 4, attempts: 4, interviews: 0, emails: 0 },
					retried: 'success',
					after: { reports: 4, attempts: 4, interviews: 0, emails: 0 },
					limitNamed: true,
					spentNamed: true,
				};
				const held = JSON.stringify(measured) === JSON.stringify(expected);
				row(
					c.id,
					c.what,
					5,
					`failed on ${String(failed.worker)}, Retry on ${String(retried.worker)}`,
					`${failed.status}: ${formatWrites(atFailure)}; total saved ${savedAtFailure}`,
					after,
					inviteText(invited),
					held,
				);
				book.check(
					`${c.id} ${c.what}: the failed execution saved the 4 credits charged; the Retry's Invite is refused naming the limit and the 4 spent; 4 credits, 0 emails`,
					`failed ${failed.status} (${formatWrites(atFailure)}, saved ${savedAtFailure}); Retry ${retried.status}, sandbox ${formatWrites(after)}`,
					held,
				);
				log(`${c.id}: ${JSON.stringify(measured)}`);
				expect(measured).toEqual(expected);
			},
			TIMEOUT * 2,
		);
	}

	for (const [id, limit, sent] of [
		['3a', 5, false],
		['3b', 6.5, true],
	] as const) {
		it(
			`${id} On Error: continue after a Batch Timeout, a Wait resumed on the other worker, then Invite under ${limit}: ${sent ? 'the control, the invitation is sent' : 'refused, no interview, no email'}`,
			async () => {
				const { w, credential } = await newCase(id);
				// The report the Invite names exists before the execution (its analysis is charged to no execution here).
				const [reportId] = await completedReports(env, w, credential, `queue${id}-report`, 1);
				await w.control.patchWorkspace(w.ws.workspaceId, { analysisDurationMs: 4000 });
				const before = await w.writes();
				const { id: workflowId } = await env.n8n.createWorkflow(
					analyzeThenInvite({
						credential,
						jobDescriptionId: w.ws.jobDescriptionId,
						name: `F9-queue ${id}`,
						tag: `queue${id}`,
						limit,
						email: `f9-queue-${id}@example.com`,
						wait: true,
						analyzeOnError: 'continueRegularOutput',
						reportId,
					}),
				);
				const executionId = await start(workflowId);
				const waiting = await waitingExecution(env.n8n, executionId, TIMEOUT);
				const beforeWait = minus(await w.writes(), before);
				const savedAtWait = savedSpending(waiting);
				const analysed = nodeOutput(waiting.data, 'Analyze Many');
				const firstWorker = stack().whoRan(executionId);
				if (!firstWorker) throw new Error(`no worker's log names execution ${executionId}`);
				// The worker that ran the execution up to its Wait stops: the resumed execution can only go to the other.
				const gone = stack().workers.find((p) => p.name === firstWorker)!;
				await gone.instance.stop();
				stack().workers.splice(stack().workers.indexOf(gone), 1);
				await w.control.patchWorkspace(w.ws.workspaceId, { analysisDurationMs: 0 });
				await resumeWaiting(env.n8n, stack().webhookBaseUrl, executionId);
				const finished = await stack().waitForExecution(executionId, TIMEOUT);
				await stack().startWorker();
				const after = minus(await w.writes(), before);
				const [invited] = nodeOutput(finished.data, 'Invite');
				const error = typeof invited?.error === 'string' ? invited.error : '';
				const measured = {
					analysedWithError: analysed.filter((o) => o.error !== undefined).length,
					savedAtWait,
					beforeWait,
					otherWorker: finished.worker !== undefined && finished.worker !== firstWorker,
					status: finished.status,
					after,
					invite: sent
						? { creditsUsed: invited?.creditsUsed, interview: typeof invited?.interviewId }
						: {
								limitNamed: error.includes(`Spending Limit of ${limit} credits reached`),
								spentNamed: error.includes('and 4 were already spent'),
							},
				};
				const expected = {
					analysedWithError: 4,
					savedAtWait: 4,
					beforeWait: { reports: 4, attempts: 4, interviews: 0, emails: 0 },
					otherWorker: true,
					status: 'success',
					after: {
						reports: 4,
						attempts: 4,
						interviews: sent ? 1 : 0,
						emails: sent ? 1 : 0,
					},
					invite: sent
						? { creditsUsed: 2.5, interview: 'string' }
						: { limitNamed: true, spentNamed: true },
				};
				const held = JSON.stringify(measured) === JSON.stringify(expected);
				row(
					id,
					`On Error: continue, Batch Timeout, Wait resumed on the other worker, Invite (limit ${limit})`,
					limit,
					`ran on ${firstWorker}, resumed on ${String(finished.worker)}`,
					`waiting: ${formatWrites(beforeWait)}, ${measured.analysedWithError} items with an error; total saved ${savedAtWait}`,
					after,
					inviteText(invited),
					held,
				);
				book.check(
					`${id} On Error: continue, a Wait resumed on another worker, Invite under ${limit}: the total saved at the Wait holds the 4 credits of the timed-out batch; ${sent ? '1 interview, 1 email (6.5 credits)' : 'the Invite is refused, 4 credits, 0 emails'}`,
					`waiting ${formatWrites(beforeWait)}, saved ${savedAtWait}; resumed on ${String(finished.worker)} (first ${firstWorker}); sandbox ${formatWrites(after)}; ${inviteText(invited)}`,
					held,
				);
				log(`${id}: ${JSON.stringify(measured)}`);
				expect(measured).toEqual(expected);
			},
			TIMEOUT * 2,
		);
	}

	it(
		'4 Invite Many (limit 10, interviews at 2 credits) whose batch reads answer 503: the failed execution saved the 8 credits the sandbox charged',
		async () => {
			const { w, credential } = await newCase('4');
			const reportIds = await completedReports(env, w, credential, 'queue4', 4);
			expect(reportIds).toHaveLength(4);
			await w.control.patchWorkspace(w.ws.workspaceId, { interviewCreditUnits: 200 });
			await batchReadsFail(w, 'interview');
			const input = reportIds.map((reportId, i) => ({
				reportId,
				email: `f9-queue-many-${i}@example.com`,
			}));
			const before = await w.writes();
			const { id } = await env.n8n.createWorkflow(
				inviteManyWorkflow(credential, 'F9-queue invite many 503', input, 10),
			);
			const failed = await stack().waitForExecution(await start(id), TIMEOUT);
			await w.control.clearFaults();
			const charged = minus(await w.writes(), before);
			const saved = savedSpending(failed);
			const held =
				failed.status === 'error' &&
				charged.interviews === 4 &&
				charged.emails === 4 &&
				saved === 8;
			row(
				'4',
				'Invite Many, limit 10, interviews at 2 credits, every batch read answers 503',
				10,
				`ran on ${String(failed.worker)}`,
				`${failed.status}: ${formatWrites(charged)}`,
				charged,
				`total saved with the execution: ${saved} credits`,
				held,
				2,
			);
			book.check(
				'4 Invite Many whose batch reads answer 503, in queue mode: the saved total equals the credits the sandbox charged (4 × 2)',
				`${failed.status}; ${formatWrites(charged)}; saved ${saved}`,
				held,
			);
			expect({
				status: failed.status,
				interviews: charged.interviews,
				emails: charged.emails,
				saved,
			}).toEqual({
				status: 'error',
				interviews: 4,
				emails: 4,
				saved: 8,
			});
		},
		TIMEOUT * 2,
	);

	it(
		"5 a worker killed (SIGKILL) during Invite Many (12 candidates, limit 17.5), then n8n's Retry and a re-run: the Retry runs no node; the re-run reports the 7 already invited as recovered with their interviews, invites the 5 others; together at most twice the limit, one email per candidate",
		async () => {
			const limit = 17.5;
			const { w, credential } = await newCase('5');
			const reportIds = await completedReports(env, w, credential, 'queue5', 12);
			expect(reportIds).toHaveLength(12);
			const input = reportIds.map((reportId, i) => ({
				reportId,
				email: `f9-queue-killed-${i}@example.com`,
			}));
			const { id } = await env.n8n.createWorkflow(
				inviteManyWorkflow(credential, 'F9-queue killed worker', input, limit),
			);
			// The batch's reads are held for 20 s: the worker is killed while the node waits for its batch.
			await w.control.setFaults({
				rules: [
					{
						method: 'GET',
						path: '/api/v1/interview-batches/{id}',
						mode: 'latency',
						latencyMs: 20_000,
						rate: 1,
					},
				],
			});
			const before = await w.writes();
			const executionId = await start(id);
			const deadline = Date.now() + 180_000;
			let worker: string | undefined;
			for (;;) {
				worker ??= stack().whoRan(executionId);
				const requests = (await w.control.counters(w.ws.workspaceId)).requests ?? {};
				if (worker && (requests['POST /api/v1/interview-batches'] ?? 0) >= 1) break;
				if (Date.now() > deadline) throw new Error('Invite Many never created its batch');
				await delay(200);
			}
			const victim = stack().workers.find((p) => p.name === worker)!;
			await stack().kill(victim);
			stack().workers.splice(stack().workers.indexOf(victim), 1);
			await w.control.clearFaults();
			const crashed = await stack().waitForExecution(executionId, TIMEOUT);
			const atCrash = minus(await w.writes(), before);
			await stack().startWorker();
			// The user's first move: Retry in the executions list.
			const retry = await retryExecution(env.n8n, executionId, false);
			const retried = retry.id ? await stack().waitForExecution(retry.id, TIMEOUT) : undefined;
			const afterRetry = minus(await w.writes(), before);
			// What works: run the workflow again on the same input (a new execution).
			const rerun = await stack().waitForExecution(await start(id), TIMEOUT);
			const after = minus(await w.writes(), before);
			const out = nodeOutput(rerun.data, 'Invite Many');
			const listed = new Map<string, string>();
			for (const reportId of reportIds) {
				const page = await w.ws.call(
					'GET',
					`/api/v1/interviews?reportId=${encodeURIComponent(reportId)}`,
				);
				const items = (page.body?.data?.items ?? []) as Array<{ id: string }>;
				if (items.length === 1) listed.set(reportId, items[0].id);
			}
			const mail = await w.mail();
			const perAddress = new Map<string, number>();
			for (const m of mail) perAddress.set(m.to, (perAddress.get(m.to) ?? 0) + 1);
			const recovered = out.filter((o) => o.recovered === true);
			const fresh = out.filter((o) => o.recovered !== true && typeof o.interviewId === 'string');
			const credits = creditsOf(after);
			const killedOut = nodeOutput(crashed.data, 'Invite Many');
			const measured = {
				crashed: crashed.status,
				crashedWithNodeData: Boolean(crashed.data.resultData.lastNodeExecuted),
				killedExecutionItems: `${killedOut.filter((o) => o.recovered === true).length} recovered, ${killedOut.filter((o) => o.recovered !== true && typeof o.interviewId === 'string').length} invited`,
				killedExecutionSaved: savedSpending(crashed),
				interviewsWhenItEnded: atCrash.interviews,
				retry: retried?.status ?? 'refused',
				retryWrites: minus(afterRetry, atCrash),
				rerun: rerun.status,
				items: out.length,
				recovered: recovered.length,
				recoveredAreTheKilledRunsOwn: recovered.every(
					(o) => listed.get(String(o.reportId)) === o.interviewId && (o.creditsUsed ?? 0) === 0,
				),
				invitedByRerun: fresh.length,
				failedItems: out.filter((o) => o.error !== undefined).length,
				everyReportOneInterview: listed.size === 12,
				oneEmailEach: perAddress.size === 12 && [...perAddress.values()].every((n) => n === 1),
				rerunSaved: savedSpending(rerun),
				credits,
				withinTwiceTheLimit: credits <= 2 * limit,
			};
			// n8n 2.x fails the killed worker's job (maxStalledCount 0) and keeps no node's data; n8n 1.x gives the stalled
			// job to the other worker, which runs the execution again from its start: the killed run's batch comes back
			// recovered (7) and the 5 the limit held back are invited, so that execution succeeds and the re-run has
			// nothing left to do.
			const restartedByN8n = line === '1';
			const expected = {
				crashed: restartedByN8n ? 'success' : 'error',
				crashedWithNodeData: restartedByN8n,
				killedExecutionItems: restartedByN8n ? '7 recovered, 5 invited' : '0 recovered, 0 invited',
				killedExecutionSaved: restartedByN8n ? 12.5 : NaN,
				interviewsWhenItEnded: restartedByN8n ? 12 : 7,
				retry: restartedByN8n ? 'refused' : 'error',
				retryWrites: { reports: 0, attempts: 0, interviews: 0, emails: 0 },
				rerun: 'success',
				items: 12,
				recovered: restartedByN8n ? 12 : 7,
				recoveredAreTheKilledRunsOwn: true,
				invitedByRerun: restartedByN8n ? 0 : 5,
				failedItems: 0,
				everyReportOneInterview: true,
				oneEmailEach: true,
				rerunSaved: restartedByN8n ? NaN : 12.5,
				credits: 30,
				withinTwiceTheLimit: true,
			};
			const rerunError = rerun.data.resultData.error;
			log(
				`5: ${JSON.stringify(measured)}; re-run error: ${rerunError ? `${rerunError.message} ${String((rerunError as { description?: string }).description ?? '')}` : 'none'}; items ${JSON.stringify(out.slice(0, 3))}`,
			);
			const held = JSON.stringify(measured) === JSON.stringify(expected);
			row(
				'5',
				'a worker killed during Invite Many of 12, then Retry, then a re-run',
				limit,
				`killed ${String(worker)}; Retry on ${String(retried?.worker)}; re-run on ${String(rerun.worker)}`,
				`${crashed.status} (${crashed.data.resultData.error ? crashed.data.resultData.error.message.slice(0, 80) : measured.killedExecutionItems}): ${formatWrites(atCrash)}; Retry ${retried?.status ?? String(retry.refused)}, new writes ${formatWrites(measured.retryWrites)}`,
				after,
				`re-run ${rerun.status}: ${recovered.length} recovered, ${fresh.length} invited, ${measured.failedItems} failed; total saved ${Number.isNaN(measured.rerunSaved) ? 'none' : measured.rerunSaved}; ${credits} credits of at most ${2 * limit}`,
				held,
			);
			book.check(
				`5 a worker killed during Invite Many (limit ${limit}): ${restartedByN8n ? 'n8n runs the execution again on the other worker: the killed batch comes back as 7 recovered, 5 are invited; Retry refused (it succeeded); a re-run recovers all 12' : 'the killed run invited 7; the Retry runs no node and writes nothing; the re-run says the 7 were recovered (their interviews, no charge) and invites 5'}; 12 interviews, 12 emails, one each; ${creditsOf(after)} credits, at most twice the limit (${2 * limit})`,
				JSON.stringify(measured),
				held,
			);
			expect(measured).toEqual(expected);
		},
		TIMEOUT * 3,
	);
	const SKEWS: Array<[string, number]> = [
		['5 s behind', -5_000],
		['5 s ahead', 5_000],
		['5 min behind', -300_000],
		['5 min ahead', 300_000],
	];
	/** A case whose credential reaches the sandbox through a proxy shifting the API's times by `offsetMs`. */
	async function behindSkewedClock(
		offsetMs: number,
		name: string,
		run: (
			w: CaseWorkspace,
			credential: Credential,
			proxy: Awaited<ReturnType<typeof clockShiftingProxy>>,
		) => Promise<void>,
	): Promise<void> {
		const proxy = await clockShiftingProxy(env.sandbox.baseUrl, offsetMs);
		try {
			const w = await caseWorkspace(env.sandbox.baseUrl);
			await run(w, await recruiterCredential(env, w, name, proxy.baseUrl), proxy);
		} finally {
			await proxy.close();
		}
	}
	for (const [label, offsetMs] of SKEWS)
		it(
			`6 the API's clock ${label} n8n's (a proxy shifting its times): Analyze Many of 25 files under a limit of 20 charges 20, says so item by item, and saves 20`,
			async () =>
				await behindSkewedClock(offsetMs, `F9-queue 6 ${label}`, async (w, credential, proxy) => {
					const before = await w.writes();
					const { id } = await env.n8n.createWorkflow(
						inputWorkflow(`F9-queue 6 ${label}`, resumesCode(`skew${offsetMs}`, 25), [
							actionNode(
								credential,
								'Analyze Many',
								440,
								{
									resource: 'analysis',
									operation: 'analyzeMany',
									binaryPropertyName: 'data',
									jobDescriptionSource: 'existing',
									jobDescriptionId: byId(w.ws.jobDescriptionId),
									spendingLimit: 20,
								},
								'continueRegularOutput',
							),
						]),
					);
					const done = await stack().waitForExecution(await start(id), TIMEOUT);
					const after = minus(await w.writes(), before);
					const out = nodeOutput(done.data, 'Analyze Many');
					const measured = {
						status: done.status,
						attempts: after.attempts,
						chargedItems: out.filter((o) => o.creditsUsed === 1).length,
						refusedByTheLimit: out.filter((o) =>
							String(o.error ?? '').includes('Spending Limit of 20 credits reached'),
						).length,
						saved: savedSpending(done),
						throughTheProxy: proxy.requests() > 0,
					};
					const expected = {
						status: 'success',
						attempts: 20,
						chargedItems: 20,
						refusedByTheLimit: 5,
						saved: 20,
						throughTheProxy: true,
					};
					const held = JSON.stringify(measured) === JSON.stringify(expected);
					row(
						`6 ${label}`,
						`the API's clock ${label}: Analyze Many of 25 files, limit 20`,
						20,
						`ran on ${String(done.worker)}`,
						`${done.status}; ${proxy.requests()} requests through the proxy`,
						after,
						`${measured.chargedItems} items charged 1 credit, ${measured.refusedByTheLimit} refused by the limit; total saved ${measured.saved}`,
						held,
					);
					book.check(
						`6 the API's clock ${label} n8n's: Analyze Many of 25 under 20 charges 20 analyses, 20 items say 1 credit, 5 name the limit, the saved total is 20`,
						JSON.stringify(measured),
						held,
					);
					log(`6 ${label}: ${JSON.stringify(measured)}`);
					expect(measured).toEqual(expected);
				}),
			TIMEOUT,
		);
	for (const [label, offsetMs] of SKEWS)
		it(
			`7 the API's clock ${label} n8n's (the proxy): a Start Many refused for the allowance is submitted again by a re-run after the top-up`,
			async () =>
				await behindSkewedClock(offsetMs, `F9-queue 7 ${label}`, async (w, credential) => {
					const { id: uploadId } = await env.n8n.createWorkflow(
						inputWorkflow(`F9-queue 7 upload ${label}`, resumesCode(`allowance${offsetMs}`, 3), [
							actionNode(credential, 'Upload Many', 440, {
								resource: 'upload',
								operation: 'uploadMany',
								binaryPropertyName: 'data',
								jobDescriptionSource: 'existing',
								jobDescriptionId: byId(w.ws.jobDescriptionId),
							}),
						]),
					);
					const uploaded = await stack().waitForExecution(await start(uploadId), TIMEOUT);
					const reportIds = nodeOutput(uploaded.data, 'Upload Many').map((o) => String(o.reportId));
					const { id } = await env.n8n.createWorkflow(
						inputWorkflow(
							`F9-queue 7 start ${label}`,
							`return ${JSON.stringify(reportIds.map((reportId) => ({ json: { reportId } })))};`,
							[
								actionNode(
									credential,
									'Start Many',
									440,
									{
										resource: 'analysis',
										operation: 'startMany',
										reportId: '={{ $json.reportId }}',
										simplify: false,
										spendingLimit: 0,
									},
									'continueRegularOutput',
								),
							],
						),
					);
					await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 0 });
					const before = await w.writes();
					const refused = await stack().waitForExecution(await start(id), TIMEOUT);
					const first = nodeOutput(refused.data, 'Start Many');
					// The recruiter tops the allowance up a few seconds later and runs the workflow again (within 2 s of the
					// refusing batch the API's whole-second Date cannot tell it from a new one: engine/batch.ts REPLAY_MARGIN_MS).
					await delay(3000);
					await w.control.patchWorkspace(w.ws.workspaceId, { analysisAllowance: 10 });
					const rerun = await stack().waitForExecution(await start(id), TIMEOUT);
					const second = nodeOutput(rerun.data, 'Start Many');
					const after = minus(await w.writes(), before);
					const measured = {
						uploaded: reportIds.length,
						refused: first.map((o) => o.errorCode),
						rerun: second.map(
							(o) =>
								`${String(o.state)} ${String(o.submittedAgainAfterBatch === first[0]?.batchId)}`,
						),
						attempts: after.attempts,
					};
					const expected = {
						uploaded: 3,
						refused: Array(3).fill('INSUFFICIENT_ALLOWANCE'),
						rerun: Array(3).fill('succeeded true'),
						attempts: 3,
					};
					log(
						`7 ${label}: ${JSON.stringify(measured)}; re-run items ${JSON.stringify(second.map((o) => [o.errorCode, o.error, o.batchId]))}`,
					);
					const held = JSON.stringify(measured) === JSON.stringify(expected);
					row(
						`7 ${label}`,
						`the API's clock ${label}: Start Many of 3 refused for the allowance, top-up, re-run`,
						0,
						`first on ${String(refused.worker)}, re-run on ${String(rerun.worker)}`,
						`${refused.status}: ${first.map((o) => String(o.errorCode)).join(', ')}`,
						after,
						`re-run: ${second.map((o) => String(o.state)).join(', ')} (submitted again after the refusing batch)`,
						held,
					);
					book.check(
						`7 the API's clock ${label} n8n's: the 3 analyses a batch refused for the allowance are submitted again by a re-run after the top-up, 3 charged`,
						JSON.stringify(measured),
						held,
					);
					expect(measured).toEqual(expected);
				}),
			TIMEOUT,
		);
});
