/**
 * Resource locators: the From List searches
 * (methods.listSearch, run with n8n-core's LoadOptionsContext) against the sandbox, By ID with the ID rule,
 * the inactive-job refusal, and IDs given as plain text or expressions running through n8n's engine.
 */
import type { INodeParameterResourceLocator, INodeParameters, INodeProperties } from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { runListSearch } from '../../helpers/n8n-engine';
import type { TestSandbox } from '../../helpers/sandbox';
import {
	completedReport,
	counters,
	credentialsFor,
	jsonOf,
	newWorkspace,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;

useSandboxWorkspace((started) => ({ sandbox, ws } = started));

async function search(
	method: string,
	filter?: string,
	paginationToken?: string,
	workspace: Workspace = ws,
) {
	return await runListSearch({
		nodeType: new RecruitingAnalysis(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: credentialsFor(workspace),
		parameters: { resource: 'upload', operation: 'uploadResume' },
		method,
		filter,
		paginationToken,
	});
}

function rl(value: string, mode = 'list'): INodeParameterResourceLocator {
	return { __rl: true, mode, value };
}

function uploadParams(jobDescriptionId: unknown): INodeParameters {
	return {
		resource: 'upload',
		operation: 'uploadResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId,
	} as INodeParameters;
}

describe('From List: saved jobs', () => {
	let many: Workspace;
	const jobIds: string[] = [];
	beforeAll(async () => {
		many = await newWorkspace(sandbox.baseUrl);
		// 130 jobs (more than one API page of 100): every 13th at "Globex", and one deactivated.
		for (let n = 0; n < 130; n++) {
			const job = await sandbox.control.createJob(many.workspaceId, {
				title: `Engineer ${n}`,
				company: n % 13 === 0 ? 'Globex' : 'Initech',
				location: n % 2 === 0 ? 'Berlin' : 'Lisbon',
			});
			jobIds.push(String(job.id));
		}
		await sandbox.control.deactivateJob(jobIds[26]);
	});

	it('lists title, company and location, newest first, and pages on with the API cursor', async () => {
		const first = await search('searchJobDescriptions', undefined, undefined, many);
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({
			name: 'Engineer 129 — Initech, Lisbon',
			value: jobIds[129],
		});
		expect(first.paginationToken).toEqual(expect.any(String));
		const second = await search('searchJobDescriptions', undefined, first.paginationToken, many);
		// 30 more jobs plus the workspace's seeded one; then the list ends.
		expect(second.results).toHaveLength(31);
		expect(second.paginationToken).toBeUndefined();
		const all = [...first.results, ...second.results].map((r) => r.value);
		expect(new Set(all).size).toBe(131);
		expect(all).toEqual(expect.arrayContaining(jobIds));
	});

	it('filters by the typed text (company, title or location, any case) across pages', async () => {
		const globex = await search('searchJobDescriptions', 'globex', undefined, many);
		expect(globex.results.map((r) => r.value)).toEqual(
			jobIds.filter((_, n) => n % 13 === 0).reverse(),
		);
		expect(globex.paginationToken).toBeUndefined();
		const one = await search('searchJobDescriptions', 'Engineer 117', undefined, many);
		expect(one.results.map((r) => r.value)).toEqual([jobIds[117]]);
	});

	it('marks a job that is not ACTIVE, and the API refuses an upload against it with the reason said', async () => {
		const found = await search('searchJobDescriptions', 'Engineer 26', undefined, many);
		expect(found.results).toEqual([
			{
				name: 'Engineer 26 — Globex, Berlin [INACTIVE: not usable for uploads]',
				value: jobIds[26],
			},
		]);
		const result = await runNode(many, uploadParams(rl(jobIds[26])), [pdfItem()]);
		expect(result.error?.message).toMatch(/JOB_DESCRIPTION_INACTIVE|not ACTIVE/);
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(
			/Reactivate it in the application or choose another saved job/,
		);
		expect((await counters(many)).storagePuts).toBe(0);
	});
});

describe('resource locator values', () => {
	it('a job picked From List uploads against that job', async () => {
		const [item] = jsonOf(await runNode(ws, uploadParams(rl(ws.jobDescriptionId)), [pdfItem()]));
		expect(item).toEqual(
			expect.objectContaining({ reportId: expect.stringMatching(/^rpt_/), uploaded: true }),
		);
	});

	it('By ID takes the typed ID; an ID over 100 characters is refused before any request, naming the field', async () => {
		const [item] = jsonOf(
			await runNode(ws, uploadParams(rl(ws.jobDescriptionId, 'id')), [pdfItem()]),
		);
		expect(item.uploaded).toBe(true);
		const before = await counters(ws);
		// Typed: n8n's engine checks the mode's rule itself and does not start the node.
		await expect(runNode(ws, uploadParams(rl('x'.repeat(101), 'id')), [pdfItem()])).rejects.toThrow(
			/has issues:\s+- An ID is 1 to 100 characters/,
		);
		// From an expression: the node's own check, naming the field and the rule.
		const mapped = await runNode(ws, uploadParams(rl('={{ "x".repeat(101) }}', 'id')), [pdfItem()]);
		expect(mapped.error?.message).toBe(
			'"Saved Job ID" must be at most 100 characters [item 1, resume.pdf]',
		);
		const after = await counters(ws);
		expect(after.preparationsCreated).toBe(before.preparationsCreated);
	});

	it('Job Description > Get reads the picked job', async () => {
		const [job] = jsonOf(
			await runNode(ws, {
				resource: 'jobDescription',
				operation: 'get',
				jobDescriptionId: rl(ws.jobDescriptionId),
			}),
		);
		expect(job.id).toBe(ws.jobDescriptionId);
	});
});

describe('From List: reports and interviews, most recent first', () => {
	let reportIds: string[];
	beforeAll(async () => {
		reportIds = [
			await completedReport(ws, { candidate: 'Grace Hopper' }),
			await completedReport(ws, { candidate: 'Alan Turing' }),
		];
	});

	it('reports show candidate, job, status and date, the newest first; the filter finds a candidate', async () => {
		const { results } = await search('searchReports');
		const ours = results.filter((r) => reportIds.includes(String(r.value)));
		expect(ours.map((r) => r.value)).toEqual([reportIds[1], reportIds[0]]);
		expect(ours[0].name).toMatch(/^Alan Turing — .+ \(completed, \d{4}-\d{2}-\d{2}\) rpt_/);
		const grace = await search('searchReports', 'grace');
		expect(grace.results.map((r) => r.value)).toEqual([reportIds[0]]);
	});

	it('a report picked From List is read by Report > Get', async () => {
		const [report] = jsonOf(
			await runNode(ws, { resource: 'report', operation: 'get', reportId: rl(reportIds[0]) }),
		);
		expect(report.id).toBe(reportIds[0]);
	});

	it('interviews show ID, state, date and report; the filter finds one by report ID', async () => {
		const [invited] = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'invite',
				reportId: rl(reportIds[1]),
				candidateEmail: 'alan@example.com',
			}),
		);
		const interviewId = String(invited.interviewId);
		const { results } = await search('searchInterviews', reportIds[1]);
		expect(results).toEqual([
			{
				name: expect.stringMatching(
					new RegExp(
						`^${interviewId} \\(invited, evaluation not_started, \\d{4}-\\d{2}-\\d{2}\\) for report ${reportIds[1]}$`,
					),
				),
				value: interviewId,
			},
		]);
		const [status] = jsonOf(
			await runNode(ws, {
				resource: 'interview',
				operation: 'getStatus',
				interviewId: rl(interviewId, 'id'),
			}),
		);
		expect(status.id).toBe(interviewId);
	});
});

describe('IDs given as plain text', () => {
	const node = new RecruitingAnalysis();

	it('one node version: no parameter depends on it', () => {
		expect(node.description.version).toBe(1);
		const versioned = node.description.properties
			.filter((p: INodeProperties) => JSON.stringify(p.displayOptions ?? {}).includes('@version'))
			.map((p) => p.name);
		expect(versioned).toEqual([]);
	});

	it('a Report > Get with an expression string for the ID runs', async () => {
		const reportId = await completedReport(ws);
		const result = await runNode(
			ws,
			{ resource: 'report', operation: 'get', reportId: '={{ $json.id }}' },
			[{ json: { id: reportId } }],
		);
		expect(jsonOf(result)[0].id).toBe(reportId);
	});

	it('a plain string saved into a locator (as n8n keeps it) is read as the ID', async () => {
		const [item] = jsonOf(await runNode(ws, uploadParams(ws.jobDescriptionId), [pdfItem()]));
		expect(item.uploaded).toBe(true);
	});
});
