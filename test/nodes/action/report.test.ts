/**
 * Report and Job Description resources against the sandbox: Get (with reference), Get Many (filters, date
 * bounds, Return All / Limit), Get Status, Get Result (schemaVersion, Simplify); job Get and Get Many.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TestSandbox } from '../../helpers/sandbox';
import {
	analyzeParams,
	counters,
	hintsOf,
	jsonOf,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;
/** Three completed reports made through the node, oldest first; the second has an external reference. */
const reportIds: string[] = [];

useSandboxWorkspace((started) => ({ sandbox, ws } = started));
beforeAll(async () => {
	for (const [i, score] of [3, 9, 5].entries()) {
		const options: IDataObject = { waitForCompletion: true, waitTimeout: 30 };
		if (i === 1)
			Object.assign(options, {
				externalReferenceSource: 'report-ats',
				externalReferenceId: 'APP-2',
			});
		const result = await runNode(ws, analyzeParams(ws, options), [
			pdfItem({ candidate: `Report ${i}`, score }),
		]);
		const [item] = jsonOf(result);
		// The arrangement the tests below rely on: a completed report.
		if (item.status !== 'completed')
			throw new Error(`arranging a completed report gave ${String(item.status)}`);
		reportIds.push(String(item.reportId));
		await sandbox.control.advanceClock(1000);
	}
});

describe('Report', () => {
	it('Get returns the summary; the external reference only with Include External Reference', async () => {
		const plain = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'get', reportId: reportIds[1] }),
		)[0];
		expect(plain.id).toBe(reportIds[1]);
		expect(plain.status).toBe('completed');
		expect((plain.result as IDataObject).score).toBe(9);
		expect(plain.externalReference ?? null).toBeNull();
		const withRef = jsonOf(
			await runNode(ws, {
				resource: 'report',
				operation: 'get',
				reportId: reportIds[1],
				options: { includeReference: true },
			}),
		)[0];
		expect(withRef.externalReference).toEqual({ source: 'report-ats', id: 'APP-2' });
	});

	it('Get Status returns status, attempt and code', async () => {
		const status = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'getStatus', reportId: reportIds[0] }),
		)[0];
		expect(status).toEqual(
			expect.objectContaining({
				id: reportIds[0],
				status: 'completed',
				attemptId: expect.stringMatching(/^att_/),
				code: null,
			}),
		);
	});

	it('Get Result returns the full result with schemaVersion 1', async () => {
		const result = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'getResult', reportId: reportIds[2] }),
		)[0];
		expect(result.schemaVersion).toBe(1);
		expect(result.reportId).toBe(reportIds[2]);
		const detail = result.result as IDataObject;
		expect(detail.score).toBe(5);
		expect(detail.rubric).toEqual(expect.any(Array));
		expect(detail.followUpQuestions).toEqual(expect.any(Object));
	});

	it('Get Result with Simplify keeps score, scale, summary, recommendation and limitations', async () => {
		const result = await runNode(ws, {
			resource: 'report',
			operation: 'getResult',
			reportId: reportIds[2],
			simplify: true,
		});
		const [item] = jsonOf(result);
		expect(Object.keys(item).sort()).toEqual(
			[
				'attemptId',
				'candidateName',
				'humanReviewRecommendation',
				'limitations',
				'reportId',
				'resultRevision',
				'score',
				'scoreScale',
				'status',
				'summary',
			].sort(),
		);
		expect(item.score).toBe(5);
		expect(item.scoreScale).toEqual({ minimum: 0, maximum: 10 });
		expect(item.resultRevision).toMatch(/^[a-fA-F0-9]{64}$/);
	});

	it('Get Result of a pending report keeps result null (unmeasured, not zero) and says so', async () => {
		const uploaded = jsonOf(
			await runNode(
				ws,
				{
					resource: 'upload',
					operation: 'uploadResume',
					binaryPropertyName: 'data',
					jobDescriptionSource: 'existing',
					jobDescriptionId: ws.jobDescriptionId,
				},
				[pdfItem({ candidate: 'Pending' })],
			),
		)[0];
		const result = await runNode(ws, {
			resource: 'report',
			operation: 'getResult',
			reportId: String(uploaded.reportId),
			simplify: true,
		});
		const [item] = jsonOf(result);
		expect(item.score).toBeNull();
		expect(item.summary).toBeNull();
		expect(hintsOf(result).join('\n')).toContain('unmeasured, not zero');
	});

	it('Get Many lists newest first, honours Limit and Return All', async () => {
		const limited = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'getMany', returnAll: false, limit: 2 }),
		);
		expect(limited).toHaveLength(2);
		const all = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'getMany', returnAll: true }),
		);
		const ids = all.map((r) => r.id);
		for (const id of reportIds) expect(ids).toContain(id);
		// Newest first: the three reports appear in reverse creation order.
		const positions = reportIds.map((id) => ids.indexOf(id));
		expect(positions[2]).toBeLessThan(positions[1]);
		expect(positions[1]).toBeLessThan(positions[0]);
	});

	it('Get Many filters by external reference (both fields) and by exclusive date bounds', async () => {
		const byRef = jsonOf(
			await runNode(ws, {
				resource: 'report',
				operation: 'getMany',
				returnAll: true,
				filters: { externalReferenceSource: 'report-ats', externalReferenceId: 'APP-2' },
				options: { includeReference: true },
			}),
		);
		expect(byRef.map((r) => r.id)).toEqual([reportIds[1]]);

		const created = await Promise.all(
			reportIds.map(
				async (id) =>
					jsonOf(await runNode(ws, { resource: 'report', operation: 'get', reportId: id }))[0]
						.createdAt as string,
			),
		);
		const between = jsonOf(
			await runNode(ws, {
				resource: 'report',
				operation: 'getMany',
				returnAll: true,
				filters: { createdAfter: created[0], createdBefore: created[2] },
			}),
		);
		expect(between.map((r) => r.id)).toEqual([reportIds[1]]);

		// The same bounds as wall-clock times without a zone (as n8n's date picker gives them), in the workflow's
		// timezone (Asia/Kolkata, UTC+05:30): read in that zone, they select the same report.
		const kolkata = (iso: string) =>
			new Date(Date.parse(iso) + 330 * 60000).toISOString().replace('Z', '');
		const zoned = jsonOf(
			await runNode(
				ws,
				{
					resource: 'report',
					operation: 'getMany',
					returnAll: true,
					filters: { createdAfter: kolkata(created[0]), createdBefore: kolkata(created[2]) },
				},
				undefined,
				{ settings: { timezone: 'Asia/Kolkata' } },
			),
		);
		expect(zoned.map((r) => r.id)).toEqual([reportIds[1]]);
		// A date alone is the start of that day in the workflow's timezone: tomorrow's start there is after them all.
		const tomorrow = new Date(Date.now() + 330 * 60000 + 86_400_000).toISOString().slice(0, 10);
		const before = jsonOf(
			await runNode(
				ws,
				{
					resource: 'report',
					operation: 'getMany',
					returnAll: true,
					filters: { createdBefore: tomorrow },
				},
				undefined,
				{
					settings: { timezone: 'Asia/Kolkata' },
				},
			),
		);
		expect(before.map((r) => r.id)).toEqual(expect.arrayContaining(reportIds));
	});
});

