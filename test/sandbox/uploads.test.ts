/**
 * Upload preparation (POST /api/v1/uploads), the signed storage PUT, refresh and cancel.
 * One test per rule of the spec: the violation, its status/code/reason, and that nothing was created.
 */
import { makeDocx, makePdf } from '../fixtures/resumes';
import { createHash } from 'node:crypto';
import { api, expectStorageError, uploadFile, type TestSandbox } from '../helpers/sandbox';
import {
	created,
	DOCX_MIME,
	expectError,
	expectInvalid,
	key,
	newWs,
	PDF_MIME,
	prepare,
	start,
	uploadBody,
	useSandboxWs,
	type Ws,
} from './setup';
import { zipSync, strToU8 } from 'fflate';

let sb: TestSandbox;
let ws: Ws;
useSandboxWs((started) => ({ sb, ws } = started));

const pdf = makePdf({ candidate: 'Upload Rules' });

async function rejectsPreparation(
	body: unknown,
	status: number,
	reason: string,
	field?: string,
	rule?: string,
	w: Ws = ws,
) {
	const before = created(await w.counters());
	const res = await w.call('POST', '/api/v1/uploads', { idempotencyKey: key(), body });
	if (field) expectInvalid(res, field, rule);
	else expectError(res, status, reason);
	expect(created(await w.counters())).toEqual(before);
	return res;
}

describe('UploadInput field rules', () => {
	const cases: [string, Record<string, unknown>, string, string][] = [
		['fileName is required', { fileName: undefined }, 'fileName', 'required'],
		['fileName length is 1 to 200 (empty)', { fileName: '' }, 'fileName', 'min_length'],
		[
			'fileName length is 1 to 200 (201 characters)',
			{ fileName: `${'a'.repeat(197)}.pdf` },
			'fileName',
			'max_length',
		],
		['fileName must end in .pdf or .docx', { fileName: 'resume.txt' }, 'fileName', 'extension'],
		['fileName must not contain /', { fileName: 'cv/resume.pdf' }, 'fileName', 'no_path'],
		['fileName must not contain \\', { fileName: 'cv\\resume.pdf' }, 'fileName', 'no_path'],
		[
			'fileName must not contain control characters',
			{ fileName: 'res\u0007ume.pdf' },
			'fileName',
			'no_control_characters',
		],
		['fileSize is required', { fileSize: undefined }, 'fileSize', 'required'],
		['fileSize is at least 1 byte', { fileSize: 0 }, 'fileSize', 'minimum'],
		['fileSize is at most 10485760 bytes', { fileSize: 10_485_761 }, 'fileSize', 'maximum'],
		[
			'fileSize is an integer byte count (not megabytes)',
			{ fileSize: 1.5 },
			'fileSize',
			'type_integer',
		],
		[
			'mimeType is application/pdf or the DOCX type',
			{ mimeType: 'text/plain' },
			'mimeType',
			'enum',
		],
		[
			'extension and declared type must agree',
			{ fileName: 'resume.docx', mimeType: PDF_MIME },
			'mimeType',
			'matches_extension',
		],
		[
			'externalReference.source matches ^[a-z0-9]+(?:-[a-z0-9]+)*$',
			{ externalReference: { source: 'Bad_Source', id: 'a1' } },
			'externalReference.source',
			'pattern',
		],
		[
			'externalReference.source length is 1 to 64',
			{ externalReference: { source: 'a'.repeat(65), id: 'a1' } },
			'externalReference.source',
			'max_length',
		],
		[
			'externalReference.id length is 1 to 128',
			{ externalReference: { source: 'ats', id: 'x'.repeat(129) } },
			'externalReference.id',
			'max_length',
		],
		['jobDescription is required', { jobDescription: undefined }, 'jobDescription', 'required'],
		[
			'jobDescription.kind is existing or text',
			{ jobDescription: { kind: 'url', url: 'x' } },
			'jobDescription.kind',
			'enum',
		],
		[
			'existing job needs its id',
			{ jobDescription: { kind: 'existing' } },
			'jobDescription.id',
			'required',
		],
		[
			'inline job needs its text',
			{ jobDescription: { kind: 'text', text: '' } },
			'jobDescription.text',
			'min_length',
		],
		['unknown fields are rejected', { surprise: true }, 'surprise', 'unknown_field'],
	];
	test.each(cases)('%s', async (_name, patch, field, rule) => {
		await rejectsPreparation(uploadBody(ws, pdf, patch), 400, 'VALIDATION_FAILED', field, rule);
	});
});

