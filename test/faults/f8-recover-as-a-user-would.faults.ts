/**
 * F8: recover as a user would, in a real n8n 2.41.1 (our tarball installed as a community package).
 *
 * Each case is one charged operation in a workflow  Manual Trigger → Input (Code: the same items every run) →
 * our node(s) → ATS (HTTP Request to a stub of the recruiter's system)  that fails after some of its writes
 * committed, followed by what a user does about it. Measured in the sandbox: the charged writes (reports,
 * analysis attempts, interviews: its counters; emails: its mail sink) against one per intent, and in n8n: the
 * output of our node in the execution that finally succeeded, which must name every item's resource, exactly the
 * resources the sandbox holds.
 *
 * Failures:
 *   laterNode    the ATS answers 503 (or, for "current workflow", its URL is wrong and answers 404): the run fails
 *                after our node finished;
 *   lostAnswers  the sandbox commits our node's write and drops the connection (commit-then-drop) on every attempt,
 *                so the node's own retries run out and the run fails with the writes made;
 *   sigkill      the n8n process group is killed with SIGKILL while our node waits on a read after its writes
 *                (the sandbox holds that read), then n8n is started again on the same database. n8n refuses to
 *                retry a crashed execution unless the workflow setting Save Execution Progress is on ("The execution
 *                was aborted before starting"): the Retry cases turn it on, the manual-run case keeps the default
 *                and records n8n's refusal before running the workflow again.
 * Recoveries:
 *   retryOriginal / retryCurrent  the Retry button of the executions list (POST /rest/executions/:id/retry with
 *                loadWorkflow false / true; n8n re-runs from the node that failed, with the earlier nodes' output
 *                kept). "Current" follows an edit the user saved: the ATS URL fixed, or Retry On Fail switched on;
 *   manualRun    "Execute workflow" again on the same input (a new execution from the trigger);
 *   retryOnFail  the node's Retry On Fail setting (4 tries, 1 s apart): the run itself recovers.
 *
 * The matrix is compact, not a cross product (20 cases, about 3 to 4 minutes on 2 cores; F8 runs inside npm test):
 * every operation meets at least two failure-and-recovery pairs, every failure kind and every recovery kind occurs
 * four times or more, and each way a charged write used to repeat has its case (Start + Retry On Fail after lost answers,
 * Start Many after lost answers, Analyze Many run again, Invite Many retried in the same execution, a re-run of a
 * recruiter's workflow). Pairs that cannot happen are left out: Retry On Fail does not survive a killed process, and
 * Retry On Fail on the ATS node would never run our node again. "A later node throws" + n8n's Retry never runs our
 * node again either (n8n resumes at the failed node); two such cases show that the output is carried over.
 * The sixteen cases without a kill share one n8n and one sandbox and run one after another (a sandbox's faults
 * apply to all its workspaces); the four SIGKILL cases share a second n8n, each with a sandbox of its own: their runs
 * go concurrently, one SIGKILL stops them all, one restart.
 */
import { join } from 'node:path';

import { FigureBook } from './figures';
import {
	AtsStub,
	caseWorkflow,
	caseWorkspace,
	excess,
	executionError,
	formatWrites,
	LABELS,
	minus,
	OPERATIONS,
	outputOf,
	RETRY_ON_FAIL,
	retryExecution,
	total,
	updateWorkflow,
	type Case,
	type CaseWorkspace,
	type InputItem,
	type OperationSpec,
	type Writes,
} from './f8-harness';
import { delay, startN8n, type ExecutionDetail, type N8nInstance } from '../../scripts/n8n-host';
import { startSandboxProcess, type SandboxProcess } from '../../scripts/sandbox-process';
import { bootRealN8n, type RealN8n } from '../e2e/helpers';
import type { FigureValue } from './figures';

