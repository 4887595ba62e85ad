/**
 * A reminder is a deliberate write (docs/idempotency.md, "A reminder: Interview > Resend"): Interview > Resend in a
 * later execution queues another email, while a retry of the same run (Retry On Fail, the same interview again in
 * the run, n8n's Retry of the failed execution) never queues a second one. Through n8n's engine (n8n-core) against
 * the sandbox over HTTP; its mail sink holds every email queued, so the counts are exact right after a run.
 */
import type { INodeParameters } from 'n8n-workflow';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import { completedReport, jsonOf, newWorkspace, runNode, type Workspace } from './helpers';

let sandbox: TestSandbox;
let run = 0;
/** A fresh execution id, as every new execution of a workflow gets. */
const execution = () => `reminders-${Date.now()}-${++run}`;

useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

const RESEND_PATH = '/api/v1/interviews/{id}/resend';

/** A workspace with one pending invitation (one email already in the mail sink). */
async function invited(
	candidate: string,
	delivery: 'email' | 'privateLink' = 'email',
): Promise<{ ws: Workspace; interviewId: string }> {
	const ws = await newWorkspace(sandbox.baseUrl);
	const reportId = await completedReport(ws, { candidate });
	const [item] = jsonOf(
		await runNode(ws, {
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: `${candidate.toLowerCase().replace(/\W+/g, '-')}@example.com`,
			delivery,
		}),
	);
	return { ws, interviewId: String(item.interviewId) };
}

const resend = (interviewId: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'interview',
	operation: 'resend',
	interviewId,
	options,
});

/** The emails the sandbox queued for the workspace's interview (invitation and resends). */
async function emails(ws: Workspace): Promise<string[]> {
	return (await sandbox.control.mail(ws.workspaceId)).items.map((m) => m.deliveryId);
}

describe('Interview > Resend: a reminder is a deliberate write', () => {
	it('a Resend in each of two executions sends two emails (a reminder on each day)', async () => {
		const { ws, interviewId } = await invited('Two Days');
		expect(await emails(ws)).toHaveLength(1);
		const day1 = jsonOf(
			await runNode(ws, resend(interviewId), [{ json: {} }], { executionId: execution() }),
		);
		const day2 = jsonOf(
			await runNode(ws, resend(interviewId), [{ json: {} }], { executionId: execution() }),
		);
		const mail = await emails(ws);
		expect(mail).toHaveLength(3);
		expect(day1[0].deliveryId).not.toBe(day2[0].deliveryId);
		expect(mail).toEqual(expect.arrayContaining([day1[0].deliveryId, day2[0].deliveryId]));
	});

	it('answers lost on every try, then Retry On Fail in the same execution: one email', async () => {
		const { ws, interviewId } = await invited('Retry On Fail');
		// Each of the node's four requests commits and loses its answer; the engine's Retry On Fail runs it again.
		await sandbox.control.setFaults({
			rules: [{ method: 'POST', path: RESEND_PATH, mode: 'commit-then-drop', count: 4 }],
		});
		const result = await runNode(ws, resend(interviewId), [{ json: {} }], {
			executionId: execution(),
			retryOnFail: true,
			maxTries: 2,
			waitBetweenTries: 0,
		});
		const [item] = jsonOf(result);
		const mail = await emails(ws);
		expect(mail).toHaveLength(2);
		expect(item.deliveryId).toBe(mail[1]);
	});

	it("n8n's Retry of the failed execution (a new execution id) sends no second email", async () => {
		const { ws, interviewId } = await invited('Retried Execution');
		await sandbox.control.setFaults({
			rules: [{ method: 'POST', path: RESEND_PATH, mode: 'commit-then-drop', count: 4 }],
		});
		const failed = await runNode(ws, resend(interviewId), [{ json: {} }], {
			executionId: execution(),
		});
		expect(failed.error).toBeDefined();
		expect(await emails(ws)).toHaveLength(2);
		await sandbox.control.clearFaults();
		const retried = await runNode(ws, resend(interviewId), [], {
			executionId: execution(),
			retryOf: failed,
		});
		const [item] = jsonOf(retried);
		const mail = await emails(ws);
		expect(mail).toHaveLength(2);
		expect(item.deliveryId).toBe(mail[1]);
	});

	it('the same interview twice in one run sends one email; a New Attempt Label sends another in the same run', async () => {
		const { ws, interviewId } = await invited('Same Run');
		const id = execution();
		const twice = jsonOf(
			await runNode(ws, resend(interviewId), [{ json: {} }, { json: {} }], { executionId: id }),
		);
		expect(twice[0].deliveryId).toBe(twice[1].deliveryId);
		expect(await emails(ws)).toHaveLength(2);
		const labelled = jsonOf(
			await runNode(ws, resend(interviewId, { attemptLabel: 'reminder-2' }), [{ json: {} }], {
				executionId: id,
			}),
		);
		expect(labelled[0].deliveryId).not.toBe(twice[0].deliveryId);
		expect(await emails(ws)).toHaveLength(3);
	});

	it('with your own Idempotency Key, the same key is the same resend in every execution', async () => {
		const { ws, interviewId } = await invited('Own Key');
		const keyed = resend(interviewId, { idempotencyKey: 'app-77-reminder' });
		const first = jsonOf(await runNode(ws, keyed, [{ json: {} }], { executionId: execution() }));
		const again = jsonOf(await runNode(ws, keyed, [{ json: {} }], { executionId: execution() }));
		expect(again[0].deliveryId).toBe(first[0].deliveryId);
		expect(await emails(ws)).toHaveLength(2);
	});

	it('a private-link invitation: the item says nothing was sent and how to email the candidate', async () => {
		const { ws, interviewId } = await invited('Private Link', 'privateLink');
		const result = await runNode(ws, resend(interviewId), [{ json: {} }], {
			executionId: execution(),
			continueOnFail: true,
		});
		const [item] = jsonOf(result);
		expect(item).toMatchObject({ httpCode: 409, reason: 'INTERVIEW_NOT_ELIGIBLE' });
		expect(String(item.error)).toContain(
			`Interview ${interviewId} is delivered by private link, not by email: nothing was sent`,
		);
		expect(String(item.description)).toMatch(/No email was queued.*Reinterview.*"Email"/);
		expect(await emails(ws)).toHaveLength(0);
	});

	// Last in the file: it moves the sandbox clock past the invitation's lifetime (sandbox/README.md: 3 days).
	it('an expired invitation: the item says nothing was sent and to run Reinterview', async () => {
		const { ws, interviewId } = await invited('Expired');
		await sandbox.control.advanceClock(4 * 24 * 3600 * 1000);
		const result = await runNode(ws, resend(interviewId), [{ json: {} }], {
			executionId: execution(),
			continueOnFail: true,
		});
		const [item] = jsonOf(result);
		expect(String(item.error)).toContain(
			`Interview ${interviewId} is expired, not a pending invitation: nothing was sent`,
		);
		expect(String(item.description)).toContain(`run Interview > Reinterview on ${interviewId}`);
		expect(await emails(ws)).toHaveLength(1);
	});
});