describe('preparation conditions', () => {
	test('a saved job must be ACTIVE (JOB_DESCRIPTION_INACTIVE)', async () => {
		const job = await sb.control.createJob(ws.workspaceId, { title: 'Old role' });
		await sb.control.deactivateJob(job.id);
		await rejectsPreparation(
			uploadBody(ws, pdf, { jobDescription: { kind: 'existing', id: job.id } }),
			422,
			'JOB_DESCRIPTION_INACTIVE',
		);
	});

	test('an unknown or foreign saved job is 404', async () => {
		const other = await newWs(sb);
		await rejectsPreparation(
			uploadBody(ws, pdf, { jobDescription: { kind: 'existing', id: other.jobDescriptionId } }),
			404,
			undefined as unknown as string,
		);
	});

	test('expectedRevision of a revised job fails (JD_REVISION_CHANGED)', async () => {
		const job = await sb.control.createJob(ws.workspaceId, {});
		const oldRevision = job.revision as string;
		await sb.control.reviseJob(job.id, { description: 'New scope' });
		await rejectsPreparation(
			uploadBody(ws, pdf, {
				jobDescription: { kind: 'existing', id: job.id, expectedRevision: oldRevision },
			}),
			409,
			'JD_REVISION_CHANGED',
		);
	});

	test('the external reference pair is unique in the workspace (EXTERNAL_REFERENCE_CONFLICT)', async () => {
		const ref = { source: 'greenhouse', id: 'app-42' };
		await prepare(ws, pdf, { externalReference: ref });
		await rejectsPreparation(
			uploadBody(ws, pdf, { externalReference: ref }),
			409,
			'EXTERNAL_REFERENCE_CONFLICT',
		);
	});

	test('pending preparations are limited (PENDING_UPLOAD_LIMIT); cancelling frees capacity', async () => {
		const w = await newWs(sb);
		await sb.control.patchWorkspace(w.workspaceId, { pendingUploadLimit: 2 });
		const a = await prepare(w, pdf);
		await prepare(w, pdf);
		await rejectsPreparation(
			uploadBody(w, pdf),
			409,
			'PENDING_UPLOAD_LIMIT',
			undefined,
			undefined,
			w,
		);
		expect((await w.call('DELETE', `/api/v1/uploads/${a.reportId}`)).status).toBe(204);
		expect(
			(await w.call('POST', '/api/v1/uploads', { idempotencyKey: key(), body: uploadBody(w, pdf) }))
				.status,
		).toBe(201);
	});

	test('a valid preparation answers 201 with a 600-second signed PUT URL and a queued report without attemptId', async () => {
		const before = await ws.counters();
		const res = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: key(),
			body: uploadBody(ws, pdf, {
				jobDescription: { kind: 'text', text: 'Data engineer, Python' },
			}),
		});
		expect(res.status).toBe(201);
		const { reportId, upload } = res.body.data;
		expect(reportId).toMatch(/^rpt_/);
		expect(upload).toEqual({
			url: expect.stringContaining(`${sb.baseUrl}/_storage/uploads/${reportId}?`),
			method: 'PUT',
			mimeType: PDF_MIME,
			sizeBytes: pdf.length,
			expiresInSeconds: 600,
		});
		const status = await ws.call('GET', `/api/v1/reports/${reportId}/status`);
		expect(status.body.data).toMatchObject({ id: reportId, status: 'queued', attemptId: null });
		const after = await ws.counters();
		expect(after.reportsCreated - before.reportsCreated).toBe(1);
		expect(after.preparationsCreated - before.preparationsCreated).toBe(1);
	});
});