const SHARED: Case[] = [
	{ id: 'c01', operation: 'analyzeResume', failure: 'lostAnswers', recovery: 'retryOnFail' },
	{ id: 'c02', operation: 'analyzeResume', failure: 'laterNode', recovery: 'manualRun' },
	{ id: 'c03', operation: 'start', failure: 'lostAnswers', recovery: 'retryOnFail' },
	{ id: 'c04', operation: 'start', failure: 'lostAnswers', recovery: 'retryOriginal' },
	{ id: 'c05', operation: 'analyzeMany', failure: 'laterNode', recovery: 'manualRun' },
	{ id: 'c06', operation: 'analyzeMany', failure: 'lostAnswers', recovery: 'retryCurrent' },
	{
		id: 'c07',
		operation: 'uploadManyStartMany',
		failure: 'lostAnswers',
		recovery: 'retryOriginal',
	},
	{ id: 'c08', operation: 'uploadManyStartMany', failure: 'laterNode', recovery: 'manualRun' },
	{ id: 'c09', operation: 'invite', failure: 'lostAnswers', recovery: 'retryCurrent' },
	{ id: 'c10', operation: 'invite', failure: 'laterNode', recovery: 'manualRun' },
	{ id: 'c11', operation: 'inviteMany', failure: 'lostAnswers', recovery: 'retryOnFail' },
	{ id: 'c12', operation: 'inviteMany', failure: 'laterNode', recovery: 'retryOriginal' },
	{ id: 'c13', operation: 'reinterview', failure: 'lostAnswers', recovery: 'manualRun' },
	{ id: 'c14', operation: 'reinterview', failure: 'laterNode', recovery: 'retryCurrent' },
	{ id: 'c15', operation: 'resend', failure: 'lostAnswers', recovery: 'retryOnFail' },
	{ id: 'c16', operation: 'resend', failure: 'lostAnswers', recovery: 'retryOriginal' },
];

const KILLED: Case[] = [
	{ id: 'k1', operation: 'analyzeResume', failure: 'sigkill', recovery: 'manualRun' },
	{ id: 'k2', operation: 'analyzeMany', failure: 'sigkill', recovery: 'retryOriginal' },
	{ id: 'k3', operation: 'uploadManyStartMany', failure: 'sigkill', recovery: 'retryCurrent' },
	{ id: 'k4', operation: 'inviteMany', failure: 'sigkill', recovery: 'retryOriginal' },
];

const book = new FigureBook(
	'F8',
	'Recover as a user would, in a real n8n (F8)',
	'real n8n 2.41.1 (community package from the tarball) + sandbox process',
);
const rows: Array<Record<string, FigureValue>> = [];
const ats = new AtsStub();

beforeAll(async () => {
	await ats.start();
	book.note(
		'Each row: one workflow run that failed after writes committed, then the recovery. Writes are counted in the case\'s own sandbox workspace after the arranged prerequisites (reports for Start and Invite, interviews for Reinterview and Resend); "expected" is one write per intent. Duplicates = writes beyond the expected ones; "items with resource" = items of the finally successful execution whose output names a resource the sandbox holds, each resource named once.',
	);
	book.note(
		'Retry On Fail cases measure "writes before" when the node\'s first try had used up its attempts (all answers lost), inside the same execution.',
	);
});

afterAll(async () => {
	book.table('cases', rows);
	book.save();
	await ats.stop();
});

/** One prepared case: its workspace, arranged input, workflow and the writes before anything ran. */
interface Prepared {
	c: Case;
	spec: OperationSpec;
	w: CaseWorkspace;
	input: InputItem[];
	workflowId: string;
	baseline: Writes;
	/** Resources the arrangement made that are not the case's (the arranged invitation emails). */
	arranged: Set<string>;
}

async function prepare(sandboxUrl: string, n8n: N8nInstance, c: Case): Promise<Prepared> {
	const spec = OPERATIONS[c.operation];
	const w = await caseWorkspace(sandboxUrl);
	const input = await spec.arrange(w, c.id, spec.items);
	const baseline = await w.writes();
	const arranged = new Set((await w.mail()).map((m) => m.deliveryId));
	const credential = await n8n.createCredential({
		name: `F8 ${c.id}`,
		type: 'recruitingAnalysisApi',
		data: { environment: 'sandbox', baseUrl: sandboxUrl, apiKey: w.ws.apiKey },
	});
	const wf = caseWorkflow({
		caseId: c.id,
		spec,
		input,
		jobDescriptionId: w.ws.jobDescriptionId,
		credential,
		// The wrong URL the user fixes before "Retry with current workflow".
		atsUrl: ats.url(c.id, c.failure === 'laterNode' && c.recovery === 'retryCurrent'),
		retryOnFail: c.recovery === 'retryOnFail',
		waitForCompletion: c.failure === 'sigkill' && c.operation === 'analyzeResume',
		// A crashed execution can be retried only with this setting on (see the SIGKILL describe); manual runs keep n8n's default.
		saveExecutionProgress: c.failure === 'sigkill' && c.recovery !== 'manualRun',
	});
	const { id } = await n8n.createWorkflow(wf);
	return { c, spec, w, input, workflowId: id, baseline, arranged };
}

