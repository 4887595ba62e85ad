/**
 * A spending limit per run (writes/spending.ts): a charged write that would pass Options > Spending Limit is not
 * sent, across items and batches; the item's error names the limit, what was spent and what was quoted; the outputs
 * carry the credits each write used; a re-run recovers what was done without counting it again.
 */
import type { IContextObject } from 'n8n-workflow';

import { SPENT_FIELD } from '../../../nodes/RecruitingAnalysis/writes/spending';

import { useTestSandbox, type TestSandbox } from '../../helpers/sandbox';
import {
	analyzeManyParams,
	analyzeParams,
	completedReport,
	counters,
	jsonOf,
	newWorkspace,
	pdfFiles,
	runNode,
} from './helpers';

let sandbox: TestSandbox;
useTestSandbox((started) => (sandbox = started), { clearFaultsAfterEach: true });

// The sandbox prices an analysis at 100 units on a scale of 100 (1 credit) and an interview at 2.5 credits.

/** A refusal's message without the item n8n's error names after it ("[item 4, Limit-3.pdf]"). */
const withoutItem = (error: unknown) => String(error).replace(/ \[item [^\]]*\]$/, '');

describe('a spending limit per run', () => {
	it('Analyze Resume charges exactly up to the limit, and the items past it say what was spent and quoted', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const before = await counters(ws);
		const result = await runNode(
			ws,
			analyzeParams(ws, { spendingLimit: 3, concurrency: 1 }),
			pdfFiles(5, 'Limit'),
			{ continueOnFail: true },
		);
		const out = jsonOf(result);
		const after = await counters(ws);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(3);
		const charged = out.filter((item) => item.creditsUsed === 1);
		expect(charged).toHaveLength(3);
		const refused = out.filter((item) => typeof item.error === 'string');
		expect(refused).toHaveLength(2);
		expect(withoutItem(refused[0].error)).toBe(
			'Spending Limit of 3 credits reached: this analysis costs 1 credit and 3 were already spent. Nothing was sent.',
		);
	});

	it('a new node, its Spending Limit left at the default, charges at most 10 credits per execution', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const before = await counters(ws);
		const parameters = analyzeParams(ws, { concurrency: 1 });
		// As n8n keeps a new node: the field left at its default (10 credits).
		delete parameters.spendingLimit;
		const result = await runNode(
			ws,
			{ ...parameters, spendingLimit: undefined },
			pdfFiles(12, 'Default'),
			{
				continueOnFail: true,
			},
		);
		const out = jsonOf(result);
		expect((await counters(ws)).attemptsCreated - before.attemptsCreated).toBe(10);
		expect(out.filter((item) => item.creditsUsed === 1)).toHaveLength(10);
		expect(
			out.filter((item) => typeof item.error === 'string').map((item) => withoutItem(item.error)),
		).toEqual([
			'Spending Limit of 10 credits reached: this analysis costs 1 credit and 10 were already spent. Nothing was sent.',
			'Spending Limit of 10 credits reached: this analysis costs 1 credit and 10 were already spent. Nothing was sent.',
		]);
	});

	it('Analyze Many leaves out of its batch the items that would pass the limit, and a re-run does not count what it recovers', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const items = pdfFiles(4, 'Batch');
		const first = jsonOf(
			await runNode(ws, analyzeManyParams(ws, { spendingLimit: 2 }), items, {
				continueOnFail: true,
			}),
		);
		expect((await counters(ws)).attemptsCreated).toBe(2);
		expect(first.filter((item) => item.creditsUsed === 1)).toHaveLength(2);
		expect(
			first.filter((item) =>
				String(item.error ?? '').includes('Spending Limit of 2 credits reached'),
			),
		).toHaveLength(2);
		// The next execution with the same limit: the two analysed files are recovered (not charged, not counted),
		// so the two others fit.
		const second = jsonOf(
			await runNode(ws, analyzeManyParams(ws, { spendingLimit: 2 }), items, {
				continueOnFail: true,
			}),
		);
		expect((await counters(ws)).attemptsCreated).toBe(4);
		expect(second.filter((item) => item.recovered === true)).toHaveLength(2);
		expect(second.filter((item) => item.creditsUsed === 1)).toHaveLength(2);
	});

	it('Invite stops before an invitation that would pass the limit: no interview, no email', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'Limited Invite' });
		const before = await counters(ws);
		const result = await runNode(ws, {
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: 'limited@example.com',
			spendingLimit: 2,
		});
		expect(result.error?.message).toContain(
			'Spending Limit of 2 credits reached: this invitation costs',
		);
		const after = await counters(ws);
		expect(after.interviewsCreated - before.interviewsCreated).toBe(0);
		expect(after.emailsSent - before.emailsSent).toBe(0);
		const allowed = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId,
				candidateEmail: 'limited@example.com',
				spendingLimit: 2.5,
			}),
		);
		expect(allowed[0].creditsUsed).toBe(2.5);
	});

	it("keeps the execution's total in the execution's data: resumed from its saved data (a Wait), it refuses what would pass the limit", async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const first = await runNode(
			ws,
			analyzeParams(ws, { spendingLimit: 1 }),
			pdfFiles(1, 'Before Wait'),
		);
		expect(jsonOf(first)[0].creditsUsed).toBe(1);
		// What n8n saves with the execution when it waits, read back as the resuming process reads it.
		const saved = JSON.parse(JSON.stringify(first.run.data.executionData?.contextData)) as Record<
			string,
			IContextObject
		>;
		expect(saved.flow).toEqual({ [SPENT_FIELD]: 1 });
		const before = await counters(ws);
		const resumed = await runNode(
			ws,
			analyzeParams(ws, { spendingLimit: 1 }),
			pdfFiles(1, 'After Wait'),
			{ continueOnFail: true, contextData: saved, executionId: first.executionId },
		);
		const [refused] = jsonOf(resumed);
		expect(withoutItem(refused.error)).toBe(
			'Spending Limit of 1 credit reached: this analysis costs 1 credit and 1 was already spent. Nothing was sent.',
		);
		expect((await counters(ws)).attemptsCreated - before.attemptsCreated).toBe(0);
		// Another execution starts from 0.
		const fresh = jsonOf(
			await runNode(ws, analyzeParams(ws, { spendingLimit: 1 }), pdfFiles(1, 'After Wait')),
		);
		expect(fresh[0].creditsUsed).toBe(1);
	});

	it('refuses a limit with a fingerprint chosen beforehand, naming what to change, before anything is charged', async () => {
		const ws = await newWorkspace(sandbox.baseUrl);
		const reportId = await completedReport(ws, { candidate: 'No Price' });
		const before = await counters(ws);
		const result = await runNode(ws, {
			resource: 'interview',
			operation: 'invite',
			reportId,
			candidateEmail: 'noprice@example.com',
			quoteAutomatically: false,
			quoteFingerprint: 'a'.repeat(64),
			spendingLimit: 5,
		});
		expect(result.error?.message).toContain('gives no price');
		expect((await counters(ws)).interviewsCreated - before.interviewsCreated).toBe(0);
	});
});