describe('Simplify on the list operations', () => {
	it('Report > Get Many: ID, date, status, candidate, job title, score and summary only', async () => {
		const [full] = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'getMany', returnAll: false, limit: 1 }),
		);
		const [simple] = jsonOf(
			await runNode(ws, {
				resource: 'report',
				operation: 'getMany',
				returnAll: false,
				limit: 1,
				simplify: true,
			}),
		);
		const result = full.result as IDataObject | null;
		expect(simple).toEqual({
			id: full.id,
			createdAt: full.createdAt,
			status: full.status,
			candidateName: (full.candidate as IDataObject).name,
			jobTitle: (full.jobDescription as IDataObject).title,
			score: result ? result.score : null,
			summary: result ? result.summary : null,
		});
	});

	it('Job Description > Get Many: no description text', async () => {
		const [simple] = jsonOf(
			await runNode(ws, {
				resource: 'jobDescription',
				operation: 'getMany',
				returnAll: true,
				simplify: true,
			}),
		);
		expect(Object.keys(simple).sort()).toEqual([
			'company',
			'id',
			'location',
			'revision',
			'status',
			'title',
			'updatedAt',
		]);
	});
});

describe('Job Description', () => {
	it('Get returns the saved job with its revision; Get Many lists it', async () => {
		const job = jsonOf(
			await runNode(ws, {
				resource: 'jobDescription',
				operation: 'get',
				jobDescriptionId: ws.jobDescriptionId,
			}),
		)[0];
		expect(job.id).toBe(ws.jobDescriptionId);
		expect(job.status).toBe('ACTIVE');
		expect(job.revision).toMatch(/^[a-fA-F0-9]{64}$/);
		await sandbox.control.createJob(ws.workspaceId, { title: 'Second job' });
		const before = await counters(ws);
		const jobs = jsonOf(
			await runNode(ws, {
				resource: 'jobDescription',
				operation: 'getMany',
				returnAll: false,
				limit: 1,
			}),
		);
		expect(jobs).toHaveLength(1);
		const all = jsonOf(
			await runNode(ws, { resource: 'jobDescription', operation: 'getMany', returnAll: true }),
		);
		expect(all.map((j) => j.id)).toContain(ws.jobDescriptionId);
		expect(all.length).toBeGreaterThanOrEqual(2);
		const after = await counters(ws);
		expect(
			(after.requests['GET /api/v1/job-descriptions'] ?? 0) -
				(before.requests['GET /api/v1/job-descriptions'] ?? 0),
		).toBeGreaterThanOrEqual(2);
	});

	it('Get of an unknown job is a 404 NodeApiError', async () => {
		const result = await runNode(ws, {
			resource: 'jobDescription',
			operation: 'get',
			jobDescriptionId: 'jd_missing',
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toContain('404');
	});
});