/** The user's recovery after a failed execution; returns the execution that should have succeeded. */
async function recover(
	n8n: N8nInstance,
	p: Prepared,
	failedId: string,
): Promise<{ execution?: ExecutionDetail; refused?: string }> {
	const { c } = p;
	ats.fail(c.id, false);
	if (c.recovery === 'manualRun') return { execution: await n8n.runManually(p.workflowId) };
	if (c.recovery === 'retryCurrent') {
		await updateWorkflow(n8n, p.workflowId, (wf) => {
			for (const node of wf.nodes) {
				// laterNode: the user fixes the ATS URL; otherwise the user turns Retry On Fail on for our node(s).
				if (node.name === 'ATS') node.parameters.url = ats.url(c.id);
				else if (String(node.type).endsWith('.recruitingAnalysis') && c.failure !== 'laterNode')
					Object.assign(node, RETRY_ON_FAIL);
			}
		});
	}
	const retried = await retryExecution(n8n, failedId, c.recovery === 'retryCurrent');
	if (!retried.id) return { refused: retried.refused };
	return { execution: await n8n.finishedExecution(retried.id) };
}

interface Measured {
	failedStatus: string;
	failedError: string;
	before: Writes;
	/** Whether the failure happened as the case describes it (else the case proves nothing). */
	failureRealized: boolean;
	failureNote: string;
}

/** Checks and records one case after its recovery. */
async function conclude(
	p: Prepared,
	m: Measured,
	recovered: { execution?: ExecutionDetail; refused?: string },
	seconds: number,
): Promise<void> {
	const { c, spec, w } = p;
	const after = minus(await w.writes(), p.baseline);
	const expected: Writes = {
		reports: spec.perItem.reports * spec.items,
		attempts: spec.perItem.attempts * spec.items,
		interviews: spec.perItem.interviews * spec.items,
		emails: spec.perItem.emails * spec.items,
	};
	const duplicates = excess(after, expected);
	const output = recovered.execution ? outputOf(recovered.execution, spec) : [];
	const named = output.map((json) => spec.resourceOf(json)).filter((r) => r !== '');
	const held = new Set(await spec.resourcesIn(w, p.arranged));
	const resourcesOk =
		output.length === spec.items &&
		named.length === spec.items &&
		new Set(named).size === named.length &&
		named.every((r) => held.has(r)) &&
		held.size === named.length;
	const recoveredStatus = recovered.execution?.status ?? `refused: ${recovered.refused}`;
	const recoveryError =
		recovered.execution && recovered.execution.status !== 'success'
			? executionError(recovered.execution)
			: '';
	const firstError = output
		.map((json) => json.error ?? json.errorCode)
		.find((e) => e !== undefined && e !== null);
	const ok =
		m.failureRealized &&
		total(duplicates) === 0 &&
		recovered.execution?.status === 'success' &&
		resourcesOk;
	rows.push({
		case: c.id,
		operation: LABELS[c.operation],
		failure: LABELS[c.failure],
		recovery: LABELS[c.recovery],
		items: spec.items,
		'failed run': `${m.failedStatus}${m.failedError ? ` (${m.failedError})` : ''}`,
		'writes before': formatWrites(m.before),
		'writes after': formatWrites(after),
		expected: formatWrites(expected),
		duplicates: formatWrites(duplicates, '0'),
		'recovery run': `${recoveredStatus}${recoveryError ? ` (${recoveryError})` : ''}`,
		'items with resource': `${output.filter((json) => held.has(spec.resourceOf(json))).length}/${spec.items}${firstError ? ` (${String(firstError)})` : ''}`,
		held: ok ? 'yes' : '**no**',
	});
	book.check(
		`${c.id} ${LABELS[c.operation]} · ${LABELS[c.failure]} · ${LABELS[c.recovery]}: 0 duplicates, every item output with its resource`,
		`duplicates ${formatWrites(duplicates)}; recovery ${recoveredStatus}; ${named.length}/${spec.items} items name a resource, sandbox holds ${held.size}${firstError ? `; item error ${String(firstError)}` : ''}${m.failureRealized ? '' : `; failure not realized: ${m.failureNote}`}`,
		ok,
	);
	process.stderr.write(
		`[F8] ${c.id} ${c.operation}/${c.failure}/${c.recovery}: ${ok ? 'held' : 'DID NOT HOLD'} in ${seconds.toFixed(1)} s; after ${formatWrites(after)}; ${recoveredStatus} ${recoveryError}\n`,
	);
	expect({ failureRealized: m.failureRealized, note: m.failureNote }).toEqual({
		failureRealized: true,
		note: m.failureNote,
	});
	expect({ case: c.id, duplicates }).toEqual({
		case: c.id,
		duplicates: { reports: 0, attempts: 0, interviews: 0, emails: 0 },
	});
	expect({ case: c.id, recovery: recoveredStatus, error: recoveryError }).toEqual({
		case: c.id,
		recovery: 'success',
		error: '',
	});
	expect({
		case: c.id,
		output: output.length,
		named: named.length,
		distinct: new Set(named).size,
		inSandbox: named.filter((r) => held.has(r)).length,
		sandbox: held.size,
	}).toEqual({
		case: c.id,
		output: spec.items,
		named: spec.items,
		distinct: spec.items,
		inSandbox: spec.items,
		sandbox: spec.items,
	});
}