describe('Idempotency-Key on writes', () => {
	test('Idempotency-Key is required', async () => {
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', '/api/v1/uploads', { body: uploadBody(ws, pdf) }),
			'Idempotency-Key',
			'required',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('Idempotency-Key length is 1 to 128', async () => {
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', '/api/v1/uploads', {
				idempotencyKey: 'k'.repeat(129),
				body: uploadBody(ws, pdf),
			}),
			'Idempotency-Key',
			'max_length',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('Idempotency-Key matches ^[A-Za-z0-9._:-]+$', async () => {
		const before = created(await ws.counters());
		expectInvalid(
			await ws.call('POST', '/api/v1/uploads', {
				idempotencyKey: 'has space',
				body: uploadBody(ws, pdf),
			}),
			'Idempotency-Key',
			'pattern',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('the same body under the same key replays the same outcome and creates nothing', async () => {
		const k = key();
		const first = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: k,
			body: uploadBody(ws, pdf),
		});
		const before = await ws.counters();
		const again = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: k,
			body: { ...uploadBody(ws, pdf) },
		});
		expect(again.status).toBe(201);
		expect(again.body).toEqual(first.body);
		const after = await ws.counters();
		expect(created(after)).toEqual(created(before));
		expect(after.idempotentReplays).toBe(before.idempotentReplays + 1);
	});
	test('a changed body under a used key conflicts (IDEMPOTENCY_KEY_REUSED)', async () => {
		const k = key();
		await ws.call('POST', '/api/v1/uploads', { idempotencyKey: k, body: uploadBody(ws, pdf) });
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', '/api/v1/uploads', {
				idempotencyKey: k,
				body: uploadBody(ws, pdf, { fileName: 'other.pdf' }),
			}),
			409,
			'IDEMPOTENCY_KEY_REUSED',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('receipts survive API key rotation', async () => {
		const k = key();
		const first = await ws.call('POST', '/api/v1/uploads', {
			idempotencyKey: k,
			body: uploadBody(ws, pdf),
		});
		const { apiKey } = await sb.control.createKey(ws.workspaceId);
		const before = created(await ws.counters());
		const again = await ws.call('POST', '/api/v1/uploads', {
			key: apiKey,
			idempotencyKey: k,
			body: uploadBody(ws, pdf),
		});
		expect(again.body).toEqual(first.body);
		expect(created(await ws.counters())).toEqual(before);
	});
});

describe('storage answers like real signed storage (S3 style): XML errors, no API conventions, ETag', () => {
	async function rejectsPut(
		file: Buffer,
		mime: string,
		status: number,
		code: string,
		opts: {
			url?: (u: string) => string;
			headers?: Record<string, string>;
			declared?: Record<string, unknown>;
			advanceMs?: number;
			message?: RegExp;
		} = {},
	) {
		const prep = await prepare(ws, file, opts.declared ?? {});
		if (opts.advanceMs) await sb.control.advanceClock(opts.advanceMs);
		const before = await ws.counters();
		const res = await uploadFile(
			sb,
			opts.url ? opts.url(prep.upload.url) : prep.upload.url,
			file,
			mime,
			opts.headers,
		);
		const error = expectStorageError(res, status, code, opts.message);
		const after = await ws.counters();
		expect(after.storagePuts).toBe(before.storagePuts);
		return { prep, before, after, error };
	}

	test('an expired URL gets 403 AccessDenied "Request has expired" in XML, not the API\'s JSON URL_EXPIRED', async () => {
		const { prep, error } = await rejectsPut(pdf, PDF_MIME, 403, 'AccessDenied', {
			advanceMs: 601_000,
			message: /^Request has expired$/,
		});
		expect(error.Expires).toMatch(/Z$/);
		expect(error.ServerTime).toMatch(/Z$/);
		const refreshed = await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`);
		expect(refreshed.status).toBe(200);
		expect(refreshed.body.data.upload.url).not.toBe(prep.upload.url);
		expect((await uploadFile(sb, refreshed.body.data.upload.url, pdf, PDF_MIME)).status).toBe(200);
	});
	test('the API key must not be sent to storage: 400 InvalidArgument, counted in storageAuthorizationHeaders', async () => {
		const { before, after, error } = await rejectsPut(pdf, PDF_MIME, 400, 'InvalidArgument', {
			headers: { authorization: `Bearer ${ws.apiKey}` },
		});
		expect(after.storageAuthorizationHeaders).toBe(before.storageAuthorizationHeaders + 1);
		expect(error.ArgumentName).toBe('Authorization');
		expect(JSON.stringify(error)).not.toContain(ws.apiKey);
	});
	test('a tampered signature is refused: 403 SignatureDoesNotMatch', async () => {
		await rejectsPut(pdf, PDF_MIME, 403, 'SignatureDoesNotMatch', {
			url: (u) =>
				u.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`),
		});
	});
	test('a changed expiry invalidates the signature: 403 SignatureDoesNotMatch', async () => {
		await rejectsPut(pdf, PDF_MIME, 403, 'SignatureDoesNotMatch', {
			url: (u) => u.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 1000}`),
		});
	});
	test('a URL without its signature is refused: 403 AccessDenied', async () => {
		await rejectsPut(pdf, PDF_MIME, 403, 'AccessDenied', { url: (u) => u.split('?')[0] });
	});
	test('the declared Content-Type is part of what the URL signs: another type is 403 SignatureDoesNotMatch', async () => {
		await rejectsPut(pdf, 'application/octet-stream', 403, 'SignatureDoesNotMatch');
	});
	test('the body must have exactly the declared byte size: 400 EntityTooSmall / EntityTooLarge', async () => {
		const small = await rejectsPut(pdf, PDF_MIME, 400, 'EntityTooSmall', {
			declared: { fileSize: pdf.length + 1 },
		});
		expect(small.error).toMatchObject({
			ProposedSize: String(pdf.length),
			MinSizeAllowed: String(pdf.length + 1),
		});
		await rejectsPut(pdf, PDF_MIME, 400, 'EntityTooLarge', {
			declared: { fileSize: pdf.length - 1 },
		});
	});
	test('another method on a storage URL is refused as storage refuses it (403 SignatureDoesNotMatch, XML)', async () => {
		const prep = await prepare(ws, pdf);
		expectStorageError(
			await api(sb, 'GET', new URL(prep.upload.url).pathname + new URL(prep.upload.url).search, {
				key: null,
			}),
			403,
			'SignatureDoesNotMatch',
		);
		expectStorageError(
			await api(sb, 'POST', '/_storage/elsewhere', { key: null }),
			403,
			'AccessDenied',
		);
	});
	test('storage does not read the content: a file that is not a PDF is stored, and admission refuses it (422 INVALID_UPLOAD)', async () => {
		const fake = Buffer.from('NOT A PDF '.repeat(20));
		const prep = await prepare(ws, fake);
		expect((await uploadFile(sb, prep.upload.url, fake, PDF_MIME)).status).toBe(200);
		const q = await ws.call('POST', '/api/v1/analysis-quotes', {
			body: { reportId: prep.reportId },
		});
		const before = created(await ws.counters());
		expectError(
			await ws.call('POST', '/api/v1/analyses', {
				idempotencyKey: key(),
				body: { reportId: prep.reportId, quoteFingerprint: q.body.data.fingerprint },
			}),
			422,
			'INVALID_UPLOAD',
		);
		expect(created(await ws.counters())).toEqual(before);
	});
	test('a DOCX that is not a ZIP holding word/document.xml is refused at admission (422 INVALID_UPLOAD)', async () => {
		const zip = Buffer.from(zipSync({ 'readme.txt': strToU8('no word document here') }));
		const prep = await prepare(ws, zip, { fileName: 'resume.docx', mimeType: DOCX_MIME });
		expect((await uploadFile(sb, prep.upload.url, zip, DOCX_MIME)).status).toBe(200);
		const q = await ws.call('POST', '/api/v1/analysis-quotes', {
			body: { reportId: prep.reportId },
		});
		expectError(
			await ws.call('POST', '/api/v1/analyses', {
				idempotencyKey: key(),
				body: { reportId: prep.reportId, quoteFingerprint: q.body.data.fingerprint },
			}),
			422,
			'INVALID_UPLOAD',
		);
	});
	test('a valid DOCX is stored: 200, empty body, an ETag (the MD5 of the bytes), no API headers', async () => {
		const docx = makeDocx({ candidate: 'Docx Person' });
		const prep = await prepare(ws, docx, { fileName: 'cv.docx', mimeType: DOCX_MIME });
		const before = await ws.counters();
		const res = await uploadFile(sb, prep.upload.url, docx, DOCX_MIME);
		expect(res.status).toBe(200);
		expect(res.text).toBe('');
		expect(res.headers.get('etag')).toBe(`"${createHash('md5').update(docx).digest('hex')}"`);
		expect(res.headers.get('x-request-id')).toBeNull();
		expect(res.headers.get('cache-control')).toBeNull();
		expect((await ws.counters()).storagePuts).toBe(before.storagePuts + 1);
	});
	test("a fault injected on storage answers in storage's words (503 SlowDown, XML)", async () => {
		const prep = await prepare(ws, pdf);
		await sb.control.setFaults({
			rules: [{ method: 'PUT', path: '/_storage/uploads/{reportId}', status: 503, count: 1 }],
		});
		try {
			expectStorageError(await uploadFile(sb, prep.upload.url, pdf, PDF_MIME), 503, 'SlowDown');
		} finally {
			await sb.control.clearFaults();
		}
		expect((await uploadFile(sb, prep.upload.url, pdf, PDF_MIME)).status).toBe(200);
	});
});

describe('refresh and cancel', () => {
	test('refresh after admission conflicts (ALREADY_ADMITTED)', async () => {
		const prep = await prepare(ws, pdf);
		await uploadFile(sb, prep.upload.url, pdf, PDF_MIME);
		await start(ws, prep.reportId);
		expectError(
			await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`),
			409,
			'ALREADY_ADMITTED',
		);
		expectError(
			await ws.call('DELETE', `/api/v1/uploads/${prep.reportId}`),
			409,
			'ALREADY_ADMITTED',
		);
		// Storage knows nothing of admissions: the destination is simply closed (the API's refresh says why).
		expectStorageError(await uploadFile(sb, prep.upload.url, pdf, PDF_MIME), 403, 'AccessDenied');
	});
	test('a preparation lasts 24 hours; refresh does not extend it (PREPARATION_EXPIRED)', async () => {
		const prep = await prepare(ws, pdf);
		await sb.control.advanceClock(23 * 3600_000);
		expect((await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`)).status).toBe(200);
		await sb.control.advanceClock(3600_000 + 1000);
		expectError(
			await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`),
			404,
			'PREPARATION_EXPIRED',
		);
	});
	test('cancel answers 204 and repeating it for an absent preparation is safe', async () => {
		const prep = await prepare(ws, pdf);
		const first = await ws.call('DELETE', `/api/v1/uploads/${prep.reportId}`);
		expect(first.status).toBe(204);
		expect(first.text).toBe('');
		expect((await ws.call('DELETE', `/api/v1/uploads/${prep.reportId}`)).status).toBe(204);
		expectError(
			await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`),
			404,
			'PREPARATION_EXPIRED',
		);
		expectStorageError(await uploadFile(sb, prep.upload.url, pdf, PDF_MIME), 403, 'AccessDenied');
	});
	test('refresh takes no body', async () => {
		const prep = await prepare(ws, pdf);
		expectInvalid(
			await ws.call('POST', `/api/v1/uploads/${prep.reportId}/url`, { body: { extend: true } }),
			'body',
			'no_body',
		);
	});
});
