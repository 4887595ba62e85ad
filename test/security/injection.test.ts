/**
 * Header injection and path traversal through parameters, through the action node in n8n's engine against a
 * recording server on 127.0.0.1: a line break in an ID, a file name, an idempotency key, an external reference or
 * the API key, and an ID that is a path step (`..`, `../x`), are refused before anything is sent, with an error
 * naming the field; an encoded traversal (`%2e%2e%2f`) is sent as one literal path segment, never as a step.
 */
import type { INodeParameters } from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { PDF_MIME, makePdf } from '../fixtures/resumes';
import { executeNode, type InputItem } from '../helpers/n8n-engine';
import { json, liveKey, startHostile, type HostileServer } from './helpers';

let api: HostileServer;

beforeAll(async () => {
	api = await startHostile({
		handle: (_req, res) =>
			json(res, 404, { error: { code: 'NOT_FOUND', message: 'no such thing' } }),
	});
});
afterAll(async () => {
	await api.close();
});
beforeEach(() => {
	api.requests.length = 0;
});

const CRLF = '\r\nX-Injected: yes';
const pdfItem = (): InputItem => ({
	json: {},
	binary: { data: { data: makePdf(), mimeType: PDF_MIME, fileName: 'resume.pdf' } },
});
const upload = (options: Record<string, string>): INodeParameters => ({
	resource: 'upload',
	operation: 'uploadResume',
	binaryPropertyName: 'data',
	jobDescriptionSource: 'existing',
	jobDescriptionId: 'jd_1',
	options,
});

async function run(
	parameters: INodeParameters,
	items: InputItem[] = [{ json: {} }],
	apiKey = liveKey('inject'),
) {
	return await executeNode({
		nodeType: new RecruitingAnalysis(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: { recruitingAnalysisApi: { environment: 'custom', baseUrl: api.origin, apiKey } },
		parameters,
		items,
	});
}

interface Case {
	what: string;
	field: string;
	parameters: INodeParameters;
	items?: InputItem[];
}

const refused: Case[] = [
	{
		what: 'a line break in a Report ID',
		field: 'Report ID',
		parameters: { resource: 'report', operation: 'get', reportId: `rpt_1${CRLF}` },
	},
	{
		what: 'a line break in an Interview ID',
		field: 'Interview ID',
		parameters: { resource: 'interview', operation: 'get', interviewId: `int_1${CRLF}` },
	},
	{
		what: 'a line break in a Job Description ID',
		field: 'Job Description ID',
		parameters: { resource: 'jobDescription', operation: 'get', jobDescriptionId: `jd_1${CRLF}` },
	},
	{
		what: 'a line break in a Batch ID',
		field: 'Batch ID',
		parameters: { resource: 'analysis', operation: 'getBatch', batchId: `bat_1${CRLF}` },
	},
	{
		what: 'a line break in a file name',
		field: 'File Name',
		parameters: upload({ fileName: `cv${CRLF}.pdf` }),
		items: [pdfItem()],
	},
	{
		what: 'a line break in an Idempotency Key',
		field: 'Idempotency Key',
		parameters: upload({ idempotencyKey: `key${CRLF}` }),
		items: [pdfItem()],
	},
	{
		what: 'a line break in an External Reference ID',
		field: 'External Reference ID',
		parameters: upload({ externalReferenceSource: 'my-ats', externalReferenceId: `app-1${CRLF}` }),
		items: [pdfItem()],
	},
	{
		what: 'a line break in an External Reference ID filter',
		field: 'External Reference ID',
		parameters: {
			resource: 'report',
			operation: 'getMany',
			returnAll: false,
			limit: 5,
			filters: { externalReferenceSource: 'my-ats', externalReferenceId: `app-1${CRLF}` },
		},
	},
	{
		what: 'a Report ID that is ..',
		field: 'Report ID',
		parameters: { resource: 'report', operation: 'get', reportId: '..' },
	},
	{
		what: 'a Report ID that is .',
		field: 'Report ID',
		parameters: { resource: 'report', operation: 'getStatus', reportId: '.' },
	},
	{
		what: 'a Report ID with ../ in it',
		field: 'Report ID',
		parameters: { resource: 'report', operation: 'get', reportId: '../job-descriptions' },
	},
	{
		what: 'an Interview ID climbing two levels',
		field: 'Interview ID',
		parameters: { resource: 'interview', operation: 'get', interviewId: '../../events' },
	},
	{
		what: 'a Job Description ID with a backslash step',
		field: 'Job Description ID',
		parameters: { resource: 'jobDescription', operation: 'get', jobDescriptionId: '..\\reports' },
	},
];

describe('header injection and path traversal through parameters', () => {
	test.each(refused.map((c) => [c.what, c] as const))(
		'%s is refused before sending, naming the field',
		async (_what, c) => {
			const result = await run(c.parameters, c.items);
			expect(result.error?.name).toBe('NodeOperationError');
			expect(result.error?.message).toContain(`"${c.field}"`);
			expect(api.requests).toHaveLength(0);
		},
	);

	test('a line break in the API key is refused before sending, naming the credential field', async () => {
		const result = await run(
			{ resource: 'report', operation: 'get', reportId: 'rpt_1' },
			[{ json: {} }],
			`svc_live_abc${CRLF}`,
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toMatch(
			/API Key of the Recruiting Analysis API credential contains a line break/,
		);
		expect(api.requests).toHaveLength(0);
	});

	test.each([
		['%2e%2e%2fjob-descriptions', '/api/v1/reports/%252e%252e%252fjob-descriptions'],
		['..%2F..%2Fevents', '/api/v1/reports/..%252F..%252Fevents'],
		['rpt_%0d%0aX-Injected', '/api/v1/reports/rpt_%250d%250aX-Injected'],
	])(
		'an encoded traversal or line break (%s) is sent as one literal path segment',
		async (id, expectedPath) => {
			const result = await run({ resource: 'report', operation: 'get', reportId: id });
			expect(result.error?.message).toMatch(/404/);
			expect(api.requests.map((r) => r.url)).toEqual([expectedPath]);
			expect(api.requests[0].headers['x-injected']).toBeUndefined();
		},
	);
});