const title = (c: Case) =>
	`${c.id} ${LABELS[c.operation]} · ${LABELS[c.failure]} · ${LABELS[c.recovery]}`;

describe('F8: a failed run and the recovery, in one real n8n', () => {
	let env: RealN8n;

	beforeAll(async () => {
		env = await bootRealN8n('faults-f8');
	}, 300_000);

	afterAll(async () => {
		await env?.sandbox.control.call('DELETE', '/_sandbox/faults').catch(() => undefined);
		await env?.close();
	}, 120_000);

	afterEach(async () => {
		await env?.sandbox.control.call('DELETE', '/_sandbox/faults');
	});

	for (const c of SHARED) {
		it(
			title(c),
			async () => {
				const started = Date.now();
				const { n8n, sandbox } = env;
				const p = await prepare(sandbox.baseUrl, n8n, c);
				const route = p.spec.write;
				let before: Writes | undefined;
				let poller: Promise<void> | undefined;
				let running = true;
				if (c.failure === 'laterNode') ats.fail(c.id, true);
				if (c.failure === 'lostAnswers') {
					// Retry On Fail: exactly the answers of the node's first try are lost; otherwise every answer is.
					const count =
						c.recovery === 'retryOnFail' ? p.spec.writesPerFailedRun(p.spec.items) : undefined;
					await sandbox.control.call('PUT', '/_sandbox/faults', {
						rules: [
							{
								method: route.method,
								path: route.path,
								mode: 'commit-then-drop',
								...(count ? { count } : {}),
							},
						],
					});
					if (count) {
						// The writes of the first try, read when its last answer has been lost (before Retry On Fail runs it again).
						const name = `${route.method} ${route.path}`;
						poller = (async () => {
							while (running && !before) {
								const counters = await p.w.control.counters(p.w.ws.workspaceId);
								if ((counters.requests[name] ?? 0) >= count)
									before = minus(await p.w.writes(), p.baseline);
								else await delay(50);
							}
						})();
					}
				}
				const first = await n8n.runManually(p.workflowId);
				running = false;
				await poller;
				await sandbox.control.call('DELETE', '/_sandbox/faults');
				let recovered: { execution?: ExecutionDetail; refused?: string };
				let measured: Measured;
				if (c.recovery === 'retryOnFail') {
					measured = {
						failedStatus: 'first try failed inside the run',
						failedError: '',
						before: before ?? { reports: 0, attempts: 0, interviews: 0, emails: 0 },
						failureRealized: before !== undefined && total(before) > 0,
						failureNote: before
							? 'no write committed before the answers were lost'
							: `the node's first try did not send ${p.spec.writesPerFailedRun(p.spec.items)} requests to ${route.path}`,
					};
					recovered = { execution: first };
				} else {
					const writesBefore = minus(await p.w.writes(), p.baseline);
					measured = {
						failedStatus: first.status,
						failedError: executionError(first),
						before: writesBefore,
						failureRealized: first.status === 'error' && total(writesBefore) > 0,
						failureNote: `run ended ${first.status} with ${formatWrites(writesBefore)}`,
					};
					recovered = await recover(n8n, p, first.id);
				}
				await conclude(p, measured, recovered, (Date.now() - started) / 1000);
			},
			240_000,
		);
	}
});

