/**
 * Upload resource against the sandbox: Upload Resume (saved job with revision, inline text, external
 * reference, filesystem binary mode), Prepare Only, Refresh URL, Cancel, Upload Many (45 items, three
 * batches), Get Batch.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PDF_MIME, makePdf } from '../../fixtures/resumes';
import { uploadFile, type TestSandbox } from '../../helpers/sandbox';
import {
	apiCall,
	counters,
	jsonOf,
	pdfItem,
	runNode,
	useSandboxWorkspace,
	type Workspace,
} from './helpers';

let sandbox: TestSandbox;
let ws: Workspace;

useSandboxWorkspace((started) => ({ sandbox, ws } = started));

function uploadParams(extra: IDataObject = {}): INodeParameters {
	return {
		resource: 'upload',
		operation: 'uploadResume',
		binaryPropertyName: 'data',
		jobDescriptionSource: 'existing',
		jobDescriptionId: ws.jobDescriptionId,
		...extra,
	} as INodeParameters;
}

async function report(reportId: string): Promise<IDataObject> {
	const { status, body } = await apiCall(
		ws,
		'GET',
		`/api/v1/reports/${reportId}?include=reference`,
	);
	expect(status).toBe(200);
	return body.data as IDataObject;
}

describe('Upload > Upload Resume', () => {
	it('prepares against a saved job with its expected revision and PUTs the file (no API key to storage)', async () => {
		const job = (await apiCall(ws, 'GET', `/api/v1/job-descriptions/${ws.jobDescriptionId}`)).body
			.data as IDataObject;
		const before = await counters(ws);
		const result = await runNode(
			ws,
			uploadParams({ options: { expectedRevision: job.revision } }),
			[pdfItem({ candidate: 'Rev Match' })],
		);
		const [item] = jsonOf(result);
		expect(item).toEqual(
			expect.objectContaining({
				reportId: expect.stringMatching(/^rpt_/),
				uploaded: true,
				fileName: 'resume.pdf',
				mimeType: PDF_MIME,
			}),
		);
		expect(JSON.stringify(item)).not.toContain('signature=');
		const after = await counters(ws);
		expect(after.preparationsCreated - before.preparationsCreated).toBe(1);
		expect(after.storagePuts - before.storagePuts).toBe(1);
		expect(after.storageAuthorizationHeaders).toBe(0);
		expect(after.attemptsCreated - before.attemptsCreated).toBe(0);
		const created = await report(String(item.reportId));
		expect(created.status).toBe('queued');
		expect(created.attemptId).toBeNull();
	});

	it('a changed saved job with the old expected revision is refused by the API (JD_REVISION_CHANGED)', async () => {
		const job = (await apiCall(ws, 'GET', `/api/v1/job-descriptions/${ws.jobDescriptionId}`)).body
			.data as IDataObject;
		await sandbox.control.reviseJob(ws.jobDescriptionId, { description: `Revised ${Date.now()}` });
		const result = await runNode(
			ws,
			uploadParams({ options: { expectedRevision: job.revision } }),
			[pdfItem()],
			{ continueOnFail: true },
		);
		const [item] = jsonOf(result);
		expect(item.httpCode).toBe(409);
		expect(item.reason).toBe('JD_REVISION_CHANGED');
		expect(String(item.description)).toContain('revision');
	});

	it('uploads with an inline job text and an external reference', async () => {
		const result = await runNode(
			ws,
			uploadParams({
				jobDescriptionSource: 'text',
				jobDescriptionText: 'Data engineer, Python and SQL.',
				options: { externalReferenceSource: 'acme-ats', externalReferenceId: 'APP-77' },
			}),
			[pdfItem({ candidate: 'Inline Job' })],
		);
		const [item] = jsonOf(result);
		const created = await report(String(item.reportId));
		expect(created.externalReference).toEqual({ source: 'acme-ats', id: 'APP-77' });
	});

	it("streams a 10 MB resume from n8n's filesystem binary store", async () => {
		const size = 10 * 1024 * 1024;
		const before = await counters(ws);
		const result = await runNode(
			ws,
			uploadParams(),
			[
				{
					json: {},
					binary: {
						data: { data: makePdf({ sizeBytes: size }), mimeType: PDF_MIME, fileName: 'big.pdf' },
					},
				},
			],
			{
				binaryMode: 'filesystem',
			},
		);
		const [item] = jsonOf(result);
		expect(item.fileSize).toBe(size);
		expect(item.uploaded).toBe(true);
		const after = await counters(ws);
		expect(after.storagePuts - before.storagePuts).toBe(1);
	});

	it('takes the binary property named in Input Binary Field, and the File Name option', async () => {
		const result = await runNode(
			ws,
			uploadParams({ binaryPropertyName: 'resume', options: { fileName: 'renamed.pdf' } }),
			[
				{
					json: {},
					binary: {
						resume: {
							data: makePdf(),
							mimeType: 'application/octet-stream',
							fileName: 'upload.bin',
						},
					},
				},
			],
		);
		const [item] = jsonOf(result);
		expect(item.fileName).toBe('renamed.pdf');
		expect(item.mimeType).toBe(PDF_MIME);
		expect(item.uploaded).toBe(true);
	});
	it('a binary of another size than the report under its reference was prepared for is refused before the PUT', async () => {
		const pdf = makePdf({ candidate: 'Size Mismatch' });
		const reference = { source: 'acme-ats', id: `SIZE-${Date.now()}` };
		const prepared = await apiCall(
			ws,
			'POST',
			'/api/v1/uploads',
			{
				fileName: 'm.pdf',
				fileSize: pdf.length + 1,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
				externalReference: reference,
			},
			{ 'idempotency-key': reference.id },
		);
		expect(prepared.status).toBe(201);
		const before = await counters(ws);
		const result = await runNode(
			ws,
			uploadParams({
				options: { externalReferenceSource: reference.source, externalReferenceId: reference.id },
			}),
			[{ json: {}, binary: { data: { data: pdf, mimeType: PDF_MIME, fileName: 'm.pdf' } } }],
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toContain(
			`held by report ${String((prepared.body.data as IDataObject).reportId)}`,
		);
		expect(String((result.error as { description?: string }).description)).toContain(
			'prepared for a file of another size or type',
		);
		expect((await counters(ws)).storagePuts).toBe(before.storagePuts);
	});

	it('content that is not a PDF is refused before anything is sent', async () => {
		const html = Buffer.from('<html><body>not a resume</body></html>');
		const before = await counters(ws);
		const result = await runNode(ws, uploadParams(), [
			{ json: {}, binary: { data: { data: html, mimeType: PDF_MIME, fileName: 'fake.pdf' } } },
		]);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			'"Input Binary Field" content must agree with its type: fake.pdf holds HTML (a web page), not a PDF (starting with %PDF-) [item 1]',
		);
		const after = await counters(ws);
		expect(after.preparationsCreated).toBe(before.preparationsCreated);
		expect(after.storagePuts).toBe(before.storagePuts);
	});
});

describe('Upload > Prepare Only, Refresh URL, Cancel', () => {
	it('Prepare Only returns the signed URL; the file can be PUT there; Refresh URL gives a new one', async () => {
		const pdf = makePdf({ candidate: 'Manual Put' });
		const prepared = jsonOf(
			await runNode(ws, {
				resource: 'upload',
				operation: 'prepare',
				fileName: 'manual.pdf',
				fileSize: pdf.length,
				mimeType: PDF_MIME,
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			}),
		)[0];
		const upload = prepared.upload as IDataObject;
		expect(upload.method).toBe('PUT');
		expect(upload.sizeBytes).toBe(pdf.length);
		expect(upload.expiresInSeconds).toBe(600);
		expect(String(upload.url)).toContain(`/_storage/uploads/${prepared.reportId}`);

		const refreshed = jsonOf(
			await runNode(ws, {
				resource: 'upload',
				operation: 'refreshUrl',
				reportId: String(prepared.reportId),
			}),
		)[0];
		expect(refreshed.reportId).toBe(prepared.reportId);
		const newUrl = String((refreshed.upload as IDataObject).url);
		expect(newUrl).toContain(`/_storage/uploads/${prepared.reportId}`);
		expect((await uploadFile(sandbox, newUrl, pdf, PDF_MIME)).status).toBe(200);
	});

	it('Cancel removes a prepared upload; repeating it is safe; refreshing it then is 404', async () => {
		const prepared = jsonOf(
			await runNode(ws, {
				resource: 'upload',
				operation: 'prepare',
				fileName: 'cancel-me.pdf',
				fileSize: 1000,
				mimeType: PDF_MIME,
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			}),
		)[0];
		const reportId = String(prepared.reportId);
		const cancelled = jsonOf(
			await runNode(ws, { resource: 'upload', operation: 'cancel', reportId }),
		)[0];
		expect(cancelled).toEqual({ reportId, cancelled: true });
		expect(
			jsonOf(await runNode(ws, { resource: 'upload', operation: 'cancel', reportId }))[0],
		).toEqual({ reportId, cancelled: true });
		const refresh = await runNode(
			ws,
			{ resource: 'upload', operation: 'refreshUrl', reportId },
			[{ json: {} }],
			{ continueOnFail: true },
		);
		expect(jsonOf(refresh)[0].httpCode).toBe(404);
	});
});

describe('Upload > Upload Many and Get Batch', () => {
	it('45 items go out as three upload batches (20 + 20 + 5), every file is PUT, one paired item per input', async () => {
		const before = await counters(ws);
		const items = Array.from({ length: 45 }, (_, i) =>
			pdfItem({ candidate: `Many ${i}` }, `many-${i}.pdf`),
		);
		const result = await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			},
			items,
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(45);
		expect(result.output[0].map((i) => i.pairedItem)).toEqual(
			Array.from({ length: 45 }, (_, item) => ({ item })),
		);
		out.forEach((o, i) => {
			expect(o.state).toBe('succeeded');
			expect(o.uploaded).toBe(true);
			expect(o.fileName).toBe(`many-${i}.pdf`);
			expect(o.reportId).toMatch(/^rpt_/);
		});
		expect(new Set(out.map((o) => o.reportId)).size).toBe(45);
		const batchIds = [...new Set(out.map((o) => String(o.batchId)))];
		expect(batchIds).toHaveLength(3);
		expect(out.filter((o) => o.batchId === batchIds[2])).toHaveLength(5);
		const after = await counters(ws);
		expect(
			(after.requests['POST /api/v1/upload-batches'] ?? 0) -
				(before.requests['POST /api/v1/upload-batches'] ?? 0),
		).toBe(3);
		expect(after.storagePuts - before.storagePuts).toBe(45);
		expect(after.storageAuthorizationHeaders).toBe(0);

		const batch = jsonOf(
			await runNode(ws, { resource: 'upload', operation: 'getBatch', batchId: batchIds[0] }),
		)[0];
		expect(batch.kind).toBe('uploads');
		expect(batch.status).toBe('completed');
		expect(batch.items as IDataObject[]).toHaveLength(20);
	});

	it('a job text shared by all items is sent once at batch level (20 x 15,000 characters stays under 256 KiB)', async () => {
		const text =
			`Platform engineer. ${'Kubernetes, observability and on-call. '.repeat(400)}`.slice(
				0,
				15_000,
			);
		const result = await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'text',
				jobDescriptionText: text,
			},
			Array.from({ length: 20 }, (_, i) =>
				pdfItem({ candidate: `Shared ${i}` }, `shared-${i}.pdf`),
			),
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(20);
		expect(out.every((o) => o.uploaded === true)).toBe(true);
		expect(new Set(out.map((o) => o.batchId)).size).toBe(1);
	});

	it('different job descriptions per item stay on each item', async () => {
		const result = await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'text',
				jobDescriptionText: '={{ $json.job }}',
			},
			[
				{ ...pdfItem({ candidate: 'Job A' }, 'ja.pdf'), json: { job: 'Backend engineer' } },
				{ ...pdfItem({ candidate: 'Job B' }, 'jb.pdf'), json: { job: 'Data analyst' } },
			],
		);
		const out = jsonOf(result);
		expect(out.map((o) => o.uploaded)).toEqual([true, true]);
	});

	it('an invalid item fails alone with Continue On Fail; the valid ones are uploaded in the batch', async () => {
		const result = await runNode(
			ws,
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: ws.jobDescriptionId,
			},
			[
				pdfItem({ candidate: 'Good A' }, 'a.pdf'),
				{ json: {}, binary: { data: { data: makePdf(), mimeType: PDF_MIME, fileName: 'b.txt' } } },
				pdfItem({ candidate: 'Good C' }, 'c.pdf'),
			],
			{ continueOnFail: true },
		);
		const out = jsonOf(result);
		expect(out).toHaveLength(3);
		expect(out[0].uploaded).toBe(true);
		expect(String(out[1].error)).toContain('"File Name"');
		expect(out[2].uploaded).toBe(true);
		expect(out[0].batchId).toBe(out[2].batchId);
		expect(result.output[0].map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});
});
