/**
 * Contract test: drive every endpoint of the sandbox over real HTTP (loopback), through happy paths and
 * error paths, then validate every recorded response against openapi/openapi.yaml. Webhook deliveries
 * received by the sandbox's private inbox are validated against the document's `webhooks`.
 *
 * The tests in this file run in order and share one sandbox; the clock-advancing checks come last.
 */
import { startSandbox } from '../../sandbox/src';
import { DOCX_MIME, makeDocx, makePdf, PDF_MIME, type ResumeOptions } from '../fixtures/resumes';
import {
	formatProblems,
	listOperations,
	resolveRoute,
	validateParameter,
	validateRequestBody,
	validateResponse,
	validateWebhookDelivery,
} from '../helpers/contract';
import { storageErrorOf } from '../helpers/sandbox';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
/** A parsed JSON body, typed as JSON.parse types its result. */
type Json = ReturnType<typeof JSON.parse>;

interface Reply {
	status: number;
	headers: Headers;
	body: Json;
}

let sb: Sandbox;
let baseUrl: string;
let apiKey: string;
let workspaceId: string;
let jobId: string;
let keySeq = 0;
/** A report whose analysis completed (set by the analyses tests). */
let completedId: string | undefined;
const completedIdOrUnknown = () => completedId ?? 'rpt_unknown';

/** Every API request this file sent, with the answer's status and reason (for the request-side check). */
interface SentRequest {
	method: string;
	path: string;
	body: unknown;
	idem?: string;
	status: number;
	reason?: string;
	details?: Array<{ field: string; rule: string }>;
}
const sent: SentRequest[] = [];