describe('F8: n8n killed with SIGKILL mid-run, started again, then the recovery', () => {
	let env: RealN8n;
	let n8n: N8nInstance | undefined;
	/** A sandbox per case: the reads held for one case must not hold another case's requests. */
	const sandboxes: SandboxProcess[] = [];
	const prepared = new Map<string, Prepared>();
	const measured = new Map<string, Measured & { executionId: string }>();
	let setupError: unknown;

	beforeAll(async () => {
		// Its own n8n: the cases kill it and start it again on its user folder.
		env = await bootRealN8n('faults-f8-kill', { own: true });
		try {
			const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);
			sandboxes.push(
				...(await Promise.all(
					KILLED.map((c) =>
						startSandboxProcess({ logFile: join(env.userFolder, `sandbox-${c.id}.log`), log }),
					),
				)),
			);
			for (const [i, c] of KILLED.entries()) {
				const p = await prepare(sandboxes[i].baseUrl, env.n8n, c);
				prepared.set(c.id, p);
				// Hold the read the node makes after its writes (the batch's or the report's status): the kill lands there.
				const hold = p.spec.hold!;
				await p.w.control.setFaults({
					rules: [{ method: hold.method, path: hold.path, mode: 'latency', latencyMs: 120_000 }],
				});
			}
			const executions = new Map<string, string>();
			for (const p of prepared.values())
				executions.set(p.c.id, await env.n8n.startManualRun(p.workflowId));
			// Every run has made all its writes (one per intent) before it reaches the held read.
			const until = Date.now() + 60_000;
			for (const p of prepared.values()) {
				for (;;) {
					const now = minus(await p.w.writes(), p.baseline);
					const done = (['reports', 'attempts', 'interviews'] as const).every(
						(k) => now[k] >= p.spec.perItem[k] * p.spec.items,
					);
					if (done) break;
					if (Date.now() > until)
						throw new Error(
							`${p.c.id}: writes not made before the kill (${formatWrites(now)})\n${env.n8n.logTail(20)}`,
						);
					await delay(100);
				}
			}
			// The kill lands when the node has had the last write's answer: it then sends the read the sandbox holds.
			for (const p of prepared.values()) {
				for (;;) {
					const held = (await p.w.control.faults()).rules.some((r) => r.heldNow > 0);
					if (held) break;
					if (Date.now() > until)
						throw new Error(
							`${p.c.id}: the read after the writes never reached the sandbox before the kill\n${env.n8n.logTail(20)}`,
						);
					await delay(100);
				}
			}
			process.kill(-env.n8n.child.pid!, 'SIGKILL');
			await env.n8n.exited;
			for (const p of prepared.values()) {
				await p.w.control.clearFaults();
				const before = minus(await p.w.writes(), p.baseline);
				measured.set(p.c.id, {
					executionId: executions.get(p.c.id)!,
					failedStatus: '',
					failedError: '',
					before,
					failureRealized: total(before) > 0,
					failureNote: `killed with ${formatWrites(before)}`,
				});
			}
			n8n = await startN8n({ userFolder: env.userFolder, log });
			await n8n.login();
			// n8n marks the runs it lost as crashed once it is up again.
			for (const m of measured.values()) {
				const e = await n8n.finishedExecution(m.executionId, 60_000);
				m.failedStatus = e.status;
				m.failedError = executionError(e);
				m.failureRealized = m.failureRealized && e.status === 'crashed';
			}
		} catch (error) {
			setupError = error;
		}
	}, 420_000);

	afterAll(async () => {
		await n8n?.stop();
		await Promise.all(sandboxes.map((sandbox) => sandbox.stop()));
		await env?.close();
	}, 120_000);

	for (const c of KILLED) {
		it(
			title(c),
			async () => {
				if (setupError) throw setupError;
				const started = Date.now();
				const p = prepared.get(c.id)!;
				const m = measured.get(c.id)!;
				if (c.recovery === 'manualRun') {
					// With n8n's default settings the user's first click, Retry, is refused; then the user runs the workflow again.
					const retry = await retryExecution(n8n!, m.executionId, false);
					book.set(
						`${c.id}: Retry of the crashed execution (default workflow settings)`,
						retry.refused ?? `accepted (execution ${retry.id})`,
					);
				}
				const recovered = await recover(n8n!, p, m.executionId);
				await conclude(p, m, recovered, (Date.now() - started) / 1000);
			},
			240_000,
		);
	}
});