async function call(
	method: string,
	path: string,
	o: { body?: unknown; key?: string | null; idem?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
	const headers: Record<string, string> = { ...(o.headers ?? {}) };
	const key = o.key === undefined ? apiKey : o.key;
	if (key !== null) headers.authorization = `Bearer ${key}`;
	if (o.idem) headers['idempotency-key'] = o.idem;
	let payload: string | undefined;
	if (o.body !== undefined) {
		headers['content-type'] = 'application/json';
		payload = JSON.stringify(o.body);
	}
	const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
	const text = await res.text();
	let body: Json = text;
	try {
		body = text ? JSON.parse(text) : undefined;
	} catch {
		// keep the text: the contract check reports a non-JSON body
	}
	const error = res.status >= 400 ? body?.error : undefined;
	sent.push({
		method,
		path,
		body: o.body,
		idem: o.idem,
		status: res.status,
		reason: error?.reason,
		details: error?.details,
	});
	return { status: res.status, headers: res.headers, body };
}

async function control(method: string, path: string, body?: unknown): Promise<Json> {
	const res = await fetch(`${baseUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (res.status >= 300) throw new Error(`control ${method} ${path} -> ${res.status} ${text}`);
	return text ? JSON.parse(text) : undefined;
}

const idem = (label: string) => `contract-${label}-${++keySeq}`;

function expectError(r: Reply, status: number, reason?: string): void {
	expect({ status: r.status, reason: r.body?.error?.reason }).toEqual({
		status,
		reason: reason ?? r.body?.error?.reason,
	});
}

/** The storage PUT; `code` is the <Code> of storage's S3-style XML error body. */
async function putFile(
	url: string,
	bytes: Buffer,
	contentType: string,
	extra: Record<string, string> = {},
): Promise<Reply & { code?: string }> {
	const res = await fetch(url, {
		method: 'PUT',
		headers: { 'content-type': contentType, ...extra },
		body: bytes,
	});
	const text = await res.text();
	return { status: res.status, headers: res.headers, body: text, code: storageErrorOf(text)?.Code };
}

function expectStorage(r: { status: number; code?: string }, status: number, code: string): void {
	expect({ status: r.status, code: r.code }).toEqual({ status, code });
}

let candidateSeq = 0;
/** Prepares, uploads and returns a report; `outcome` picks the worker's result through the fixture. */
async function uploadedReport(
	o: ResumeOptions & { docx?: boolean; externalReference?: { source: string; id: string } } = {},
) {
	const bytes = o.docx
		? makeDocx({ candidate: `Candidate ${++candidateSeq}`, ...o })
		: makePdf({ candidate: `Candidate ${++candidateSeq}`, ...o });
	const input: Record<string, unknown> = {
		fileName: o.docx ? 'resume.docx' : 'resume.pdf',
		fileSize: bytes.length,
		mimeType: o.docx ? DOCX_MIME : PDF_MIME,
		jobDescription: { kind: 'existing', id: jobId },
	};
	if (o.externalReference) input.externalReference = o.externalReference;
	const prep = await call('POST', '/api/v1/uploads', { body: input, idem: idem('upload') });
	expect(prep.status).toBe(201);
	const put = await putFile(prep.body.data.upload.url, bytes, prep.body.data.upload.mimeType);
	expect(put.status).toBe(200);
	return { reportId: prep.body.data.reportId as string, bytes, upload: prep.body.data.upload };
}

async function startAnalysis(reportId: string): Promise<Reply> {
	const quote = await call('POST', '/api/v1/analysis-quotes', { body: { reportId } });
	expect(quote.status).toBe(200);
	return call('POST', '/api/v1/analyses', {
		body: { reportId, quoteFingerprint: quote.body.data.fingerprint },
		idem: idem('start'),
	});
}

async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined>,
	timeoutMs = 15000,
): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const v = await probe();
		if (v !== undefined) return v;
		if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

async function waitForReport(
	reportId: string,
	statuses = ['completed', 'requires_action', 'failed'],
): Promise<Json> {
	return waitFor(`report ${reportId}`, async () => {
		const r = await call('GET', `/api/v1/reports/${reportId}/status`);
		return statuses.includes(r.body?.data?.status) ? r.body.data : undefined;
	});
}

/** The candidate can start once the questions are prepared (an independent axis, advanced by the sandbox). */
async function waitForPreparation(interviewId: string): Promise<void> {
	await waitFor(`preparation of ${interviewId}`, async () => {
		const r = await call('GET', `/api/v1/interviews/${interviewId}/status`);
		return r.body?.data?.preparation === 'ready' ? true : undefined;
	});
}

async function completedReport(o: ResumeOptions = {}): Promise<string> {
	const { reportId } = await uploadedReport({ outcome: 'completed', ...o });
	expect((await startAnalysis(reportId)).status).toBe(202);
	expect((await waitForReport(reportId)).status).toBe('completed');
	return reportId;
}

beforeAll(async () => {
	sb = await startSandbox({ port: 0, recordResponses: true, workerDelayMs: 5 });
	baseUrl = sb.baseUrl;
	apiKey = sb.seed.apiKey;
	workspaceId = sb.seed.workspaceId;
	jobId = sb.seed.jobDescriptionId;
});

afterAll(async () => {
	await sb?.close();
});

// ------------------------------------------------------------------------------------------ job descriptions
describe('job descriptions', () => {
	test('list, page and read', async () => {
		await control('POST', `/_sandbox/workspaces/${workspaceId}/job-descriptions`, {
			title: 'Data Engineer',
			company: 'Example Co',
			description: 'Pipelines.',
		});
		const page = await call('GET', '/api/v1/job-descriptions?limit=1');
		expect(page.status).toBe(200);
		expect(page.body.data.items).toHaveLength(1);
		expect(typeof page.body.data.nextCursor).toBe('string');
		const next = await call(
			'GET',
			`/api/v1/job-descriptions?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor)}`,
		);
		expect(next.status).toBe(200);
		const one = await call('GET', `/api/v1/job-descriptions/${jobId}`);
		expect(one.status).toBe(200);
		expect(one.body.data.status).toBe('ACTIVE');
		expectError(await call('GET', '/api/v1/job-descriptions/jd_unknown'), 404);
		expectError(await call('GET', '/api/v1/job-descriptions?limit=0'), 400, 'VALIDATION_FAILED');
	});
});

// ------------------------------------------------------------------------------------------ uploads
describe('uploads', () => {
	test('prepare (PDF and DOCX, inline job), PUT, refresh, cancel', async () => {
		const pdf = await uploadedReport({
			externalReference: { source: 'contract-ats', id: 'APP-1' },
		});
		const fresh = await call('GET', `/api/v1/reports/${pdf.reportId}?include=reference`);
		expect(fresh.body.data).toMatchObject({
			status: 'queued',
			attemptId: null,
			externalReference: { source: 'contract-ats', id: 'APP-1' },
		});
		const refreshed = await call('POST', `/api/v1/uploads/${pdf.reportId}/url`);
		expect(refreshed.status).toBe(200);
		expect(refreshed.body.data.upload.url).not.toBe(pdf.upload.url);
		await uploadedReport({ docx: true });

		const bytes = makePdf({ candidate: 'Inline Job' });
		const inline = await call('POST', '/api/v1/uploads', {
			body: {
				fileName: 'inline.pdf',
				fileSize: bytes.length,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'text', text: 'Senior backend engineer, TypeScript.' },
			},
			idem: idem('inline'),
		});
		expect(inline.status).toBe(201);
		const cancel = await call('DELETE', `/api/v1/uploads/${inline.body.data.reportId}`);
		expect(cancel.status).toBe(204);
		expect((await call('DELETE', `/api/v1/uploads/${inline.body.data.reportId}`)).status).toBe(204);
		expectError(
			await call('POST', `/api/v1/uploads/${inline.body.data.reportId}/url`),
			404,
			'PREPARATION_EXPIRED',
		);
	});

	test('idempotent replay and changed body under a used key', async () => {
		const bytes = makePdf({ candidate: 'Replay' });
		const body = {
			fileName: 'replay.pdf',
			fileSize: bytes.length,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'existing', id: jobId },
		};
		const key = idem('replay');
		const first = await call('POST', '/api/v1/uploads', { body, idem: key });
		const again = await call('POST', '/api/v1/uploads', { body, idem: key });
		expect(first.status).toBe(201);
		expect(again.status).toBe(201);
		expect(again.body.data.reportId).toBe(first.body.data.reportId);
		expectError(
			await call('POST', '/api/v1/uploads', {
				body: { ...body, fileSize: bytes.length + 1 },
				idem: key,
			}),
			409,
			'IDEMPOTENCY_KEY_REUSED',
		);
	});

	test('preparation errors: validation, missing key, unknown job, conflicts', async () => {
		const good = {
			fileName: 'a.pdf',
			fileSize: 1000,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'existing', id: jobId },
		};
		const invalid = await call('POST', '/api/v1/uploads', {
			body: { ...good, fileSize: 10485761, fileName: 'a/b.pdf' },
			idem: idem('bad'),
		});
		expectError(invalid, 400, 'VALIDATION_FAILED');
		expect(invalid.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
			'fileName',
			'fileSize',
		]);
		expectError(await call('POST', '/api/v1/uploads', { body: good }), 400, 'VALIDATION_FAILED');
		expectError(
			await call('POST', '/api/v1/uploads', { body: good, idem: 'has space' }),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/uploads', {
				body: { ...good, jobDescription: { kind: 'existing', id: 'jd_nope' } },
				idem: idem('nojob'),
			}),
			404,
		);
		expectError(
			await call('POST', '/api/v1/uploads', {
				body: {
					...good,
					jobDescription: { kind: 'existing', id: jobId, expectedRevision: '0'.repeat(64) },
				},
				idem: idem('rev'),
			}),
			409,
			'JD_REVISION_CHANGED',
		);
		expectError(
			await call('POST', '/api/v1/uploads', {
				body: { ...good, externalReference: { source: 'contract-ats', id: 'APP-1' } },
				idem: idem('extref'),
			}),
			409,
			'EXTERNAL_REFERENCE_CONFLICT',
		);
	});

	test('saved job must be ACTIVE; pending preparation limit', async () => {
		const job = await control('POST', `/_sandbox/workspaces/${workspaceId}/job-descriptions`, {
			title: 'Retired role',
			company: 'Example Co',
			description: 'Old.',
		});
		await control('POST', `/_sandbox/job-descriptions/${job.id}/deactivate`);
		const input = {
			fileName: 'x.pdf',
			fileSize: 1000,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'existing', id: job.id },
		};
		expectError(
			await call('POST', '/api/v1/uploads', { body: input, idem: idem('inactive') }),
			422,
			'JOB_DESCRIPTION_INACTIVE',
		);
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { pendingUploadLimit: 0 });
		expectError(
			await call('POST', '/api/v1/uploads', {
				body: { ...input, jobDescription: { kind: 'existing', id: jobId } },
				idem: idem('limit'),
			}),
			409,
			'PENDING_UPLOAD_LIMIT',
		);
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { pendingUploadLimit: 1000 });
	});

	test('malformed JSON and a body where none is taken', async () => {
		const res = await fetch(`${baseUrl}/api/v1/analysis-quotes`, {
			method: 'POST',
			headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
			body: '{"reportId":',
		});
		expect(res.status).toBe(400);
		await res.text();
		expectError(
			await call('POST', `/api/v1/uploads/${completedIdOrUnknown()}/url`, { body: { x: 1 } }),
			400,
			'VALIDATION_FAILED',
		);
	});

	test('storage PUT errors', async () => {
		const bytes = makePdf({ candidate: 'Storage' });
		const prep = await call('POST', '/api/v1/uploads', {
			body: {
				fileName: 'storage.pdf',
				fileSize: bytes.length,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'existing', id: jobId },
			},
			idem: idem('storage'),
		});
		const url: string = prep.body.data.upload.url;
		expectStorage(
			await putFile(
				url.replace(/signature=[0-9a-f]+/, `signature=${'0'.repeat(64)}`),
				bytes,
				PDF_MIME,
			),
			403,
			'SignatureDoesNotMatch',
		);
		expectStorage(await putFile(url, bytes, DOCX_MIME), 403, 'SignatureDoesNotMatch');
		expectStorage(await putFile(url.split('?')[0], bytes, PDF_MIME), 403, 'AccessDenied');
		expectStorage(
			await putFile(url, Buffer.concat([bytes, Buffer.from('x')]), PDF_MIME),
			400,
			'EntityTooLarge',
		);
		expectStorage(await putFile(url, bytes.subarray(1), PDF_MIME), 400, 'EntityTooSmall');
		expectStorage(
			await putFile(url, bytes, PDF_MIME, { authorization: `Bearer ${apiKey}` }),
			400,
			'InvalidArgument',
		);
		const stored = await putFile(url, bytes, PDF_MIME);
		expect(stored.status).toBe(200);
		expect(stored.headers.get('etag')).toMatch(/^"[a-f0-9]{32}"$/);
	});

	test('upload batch', async () => {
		const files = [makePdf({ candidate: 'Batch One' }), makePdf({ candidate: 'Batch Two' })];
		const created = await call('POST', '/api/v1/upload-batches', {
			body: {
				jobDescription: { kind: 'existing', id: jobId },
				items: files.map((f, i) => ({
					itemKey: `u${i}`,
					input: { fileName: `b${i}.pdf`, fileSize: f.length, mimeType: PDF_MIME },
				})),
			},
			idem: idem('ubatch'),
		});
		expect(created.status).toBe(202);
		const batch = await waitFor('upload batch', async () => {
			const r = await call('GET', `/api/v1/upload-batches/${created.body.data.batchId}`);
			return r.body?.data?.status === 'completed' ? r.body.data : undefined;
		});
		expect(batch.items.map((i: { state: string }) => i.state)).toEqual(['succeeded', 'succeeded']);
		for (const [i, item] of batch.items.entries())
			expect((await putFile(item.upload.url, files[i], PDF_MIME)).status).toBe(200);
		expectError(
			await call('POST', '/api/v1/upload-batches', { body: { items: [] }, idem: idem('empty') }),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/upload-batches', {
				body: {
					items: [
						{
							itemKey: 'x',
							input: {
								fileName: 'x.pdf',
								fileSize: 10,
								mimeType: PDF_MIME,
								jobDescription: { kind: 'existing', id: 'jd_foreign' },
							},
						},
					],
				},
				idem: idem('foreign'),
			}),
			404,
		);
		expectError(await call('GET', '/api/v1/upload-batches/bat_unknown'), 404);
	});
});

// ------------------------------------------------------------------------------------------ analyses and reports
describe('analyses and reports', () => {
	test('quote, start, completed, result; every outcome', async () => {
		const { reportId, bytes, upload } = await uploadedReport({ outcome: 'completed', score: 8 });
		const started = await startAnalysis(reportId);
		// The accepted file is frozen for the attempt; storage refuses another PUT (403, as a revoked URL).
		expectStorage(await putFile(upload.url, bytes, PDF_MIME), 403, 'AccessDenied');
		expectStorage(
			await putFile(
				upload.url.replace(`/uploads/${reportId}?`, '/uploads/rpt_unknown?'),
				bytes,
				PDF_MIME,
			),
			403,
			'SignatureDoesNotMatch',
		);
		expect(started.status).toBe(202);
		expect(started.body.data.statusUrl).toBe(`/api/v1/reports/${reportId}/status`);
		expect((await waitForReport(reportId)).status).toBe('completed');
		completedId = reportId;
		const result = await call('GET', `/api/v1/reports/${reportId}/result`);
		expect(result.status).toBe(200);
		expect(result.body.data.result.score).toBe(8);
		expect((await call('GET', `/api/v1/reports/${reportId}/result?schemaVersion=1`)).status).toBe(
			200,
		);
		expect((await call('GET', `/api/v1/reports/${reportId}?include=reference`)).status).toBe(200);

		for (const outcome of ['requires_action', 'failed', 'retry_then_completed'] as const) {
			const other = await uploadedReport({ outcome });
			expect((await startAnalysis(other.reportId)).status).toBe(202);
			const status = await waitForReport(other.reportId);
			expect(status.status).toBe(outcome === 'retry_then_completed' ? 'completed' : outcome);
			expect((await call('GET', `/api/v1/reports/${other.reportId}/result`)).status).toBe(200);
		}
	});

	test('start analysis errors', async () => {
		const notUploaded = await call('POST', '/api/v1/uploads', {
			body: {
				fileName: 'late.pdf',
				fileSize: 500,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'existing', id: jobId },
			},
			idem: idem('late'),
		});
		const lateId = notUploaded.body.data.reportId;
		const quote = await call('POST', '/api/v1/analysis-quotes', { body: { reportId: lateId } });
		expect(quote.status).toBe(200);
		expectError(
			await call('POST', '/api/v1/analyses', {
				body: { reportId: lateId, quoteFingerprint: quote.body.data.fingerprint },
				idem: idem('noup'),
			}),
			422,
			'INVALID_UPLOAD',
		);
		const { reportId } = await uploadedReport();
		expectError(
			await call('POST', '/api/v1/analyses', {
				body: { reportId, quoteFingerprint: 'f'.repeat(64) },
				idem: idem('stale'),
			}),
			422,
			'QUOTE_STALE',
		);
		expectError(
			await call('POST', '/api/v1/analyses', { body: { reportId }, idem: idem('nofp') }),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/analysis-quotes', { body: { reportId: 'rpt_unknown' } }),
			404,
		);
		expectError(
			await call('POST', '/api/v1/analysis-quotes', { body: { reportId: completedId } }),
			409,
			'ANALYSIS_ALREADY_STARTED',
		);
		expectError(await call('POST', `/api/v1/uploads/${completedId}/url`), 409, 'ALREADY_ADMITTED');
		expectError(await call('DELETE', `/api/v1/uploads/${completedId}`), 409, 'ALREADY_ADMITTED');
		expectError(
			await call('GET', `/api/v1/reports/${completedId}/result?schemaVersion=2`),
			422,
			'RESULT_VERSION_UNSUPPORTED',
		);
	});

	test('allowance and capacity at admission', async () => {
		const { reportId } = await uploadedReport();
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { activeAnalysisLimit: 0 });
		expectError(await startAnalysis(reportId), 422, 'ACTIVE_ANALYSIS_LIMIT');
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, {
			activeAnalysisLimit: 10,
			analysisAllowance: 0,
		});
		expectError(await startAnalysis(reportId), 422, 'INSUFFICIENT_ALLOWANCE');
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { analysisAllowance: 1000 });
	});

	test('a replayed start returns the same attempt', async () => {
		const { reportId } = await uploadedReport({ outcome: 'completed' });
		const quote = await call('POST', '/api/v1/analysis-quotes', { body: { reportId } });
		const body = { reportId, quoteFingerprint: quote.body.data.fingerprint };
		const key = idem('start-replay');
		const first = await call('POST', '/api/v1/analyses', { body, idem: key });
		const again = await call('POST', '/api/v1/analyses', { body, idem: key });
		expect([first.status, again.status]).toEqual([202, 202]);
		expect(again.body.data.attemptId).toBe(first.body.data.attemptId);
		await waitForReport(reportId);
	});

	test('capacity-limited batch items wait; one active batch per kind', async () => {
		const a = await uploadedReport({ outcome: 'completed' });
		const quote = await call('POST', '/api/v1/analysis-quotes', { body: { reportId: a.reportId } });
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { batchCapacity: 0 });
		const created = await call('POST', '/api/v1/analysis-batches', {
			body: {
				items: [
					{
						itemKey: 'w',
						input: { reportId: a.reportId, quoteFingerprint: quote.body.data.fingerprint },
					},
				],
			},
			idem: idem('waiting'),
		});
		expect(created.status).toBe(202);
		const waiting = await waitFor('waiting item', async () => {
			const r = await call('GET', `/api/v1/analysis-batches/${created.body.data.batchId}`);
			return r.body?.data?.items?.[0]?.state === 'waiting_capacity' ? r.body.data : undefined;
		});
		expect(waiting.status).toBe('processing');
		expectError(
			await call('POST', '/api/v1/analysis-batches', {
				body: {
					items: [
						{
							itemKey: 'x',
							input: { reportId: a.reportId, quoteFingerprint: quote.body.data.fingerprint },
						},
					],
				},
				idem: idem('second'),
			}),
			409,
			'BATCH_ALREADY_ACTIVE',
		);
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { batchCapacity: 20 });
		const done = await waitFor('batch completion', async () => {
			const r = await call('GET', `/api/v1/analysis-batches/${created.body.data.batchId}`);
			return r.body?.data?.status === 'completed' ? r.body.data : undefined;
		});
		expect(done.items[0].state).toBe('succeeded');
	});

	test('report list: newest first, filters, include, paging, cursor errors', async () => {
		const all = await call('GET', '/api/v1/reports?limit=100&include=reference');
		expect(all.status).toBe(200);
		const created = all.body.data.items.map((r: { createdAt: string }) => r.createdAt);
		expect([...created].sort().reverse()).toEqual(created);
		const page1 = await call('GET', '/api/v1/reports?limit=2');
		expect(page1.body.data.nextCursor).toEqual(expect.any(String));
		const page2 = await call(
			'GET',
			`/api/v1/reports?limit=2&cursor=${encodeURIComponent(page1.body.data.nextCursor)}`,
		);
		expect(page2.status).toBe(200);
		const filtered = await call(
			'GET',
			'/api/v1/reports?externalReferenceSource=contract-ats&externalReferenceId=APP-1&include=reference',
		);
		expect(filtered.body.data.items).toHaveLength(1);
		const window = await call(
			'GET',
			`/api/v1/reports?createdAfter=${encodeURIComponent('2000-01-01T00:00:00Z')}&createdBefore=${encodeURIComponent('2999-01-01T00:00:00+01:00')}`,
		);
		expect(window.status).toBe(200);
		// Filters are bound to the cursor: following it with a changed filter restarts nothing, it is refused.
		const changed = `createdAfter=${encodeURIComponent('2000-01-01T00:00:00Z')}`;
		expectError(
			await call(
				'GET',
				`/api/v1/reports?limit=2&${changed}&cursor=${encodeURIComponent(page1.body.data.nextCursor)}`,
			),
			400,
			'INVALID_CURSOR',
		);
		expectError(await call('GET', '/api/v1/reports?cursor=forged'), 400, 'INVALID_CURSOR');
		expectError(
			await call('GET', '/api/v1/reports?externalReferenceSource=contract-ats'),
			400,
			'VALIDATION_FAILED',
		);
		expectError(await call('GET', '/api/v1/reports?limit=101'), 400, 'VALIDATION_FAILED');
		expectError(await call('GET', `/api/v1/reports/${'r'.repeat(101)}`), 400, 'VALIDATION_FAILED');
		expectError(await call('GET', '/api/v1/reports/rpt_unknown'), 404);
		expectError(await call('GET', '/api/v1/reports/rpt_unknown/status'), 404);
		expectError(await call('GET', '/api/v1/reports/rpt_unknown/result'), 404);
	});

	test('analysis batch quotes and analysis batch', async () => {
		const a = await uploadedReport({ outcome: 'completed' });
		const b = await uploadedReport({ outcome: 'failed' });
		const quotes = await call('POST', '/api/v1/analysis-batch-quotes', {
			body: {
				items: [
					{ itemKey: 'a', input: { reportId: a.reportId } },
					{ itemKey: 'b', input: { reportId: b.reportId } },
					{ itemKey: 'c', input: { reportId: completedId } },
				],
			},
		});
		expect(quotes.status).toBe(200);
		expect(quotes.body.data.total.quotedItems).toBe(2);
		expect(quotes.body.data.items[2].quote).toBeNull();
		const [qa, qb] = quotes.body.data.items;
		const created = await call('POST', '/api/v1/analysis-batches', {
			body: {
				items: [
					{ itemKey: 'a', input: { reportId: a.reportId, quoteFingerprint: qa.quote.fingerprint } },
					{ itemKey: 'b', input: { reportId: b.reportId, quoteFingerprint: qb.quote.fingerprint } },
				],
			},
			idem: idem('abatch'),
		});
		expect(created.status).toBe(202);
		expect(created.body.data.statusUrl).toBe(
			`/api/v1/analysis-batches/${created.body.data.batchId}`,
		);
		const batch = await waitFor('analysis batch', async () => {
			const r = await call('GET', `/api/v1/analysis-batches/${created.body.data.batchId}`);
			return r.body?.data?.status === 'completed' ? r.body.data : undefined;
		});
		expect(batch.items).toHaveLength(2);
		expectError(
			await call('POST', '/api/v1/analysis-batch-quotes', {
				body: {
					items: Array.from({ length: 21 }, (_, i) => ({
						itemKey: `k${i}`,
						input: { reportId: a.reportId },
					})),
				},
			}),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/analysis-batches', {
				body: {
					items: [
						{ itemKey: 'x', input: { reportId: 'rpt_foreign', quoteFingerprint: 'a'.repeat(64) } },
					],
				},
				idem: idem('fa'),
			}),
			404,
		);
		expectError(await call('GET', '/api/v1/analysis-batches/bat_unknown'), 404);
	});
});

// ------------------------------------------------------------------------------------------ interviews
describe('interviews', () => {
	let interviewId: string;
	let reportForInterview: string;

	test('quote, invite by email, resend, controls to result_ready, reinterview', async () => {
		reportForInterview = await completedReport();
		const email = 'ada.lovelace@example.com';
		const quote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId: reportForInterview, candidateEmail: email },
		});
		expect(quote.status).toBe(200);
		const invite = await call('POST', '/api/v1/interviews', {
			body: {
				reportId: reportForInterview,
				candidateEmail: email,
				quoteFingerprint: quote.body.data.fingerprint,
			},
			idem: idem('invite'),
		});
		expect(invite.status).toBe(202);
		expect(invite.body.data.invitationToken).toBeNull();
		interviewId = invite.body.data.interviewId;
		expect((await call('GET', `/api/v1/interviews/${interviewId}`)).status).toBe(200);
		expect((await call('GET', `/api/v1/interviews/${interviewId}/status`)).status).toBe(200);
		const pending = await call('GET', `/api/v1/interviews/${interviewId}/result`);
		expect(pending.body.data.result).toBeNull();
		const resent = await call('POST', `/api/v1/interviews/${interviewId}/resend`, {
			idem: idem('resend'),
		});
		expect(resent.status).toBe(202);
		await waitForPreparation(interviewId);
		for (const type of ['interview.started', 'interview.completed', 'interview.result_ready']) {
			await control('POST', `/_sandbox/interviews/${interviewId}/events`, { type });
		}
		const done = await call('GET', `/api/v1/interviews/${interviewId}/result?schemaVersion=1`);
		expect(done.body.data.evaluation).toBe('ready');
		expect(done.body.data.result).not.toBeNull();
		expectError(
			await call('GET', `/api/v1/interviews/${interviewId}/result?schemaVersion=3`),
			422,
			'RESULT_VERSION_UNSUPPORTED',
		);
		expectError(
			await call('POST', `/api/v1/interviews/${interviewId}/resend`, { idem: idem('resend-late') }),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);

		const requote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId: reportForInterview, candidateEmail: email, sendEmail: false },
		});
		const again = await call('POST', `/api/v1/interviews/${interviewId}/reinterview`, {
			body: {
				reportId: reportForInterview,
				candidateEmail: email,
				sendEmail: false,
				quoteFingerprint: requote.body.data.fingerprint,
			},
			idem: idem('reinterview'),
		});
		expect(again.status).toBe(202);
		expect(again.body.data.interviewId).not.toBe(interviewId);
		expect(again.body.data.invitationToken).toEqual(expect.any(String));
		expect((await call('GET', `/api/v1/interviews/${interviewId}`)).body.data.lifecycle).toBe(
			'superseded',
		);
	});

	test('private-link invitation and independent failure axes', async () => {
		const reportId = await completedReport();
		const quote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: 'grace@example.com', sendEmail: false },
		});
		const invite = await call('POST', '/api/v1/interviews', {
			body: {
				reportId,
				candidateEmail: 'grace@example.com',
				sendEmail: false,
				quoteFingerprint: quote.body.data.fingerprint,
			},
			idem: idem('private'),
		});
		expect(invite.status).toBe(202);
		expect(invite.body.data.emailDelivery).toBe('not_requested');
		await control('POST', `/_sandbox/interviews/${invite.body.data.interviewId}/events`, {
			type: 'interview.preparation_failed',
		});
		const status = await call('GET', `/api/v1/interviews/${invite.body.data.interviewId}/status`);
		expect(status.body.data).toMatchObject({ lifecycle: 'invited', preparation: 'failed' });
		await control('POST', `/_sandbox/interviews/${invite.body.data.interviewId}/events`, {
			type: 'interview.expired',
		});
		expect(
			(await call('GET', `/api/v1/interviews/${invite.body.data.interviewId}`)).body.data.lifecycle,
		).toBe('expired');
	});

	test('reinterview refused while in progress; invitation_failed needs a queued email', async () => {
		const reportId = await completedReport();
		const email = 'linus@example.com';
		const quote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: email },
		});
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { holdEmails: true });
		const invite = await call('POST', '/api/v1/interviews', {
			body: { reportId, candidateEmail: email, quoteFingerprint: quote.body.data.fingerprint },
			idem: idem('held'),
		});
		expect(invite.status).toBe(202);
		const id = invite.body.data.interviewId;
		await control('POST', `/_sandbox/interviews/${id}/events`, {
			type: 'interview.invitation_failed',
		});
		await control('PATCH', `/_sandbox/workspaces/${workspaceId}`, { holdEmails: false });
		expect((await call('GET', `/api/v1/interviews/${id}`)).body.data).toMatchObject({
			lifecycle: 'invited',
			emailDelivery: 'failed',
		});
		await waitForPreparation(id);
		await control('POST', `/_sandbox/interviews/${id}/events`, { type: 'interview.started' });
		const requote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: email },
		});
		expectError(
			await call('POST', `/api/v1/interviews/${id}/reinterview`, {
				body: { reportId, candidateEmail: email, quoteFingerprint: requote.body.data.fingerprint },
				idem: idem('busy'),
			}),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
	});

	test('interview errors', async () => {
		const { reportId } = await uploadedReport();
		expectError(
			await call('POST', '/api/v1/interview-quotes', {
				body: { reportId, candidateEmail: 'x@example.com' },
			}),
			422,
			'ANALYSIS_NOT_USABLE',
		);
		expectError(
			await call('POST', '/api/v1/interview-quotes', {
				body: { reportId: completedId, candidateEmail: '.x@example.com' },
			}),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/interview-quotes', {
				body: { reportId: 'rpt_unknown', candidateEmail: 'x@example.com' },
			}),
			404,
		);
		expectError(
			await call('POST', '/api/v1/interviews', {
				body: {
					reportId: completedId,
					candidateEmail: 'x@example.com',
					quoteFingerprint: 'b'.repeat(64),
				},
				idem: idem('stale-inv'),
			}),
			422,
			'QUOTE_STALE',
		);
		expectError(await call('GET', '/api/v1/interviews/int_unknown'), 404);
		expectError(await call('GET', '/api/v1/interviews/int_unknown/status'), 404);
		expectError(await call('GET', '/api/v1/interviews/int_unknown/result'), 404);
		expectError(
			await call('POST', '/api/v1/interviews/int_unknown/resend', { idem: idem('r404') }),
			404,
		);
		expectError(await call('GET', '/api/v1/interviews?lifecycle=paused'), 400, 'VALIDATION_FAILED');
	});

	test('interview list with filters and paging', async () => {
		const list = await call('GET', '/api/v1/interviews?limit=1');
		expect(list.status).toBe(200);
		expect(list.body.data.items).toHaveLength(1);
		expect(
			(
				await call(
					'GET',
					`/api/v1/interviews?limit=1&cursor=${encodeURIComponent(list.body.data.nextCursor)}`,
				)
			).status,
		).toBe(200);
		const byReport = await call(
			'GET',
			`/api/v1/interviews?reportId=${reportForInterview}&lifecycle=superseded`,
		);
		expect(byReport.body.data.items.map((i: { id: string }) => i.id)).toEqual([interviewId]);
	});

	test('interview batch quotes and interview batch', async () => {
		const ids = [await completedReport(), await completedReport()];
		const items = ids.map((reportId, i) => ({
			itemKey: `i${i}`,
			input: { reportId, candidateEmail: `cand${i}@example.com`, sendEmail: true },
		}));
		const quotes = await call('POST', '/api/v1/interview-batch-quotes', { body: { items } });
		expect(quotes.status).toBe(200);
		expect(quotes.body.data.total.admissionGuaranteed).toBe(false);
		const created = await call('POST', '/api/v1/interview-batches', {
			body: {
				items: items.map((it, i) => ({
					...it,
					input: { ...it.input, quoteFingerprint: quotes.body.data.items[i].quote.fingerprint },
				})),
			},
			idem: idem('ibatch'),
		});
		expect(created.status).toBe(202);
		const batch = await waitFor('interview batch', async () => {
			const r = await call('GET', `/api/v1/interview-batches/${created.body.data.batchId}`);
			return r.body?.data?.status === 'completed' ? r.body.data : undefined;
		});
		expect(batch.items.every((i: { state: string }) => i.state === 'succeeded')).toBe(true);
		expectError(
			await call('POST', '/api/v1/interview-batches', {
				body: {
					items: [
						{
							itemKey: 'x',
							input: { ...items[0].input, sendEmail: false, quoteFingerprint: 'a'.repeat(64) },
						},
					],
				},
				idem: idem('ib-false'),
			}),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/interview-batch-quotes', {
				body: {
					items: [
						{
							itemKey: 'x',
							input: { reportId: 'rpt_foreign', candidateEmail: 'a@example.com', sendEmail: true },
						},
					],
				},
			}),
			404,
		);
		expectError(await call('GET', '/api/v1/interview-batches/bat_unknown'), 404);
	});
});

// ------------------------------------------------------------------------------------------ more error paths
describe('error paths of the write operations', () => {
	test('start, invite, reinterview, batches: conflicts, unknown ids, stale quotes, missing scope', async () => {
		const fp = 'd'.repeat(64);
		const done = completedIdOrUnknown();
		expectError(
			await call('POST', '/api/v1/analyses', {
				body: { reportId: done, quoteFingerprint: fp },
				idem: idem('restart'),
			}),
			409,
			'ANALYSIS_ALREADY_STARTED',
		);
		expectError(
			await call('POST', '/api/v1/analyses', {
				body: { reportId: 'rpt_unknown', quoteFingerprint: fp },
				idem: idem('start404'),
			}),
			404,
		);

		const reportId = await completedReport();
		const email = 'margaret@example.com';
		const quote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: email },
		});
		const invite = await call('POST', '/api/v1/interviews', {
			body: { reportId, candidateEmail: email, quoteFingerprint: quote.body.data.fingerprint },
			idem: idem('inv'),
		});
		expect(invite.status).toBe(202);
		const requote = await call('POST', '/api/v1/interview-quotes', {
			body: { reportId, candidateEmail: email },
		});
		expectError(
			await call('POST', '/api/v1/interviews', {
				body: { reportId, candidateEmail: email, quoteFingerprint: requote.body.data.fingerprint },
				idem: idem('inv2'),
			}),
			409,
			'INTERVIEW_NOT_ELIGIBLE',
		);
		expectError(
			await call('POST', '/api/v1/interviews', {
				body: { reportId: 'rpt_unknown', candidateEmail: email, quoteFingerprint: fp },
				idem: idem('inv404'),
			}),
			404,
		);
		expectError(
			await call('POST', '/api/v1/interviews', {
				body: { reportId, candidateEmail: email },
				idem: idem('inv400'),
			}),
			400,
			'VALIDATION_FAILED',
		);
		const id = invite.body.data.interviewId;
		const reinterview = (body: unknown, key: string, target = id) =>
			call('POST', `/api/v1/interviews/${target}/reinterview`, { body, idem: key });
		expectError(
			await reinterview({ reportId, candidateEmail: email, quoteFingerprint: fp }, idem('re422')),
			422,
			'QUOTE_STALE',
		);
		expectError(
			await reinterview(
				{ reportId, candidateEmail: email, quoteFingerprint: fp },
				idem('re404'),
				'int_unknown',
			),
			404,
		);
		expectError(await reinterview({ reportId }, idem('re400')), 400, 'VALIDATION_FAILED');
		expectError(await call('POST', `/api/v1/interviews/${id}/resend`), 400, 'VALIDATION_FAILED');

		const item = {
			itemKey: 'a',
			input: { reportId, candidateEmail: 'b@example.com', sendEmail: true, quoteFingerprint: fp },
		};
		expectError(
			await call('POST', '/api/v1/interview-batches', {
				body: { items: [item, item] },
				idem: idem('dupkey'),
			}),
			400,
			'VALIDATION_FAILED',
		);
		expectError(
			await call('POST', '/api/v1/interview-batches', {
				body: { items: [{ ...item, input: { ...item.input, reportId: 'rpt_foreign' } }] },
				idem: idem('ib404'),
			}),
			404,
		);
		expectError(
			await call('POST', '/api/v1/interview-batch-quotes', {
				body: { items: [{ itemKey: 'a', input: { reportId, candidateEmail: 'bad' } }] },
			}),
			400,
			'VALIDATION_FAILED',
		);

		const bytes = makePdf({ candidate: 'Batch Reuse' });
		const batchBody = {
			jobDescription: { kind: 'existing', id: jobId },
			items: [
				{ itemKey: 'r', input: { fileName: 'r.pdf', fileSize: bytes.length, mimeType: PDF_MIME } },
			],
		};
		const key = idem('ub-reuse');
		expect(
			(await call('POST', '/api/v1/upload-batches', { body: batchBody, idem: key })).status,
		).toBe(202);
		expectError(
			await call('POST', '/api/v1/upload-batches', {
				body: { ...batchBody, items: [{ ...batchBody.items[0], itemKey: 's' }] },
				idem: key,
			}),
			409,
			'IDEMPOTENCY_KEY_REUSED',
		);

		const readOnly = await control('POST', `/_sandbox/workspaces/${workspaceId}/keys`, {
			scopes: ['reports:read'],
		});
		for (const [method, path] of [
			['POST', '/api/v1/uploads'],
			['POST', '/api/v1/analysis-quotes'],
			['POST', '/api/v1/interview-quotes'],
			['GET', '/api/v1/interviews'],
			['GET', '/api/v1/job-descriptions'],
		]) {
			const denied = await call(method, path, {
				key: readOnly.apiKey,
				body: method === 'POST' ? {} : undefined,
				idem: method === 'POST' ? idem('scope') : undefined,
			});
			expectError(denied, 403, 'MISSING_SCOPE');
		}
	});
});

// ------------------------------------------------------------------------------------------ auth and conventions
describe('authentication, scopes and conventions', () => {
	test('401 for missing, unknown, non-test, revoked keys', async () => {
		expectError(await call('GET', '/api/v1/reports', { key: null }), 401);
		expectError(await call('GET', '/api/v1/reports', { key: 'svc_test_unknown' }), 401);
		expectError(await call('GET', '/api/v1/reports', { key: 'svc_live_production' }), 401);
		const extra = await control('POST', `/_sandbox/workspaces/${workspaceId}/keys`, {});
		expect((await call('GET', '/api/v1/reports', { key: extra.apiKey })).status).toBe(200);
		await control('POST', '/_sandbox/keys/revoke', { apiKey: extra.apiKey });
		expectError(await call('GET', '/api/v1/reports', { key: extra.apiKey }), 401);
	});

	test('403 for a missing scope and a disabled workspace; 404 across workspaces', async () => {
		const narrow = await control('POST', `/_sandbox/workspaces/${workspaceId}/keys`, {
			scopes: ['analyses:write'],
		});
		const denied = await call('GET', '/api/v1/reports', { key: narrow.apiKey });
		expectError(denied, 403, 'MISSING_SCOPE');
		expect(denied.body.error.requiredScopes).toEqual(['reports:read']);
		expectError(await call('GET', '/api/v1/events', { key: narrow.apiKey }), 403, 'MISSING_SCOPE');
		expectError(
			await call('GET', `/api/v1/interview-batches/bat_x`, { key: narrow.apiKey }),
			403,
			'MISSING_SCOPE',
		);

		const other = await control('POST', '/_sandbox/workspaces', {});
		expectError(await call('GET', `/api/v1/reports/${completedId}`, { key: other.apiKey }), 404);
		await control('PATCH', `/_sandbox/workspaces/${other.workspaceId}`, { disabled: true });
		expectError(
			await call('GET', '/api/v1/reports', { key: other.apiKey }),
			403,
			'WORKSPACE_DISABLED',
		);
	});

	test('405 with Allow for unsupported methods', async () => {
		const refused = await call('PUT', '/api/v1/reports');
		expectError(refused, 405);
		expect(refused.headers.get('allow')).toContain('GET');
		expectError(await call('PATCH', `/api/v1/interviews/int_x`), 405);
		expectError(await call('GET', '/api/v1/uploads'), 405);
	});

	test('injected 429, 500 and 503 keep the error contract', async () => {
		await control('PUT', '/_sandbox/faults', {
			rules: [
				{
					method: 'GET',
					path: '/api/v1/job-descriptions',
					status: 429,
					retryAfterSeconds: 2,
					rate: 1,
					count: 1,
				},
				{ method: 'GET', path: '/api/v1/reports', status: 500, rate: 1, count: 1 },
				{ method: 'GET', path: '/api/v1/events', status: 503, rate: 1, count: 1 },
			],
		});
		const limited = await call('GET', '/api/v1/job-descriptions');
		expectError(limited, 429);
		expect(limited.headers.get('retry-after')).toBe('2');
		expectError(await call('GET', '/api/v1/reports'), 500);
		expectError(await call('GET', '/api/v1/events'), 503);
		const served = (await control('GET', '/_sandbox/faults')) as {
			rules: Array<{ path: string; fired: number }>;
		};
		expect(served.rules.map((r) => [r.path, r.fired])).toEqual([
			['/api/v1/job-descriptions', 1],
			['/api/v1/reports', 1],
			['/api/v1/events', 1],
		]);
		await control('DELETE', '/_sandbox/faults');
		expect((await call('GET', '/api/v1/job-descriptions')).status).toBe(200);
	});
});

// ------------------------------------------------------------------------------------------ events and webhooks
describe('events and webhooks', () => {
	test('feed: pages, filters, hasMore, cursor errors', async () => {
		const first = await call('GET', '/api/v1/events?limit=2');
		expect(first.status).toBe(200);
		expect(first.body.data.hasMore).toBe(true);
		const second = await call(
			'GET',
			`/api/v1/events?limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`,
		);
		expect(second.status).toBe(200);
		const completedEvents = await call('GET', '/api/v1/events?type=report.completed&limit=100');
		expect(completedEvents.body.data.items.length).toBeGreaterThan(0);
		expect(
			completedEvents.body.data.items.every((e: { type: string }) => e.type === 'report.completed'),
		).toBe(true);
		expect((await call('GET', `/api/v1/events?reportId=${completedId}`)).status).toBe(200);
		expect((await call('GET', '/api/v1/events?interviewId=int_unknown')).status).toBe(200);
		expectError(
			await call(
				'GET',
				`/api/v1/events?type=report.failed&cursor=${encodeURIComponent(first.body.data.nextCursor)}`,
			),
			400,
			'INVALID_CURSOR',
		);
		expectError(await call('GET', '/api/v1/events?limit=abc'), 400, 'VALIDATION_FAILED');
	});

	test('report deletion: 404 afterwards, report.deleted tombstone in the feed', async () => {
		const reportId = await completedReport();
		await control('POST', `/_sandbox/reports/${reportId}/delete`);
		expectError(await call('GET', `/api/v1/reports/${reportId}`), 404);
		const events = await call('GET', `/api/v1/events?reportId=${reportId}&limit=100`);
		const deleted = events.body.data.items.find(
			(e: { type: string }) => e.type === 'report.deleted',
		);
		expect(deleted).toBeDefined();
		expect(deleted.data).toBeUndefined();
	});

	test('webhook deliveries to the private inbox follow the webhooks contract', async () => {
		const endpoint = await control(
			'POST',
			`/_sandbox/workspaces/${workspaceId}/webhook-endpoints`,
			{ url: `${baseUrl}/_sandbox/inbox/${workspaceId}` },
		);
		await control('POST', `/_sandbox/webhook-endpoints/${endpoint.id}/test`);
		await completedReport();
		const inbox = await waitFor('inbox deliveries', async () => {
			const box = await control('GET', `/_sandbox/workspaces/${workspaceId}/inbox`);
			const types = box.items.map((i: { body: string }) => JSON.parse(i.body).type);
			return types.includes('webhook.test') &&
				types.includes('report.result_ready') &&
				types.includes('report.completed')
				? box.items
				: undefined;
		});
		// During secret rotation every delivery carries two v1 signatures, still in the contract's header format.
		await control('POST', `/_sandbox/webhook-endpoints/${endpoint.id}/rotate-secret`);
		const rotatedTest = await control('POST', `/_sandbox/webhook-endpoints/${endpoint.id}/test`);
		const rotated = await waitFor('delivery signed with two secrets', async () => {
			const box = await control('GET', `/_sandbox/workspaces/${workspaceId}/inbox`);
			return box.items.find((i: { body: string }) => JSON.parse(i.body).id === rotatedTest.eventId);
		});
		expect(rotated.headers['webhook-signature'].split(' ')).toHaveLength(2);
		expect(validateWebhookDelivery(rotated.headers, rotated.body)).toEqual([]);
		const problems: string[] = [];
		for (const item of inbox as Array<{
			headers: Record<string, string>;
			body: string;
			verified: boolean;
		}>) {
			expect(item.verified).toBe(true);
			// x-assumption of the contract: the Standard Webhooks message id is the event id.
			expect(item.headers['webhook-id']).toBe(JSON.parse(item.body).id);
			problems.push(...validateWebhookDelivery(item.headers, item.body));
		}
		expect(formatProblems(problems)).toBe('no problems');
	});
});

// ------------------------------------------------------------------------------------------ limits, both sides
/**
 * Each limit of the spec, sent to the sandbox and checked against the contract: the sandbox answers 400
 * VALIDATION_FAILED naming the field, the contract rejects the same request, and nothing is created.
 */
describe('limits: the sandbox and the contract refuse the same requests', () => {
	const pdf = () => ({
		fileName: 'cv.pdf',
		fileSize: 1000,
		mimeType: PDF_MIME,
		jobDescription: { kind: 'existing', id: jobId },
	});
	const fp = 'c'.repeat(64);
	const items = (n: number) =>
		Array.from({ length: n }, (_, i) => ({
			itemKey: `k${i}`,
			input: { reportId: completedIdOrUnknown(), quoteFingerprint: fp },
		}));
	type Case = { method: string; path: string; body?: () => unknown; idem?: string; field: string };
	const cases: Array<[string, Case]> = [
		[
			'fileName longer than 200',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileName: `${'a'.repeat(197)}.pdf` }),
				field: 'fileName',
			},
		],
		[
			'fileName with a backslash',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileName: 'a\\b.pdf' }),
				field: 'fileName',
			},
		],
		[
			'fileName with a control character',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileName: 'a\u0001.pdf' }),
				field: 'fileName',
			},
		],
		[
			'fileName not .pdf/.docx',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileName: 'cv.txt' }),
				field: 'fileName',
			},
		],
		[
			'fileSize 0',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileSize: 0 }),
				field: 'fileSize',
			},
		],
		[
			'fileSize 10485761',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileSize: 10485761 }),
				field: 'fileSize',
			},
		],
		[
			'fileSize as a string',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), fileSize: '1000' }),
				field: 'fileSize',
			},
		],
		[
			'mimeType not PDF/DOCX',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), mimeType: 'text/plain' }),
				field: 'mimeType',
			},
		],
		[
			'extension disagreeing with mimeType',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), mimeType: DOCX_MIME }),
				field: 'mimeType',
			},
		],
		[
			'jobDescription missing',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), jobDescription: undefined }),
				field: 'jobDescription',
			},
		],
		[
			'jobDescription of unknown kind',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), jobDescription: { kind: 'url' } }),
				field: 'jobDescription.kind',
			},
		],
		[
			'expectedRevision not 64 hex',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({
					...pdf(),
					jobDescription: { kind: 'existing', id: jobId, expectedRevision: 'abc' },
				}),
				field: 'jobDescription.expectedRevision',
			},
		],
		[
			'externalReference source not a slug',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), externalReference: { source: 'Bad_Slug', id: 'A1' } }),
				field: 'externalReference.source',
			},
		],
		[
			'externalReference id longer than 128',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: () => ({ ...pdf(), externalReference: { source: 'ats', id: 'x'.repeat(129) } }),
				field: 'externalReference.id',
			},
		],
		[
			'Idempotency-Key longer than 128',
			{
				method: 'POST',
				path: '/api/v1/uploads',
				body: pdf,
				idem: 'k'.repeat(129),
				field: 'Idempotency-Key',
			},
		],
		[
			'quoteFingerprint in upper case',
			{
				method: 'POST',
				path: '/api/v1/analyses',
				body: () => ({ reportId: completedIdOrUnknown(), quoteFingerprint: 'C'.repeat(64) }),
				field: 'quoteFingerprint',
			},
		],
		[
			'reportId longer than 100',
			{
				method: 'POST',
				path: '/api/v1/analysis-quotes',
				body: () => ({ reportId: 'r'.repeat(101) }),
				field: 'reportId',
			},
		],
		[
			'candidateEmail with consecutive dots',
			{
				method: 'POST',
				path: '/api/v1/interview-quotes',
				body: () => ({ reportId: completedIdOrUnknown(), candidateEmail: 'a..b@example.com' }),
				field: 'candidateEmail',
			},
		],
		[
			'candidateEmail without @',
			{
				method: 'POST',
				path: '/api/v1/interview-quotes',
				body: () => ({ reportId: completedIdOrUnknown(), candidateEmail: 'example.com' }),
				field: 'candidateEmail',
			},
		],
		[
			'sendEmail not a boolean',
			{
				method: 'POST',
				path: '/api/v1/interview-quotes',
				body: () => ({
					reportId: completedIdOrUnknown(),
					candidateEmail: 'a@example.com',
					sendEmail: 'yes',
				}),
				field: 'sendEmail',
			},
		],
		[
			'21 batch items',
			{
				method: 'POST',
				path: '/api/v1/analysis-batches',
				body: () => ({ items: items(21) }),
				field: 'items',
			},
		],
		[
			'0 batch items',
			{
				method: 'POST',
				path: '/api/v1/analysis-batches',
				body: () => ({ items: [] }),
				field: 'items',
			},
		],
		[
			'itemKey longer than 100',
			{
				method: 'POST',
				path: '/api/v1/analysis-batches',
				body: () => ({ items: [{ ...items(1)[0], itemKey: 'k'.repeat(101) }] }),
				field: 'items[0].itemKey',
			},
		],
		[
			'batch item without input',
			{
				method: 'POST',
				path: '/api/v1/analysis-batch-quotes',
				body: () => ({ items: [{ itemKey: 'a' }] }),
				field: 'items[0].input',
			},
		],
		['limit 0', { method: 'GET', path: '/api/v1/interviews?limit=0', field: 'limit' }],
		['limit 101', { method: 'GET', path: '/api/v1/events?limit=101', field: 'limit' }],
		[
			'cursor longer than 2048',
			{
				method: 'GET',
				path: `/api/v1/job-descriptions?cursor=${'c'.repeat(2049)}`,
				field: 'cursor',
			},
		],
		[
			'externalReferenceSource longer than 64',
			{
				method: 'GET',
				path: `/api/v1/reports?externalReferenceSource=${'s'.repeat(65)}&externalReferenceId=a`,
				field: 'externalReferenceSource',
			},
		],
		[
			'lifecycle outside its set',
			{ method: 'GET', path: '/api/v1/interviews?lifecycle=paused', field: 'lifecycle' },
		],
		[
			'event type outside the listed types',
			{ method: 'GET', path: '/api/v1/events?type=report.archived', field: 'type' },
		],
		[
			'createdAfter not a date-time',
			{ method: 'GET', path: '/api/v1/reports?createdAfter=yesterday', field: 'createdAfter' },
		],
		[
			'path id longer than 100',
			{ method: 'GET', path: `/api/v1/interviews/${'i'.repeat(101)}`, field: 'id' },
		],
	];

	test.each(cases)('%s', async (_name, c) => {
		const before = await control('GET', `/_sandbox/workspaces/${workspaceId}/counters`);
		const body = c.body?.();
		const r = await call(c.method, c.path, {
			body,
			idem:
				c.method === 'POST' && !c.path.includes('quote') ? (c.idem ?? idem('limit')) : undefined,
		});
		expectError(r, 400, 'VALIDATION_FAILED');
		expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(c.field);
		const after = await control('GET', `/_sandbox/workspaces/${workspaceId}/counters`);
		for (const k of [
			'reportsCreated',
			'preparationsCreated',
			'attemptsCreated',
			'interviewsCreated',
			'batchesCreated',
		])
			expect([k, after[k]]).toEqual([k, before[k]]);
		// The contract refuses the same request.
		const url = new URL(c.path, baseUrl);
		const route = resolveRoute(url.pathname)!;
		const contract = [
			...(body === undefined ? [] : validateRequestBody(c.method, route, body)),
			...[...url.searchParams.entries()].flatMap(([n, v]) =>
				validateParameter(c.method, route, n, v),
			),
			...(c.idem ? validateParameter(c.method, route, 'Idempotency-Key', c.idem) : []),
			...(c.field === 'id'
				? validateParameter(c.method, route, 'id', url.pathname.split('/')[4])
				: []),
		];
		expect(contract.length).toBeGreaterThan(0);
	});

	test('boundary values pass both: 200-character file name, 10485760 bytes, 20 items, limit 100', async () => {
		const body = {
			fileName: `${'b'.repeat(196)}.pdf`,
			fileSize: 10485760,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'existing', id: jobId },
		};
		expect(validateRequestBody('POST', '/api/v1/uploads', body)).toEqual([]);
		expect((await call('POST', '/api/v1/uploads', { body, idem: idem('boundary') })).status).toBe(
			201,
		);
		const many = {
			items: Array.from({ length: 20 }, (_, i) => ({
				itemKey: `q${i}`,
				input: { reportId: completedIdOrUnknown() },
			})),
		};
		expect(validateRequestBody('POST', '/api/v1/analysis-batch-quotes', many)).toEqual([]);
		expect((await call('POST', '/api/v1/analysis-batch-quotes', { body: many })).status).toBe(200);
		expect((await call('GET', '/api/v1/reports?limit=100')).status).toBe(200);
	});
});

// ------------------------------------------------------------------------------------------ time travel (last)
describe('expiry on the sandbox clock', () => {
	test('expired storage URL, expired preparation, expired feed cursor', async () => {
		const bytes = makePdf({ candidate: 'Slow Uploader' });
		const prep = await call('POST', '/api/v1/uploads', {
			body: {
				fileName: 'slow.pdf',
				fileSize: bytes.length,
				mimeType: PDF_MIME,
				jobDescription: { kind: 'existing', id: jobId },
			},
			idem: idem('slow'),
		});
		const oldCursor = (await call('GET', '/api/v1/events?limit=1')).body.data.nextCursor;
		const shortKey = await control('POST', `/_sandbox/workspaces/${workspaceId}/keys`, {
			expiresInDays: 1,
		});
		await control('POST', '/_sandbox/clock/advance', { ms: 601_000 });
		expectStorage(await putFile(prep.body.data.upload.url, bytes, PDF_MIME), 403, 'AccessDenied');
		const refreshed = await call('POST', `/api/v1/uploads/${prep.body.data.reportId}/url`);
		expect(refreshed.status).toBe(200);
		expect((await putFile(refreshed.body.data.upload.url, bytes, PDF_MIME)).status).toBe(200);
		await control('POST', '/_sandbox/clock/advance', { ms: 25 * 3600_000 });
		expectError(await call('POST', `/api/v1/uploads/${prep.body.data.reportId}/url`), 404);
		expectError(await call('GET', '/api/v1/reports', { key: shortKey.apiKey }), 401);
		await control('POST', '/_sandbox/clock/advance', { ms: 31 * 24 * 3600_000 });
		// Sandbox data expires after seven days.
		expectError(await call('GET', `/api/v1/reports/${completedIdOrUnknown()}`), 404);
		const gone = await call(
			'GET',
			`/api/v1/events?limit=1&cursor=${encodeURIComponent(oldCursor)}`,
		);
		expect(gone.status).toBe(410);
		expect(gone.body.error.code).toBe('EVENT_CURSOR_EXPIRED');
	});
});

// ------------------------------------------------------------------------------------------ the verdict
describe('every recorded response follows openapi/openapi.yaml', () => {
	test('no contract problems', () => {
		const recorded = sb.responses;
		expect(recorded.length).toBeGreaterThan(150);
		const problems = recorded.flatMap((r) => validateResponse(r));
		const byStatus: Record<number, number> = {};
		for (const r of recorded) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
		console.log(
			`validated ${recorded.length} recorded responses; by status: ${JSON.stringify(byStatus)}`,
		);
		expect(formatProblems(problems)).toBe('no problems');
	});

	test('requests: what the sandbox accepts the contract accepts; what it rejects as invalid the contract rejects', () => {
		const problems: string[] = [];
		let refusedChecked = 0;
		let acceptedChecked = 0;
		const cross = new Set([
			'both_or_neither',
			'after_createdAfter',
			'unique',
			'max_bytes_262144',
			'unknown_field',
			'no_body',
			'json',
		]);
		for (const r of sent) {
			const url = new URL(r.path, 'http://x');
			const route = resolveRoute(url.pathname);
			if (!route) continue; // 405 probes and unknown routes are checked on the response side
			const params = [...url.searchParams.entries()];
			const idemProblems =
				r.idem === undefined ? [] : validateParameter(r.method, route, 'Idempotency-Key', r.idem);
			if (r.status >= 200 && r.status < 300) {
				acceptedChecked += 1;
				problems.push(...validateRequestBody(r.method, route, r.body));
				for (const [name, value] of params)
					problems.push(...validateParameter(r.method, route, name, value));
				problems.push(...idemProblems);
			} else if (r.reason === 'VALIDATION_FAILED' && r.details?.every((d) => !cross.has(d.rule))) {
				const found = [
					...validateRequestBody(r.method, route, r.body),
					...params.flatMap(([name, value]) => validateParameter(r.method, route, name, value)),
					...idemProblems,
					...(r.idem === undefined && r.details.some((d) => d.field === 'Idempotency-Key')
						? ['Idempotency-Key missing']
						: []),
					...(r.details.some((d) => d.field === 'id')
						? validateParameter(r.method, route, 'id', url.pathname.split('/')[4] ?? '')
						: []),
				];
				refusedChecked += 1;
				if (found.length === 0)
					problems.push(
						`${r.method} ${r.path}: the sandbox refused ${JSON.stringify(r.details)} but the contract accepts the request`,
					);
			}
		}
		console.log(
			`request check: ${acceptedChecked} accepted and ${refusedChecked} refused requests compared with the contract`,
		);
		expect(acceptedChecked).toBeGreaterThan(100);
		expect(refusedChecked).toBeGreaterThanOrEqual(10);
		expect(formatProblems(problems)).toBe('no problems');
	});

	test('the check has teeth: altered copies of real responses are reported', () => {
		const pick = (method: string, template: string, status: number) => {
			const found = sb.responses.find(
				(r) =>
					r.method === method && resolveRoute(r.route ?? r.url) === template && r.status === status,
			);
			if (!found) throw new Error(`no recorded ${method} ${template} ${status}`);
			return structuredClone(found) as {
				method: string;
				route: string;
				url: string;
				status: number;
				headers: Record<string, string>;
				body: Json;
			};
		};
		const summary = pick('GET', '/api/v1/reports/{id}', 200);
		delete summary.body.data.attemptId;
		summary.body.data.status = 'archived';
		expect(validateResponse(summary).join('\n')).toMatch(
			/attemptId[\s\S]*status|status[\s\S]*attemptId/,
		);
		const accepted = pick('POST', '/api/v1/analyses', 202);
		accepted.status = 200;
		expect(validateResponse(accepted)).toEqual([expect.stringContaining('not documented')]);
		const error = pick('GET', '/api/v1/reports/{id}', 404);
		delete error.headers['x-request-id'];
		error.body.error.requestId = 'not-a-uuid';
		expect(validateResponse(error)).toHaveLength(2);
		const feed = pick('GET', '/api/v1/events', 200);
		feed.body.data.items.push({
			id: feed.body.data.items[0]?.id,
			type: 'report.completed',
			schemaVersion: 1,
			occurredAt: 'yesterday',
			data: {},
		});
		expect(validateResponse(feed).length).toBeGreaterThan(0);
	});

	test('every operation of the contract was exercised, and every error status', () => {
		const seen = new Set(
			sb.responses.map((r) => `${r.method.toUpperCase()} ${resolveRoute(r.route ?? r.url)}`),
		);
		const missing = listOperations()
			.map((o) => `${o.method} ${o.path}`)
			.filter((k) => !seen.has(k));
		expect(missing).toEqual([]);
		const byOperation = new Map<string, Set<number>>();
		for (const r of sb.responses) {
			const k = `${r.method.toUpperCase()} ${resolveRoute(r.route ?? r.url)}`;
			if (!byOperation.has(k)) byOperation.set(k, new Set());
			byOperation.get(k)!.add(r.status);
		}
		console.log(
			[...byOperation]
				.map(([k, v]) => `${k}: ${[...v].sort().join(' ')}`)
				.sort()
				.join('\n'),
		);
		const statuses = new Set(sb.responses.map((r) => r.status));
		for (const s of [200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 410, 422, 429, 500, 503])
			expect([s, statuses.has(s)]).toEqual([s, true]);
	});
});
