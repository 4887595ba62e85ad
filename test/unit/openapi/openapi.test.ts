/**
 * The OpenAPI document itself: valid OpenAPI 3.1, complete against the spec's endpoint tables, every
 * "not shown" choice marked, every limit expressed as a schema constraint, tolerant where the spec is open.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	OPENAPI_FILE,
	listOperations,
	loadDocument,
	validateDocument,
	validateParameter,
	validateRequestBody,
	validateResponse,
	validateSchema,
	validateWebhookDelivery,
} from '../../helpers/contract';

const doc = loadDocument();

// Written by hand from the spec's "Endpoints" (method, path, scope, stated success status; 200 where
// the spec does not show one: our documented assumption).
const SPEC_ENDPOINTS: Array<[string, string, string, number]> = [
	['POST', '/api/v1/uploads', 'analyses:write', 201],
	['POST', '/api/v1/uploads/{id}/url', 'analyses:write', 200],
	['DELETE', '/api/v1/uploads/{id}', 'analyses:write', 204],
	['POST', '/api/v1/upload-batches', 'analyses:write', 202],
	['GET', '/api/v1/upload-batches/{id}', 'analyses:write', 200],
	['POST', '/api/v1/analysis-quotes', 'analyses:write', 200],
	['POST', '/api/v1/analyses', 'analyses:write', 202],
	['POST', '/api/v1/analysis-batch-quotes', 'analyses:write', 200],
	['POST', '/api/v1/analysis-batches', 'analyses:write', 202],
	['GET', '/api/v1/analysis-batches/{id}', 'analyses:write', 200],
	['GET', '/api/v1/reports', 'reports:read', 200],
	['GET', '/api/v1/reports/{id}', 'reports:read', 200],
	['GET', '/api/v1/reports/{id}/status', 'reports:read', 200],
	['GET', '/api/v1/reports/{id}/result', 'reports:read', 200],
	['GET', '/api/v1/job-descriptions', 'job-descriptions:read', 200],
	['GET', '/api/v1/job-descriptions/{id}', 'job-descriptions:read', 200],
	['POST', '/api/v1/interview-quotes', 'interviews:write', 200],
	['POST', '/api/v1/interview-batch-quotes', 'interviews:write', 200],
	['POST', '/api/v1/interviews', 'interviews:write', 202],
	['POST', '/api/v1/interviews/{id}/resend', 'interviews:write', 202],
	['POST', '/api/v1/interviews/{id}/reinterview', 'interviews:write', 202],
	['POST', '/api/v1/interview-batches', 'interviews:write', 202],
	['GET', '/api/v1/interview-batches/{id}', 'interviews:write', 200],
	['GET', '/api/v1/interviews', 'interviews:read', 200],
	['GET', '/api/v1/interviews/{id}', 'interviews:read', 200],
	['GET', '/api/v1/interviews/{id}/status', 'interviews:read', 200],
	['GET', '/api/v1/interviews/{id}/result', 'interviews:read', 200],
	['GET', '/api/v1/events', 'events:read', 200],
];

// Writes the spec says take an Idempotency-Key header.
const IDEMPOTENT_WRITES = [
	'POST /api/v1/uploads',
	'POST /api/v1/upload-batches',
	'POST /api/v1/analyses',
	'POST /api/v1/analysis-batches',
	'POST /api/v1/interviews',
	'POST /api/v1/interviews/{id}/resend',
	'POST /api/v1/interviews/{id}/reinterview',
	'POST /api/v1/interview-batches',
];

const uuid = '3f1e0c1a-4b0a-4c57-9a1e-1c2d3e4f5a6b';
const okHeaders = {
	'x-request-id': uuid,
	'cache-control': 'no-store',
	'content-type': 'application/json; charset=utf-8',
};
const fp = 'a'.repeat(64);
const pdfInput = {
	fileName: 'ada.pdf',
	fileSize: 1024,
	mimeType: 'application/pdf',
	jobDescription: { kind: 'text', text: 'Backend engineer' },
};
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A node of the parsed document, typed as JSON.parse types its result. */
type Json = ReturnType<typeof JSON.parse>;

function get(pointer: string): Json {
	let node: Json = doc;
	for (const raw of pointer.split('/').slice(1))
		node = node?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
	return node;
}
const errorBody = (code: string, extra: Record<string, unknown> = {}) => ({
	error: { code, message: 'm', requestId: uuid, ...extra },
});
const batchItems = (n: number, input: object) =>
	Array.from({ length: n }, (_, i) => ({ itemKey: `k${i}`, input }));

describe('the document', () => {
	test('is valid OpenAPI 3.1 per @seriousme/openapi-schema-validator', () => {
		const verdict = validateDocument();
		expect(verdict.errors).toBeUndefined();
		expect(verdict.valid).toBe(true);
		expect(doc.openapi).toBe('3.1.0');
		expect(doc.info.version).toBe('1.4.0');
	});

	test('the validator has teeth: broken copies of the document are refused', () => {
		const source = readFileSync(OPENAPI_FILE, 'utf8');
		const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
		try {
			const broken: Array<[string, string]> = [
				[
					'dangling $ref',
					source.replace(
						"'#/components/schemas/UploadInput'",
						"'#/components/schemas/NoSuchSchema'",
					),
				],
				[
					'unknown top-level field',
					source.replace('openapi: 3.1.0\n', 'openapi: 3.1.0\nbogusTopLevel: 1\n'),
				],
				[
					'operationId not a string',
					source.replace('operationId: prepareUpload', 'operationId: 12'),
				],
			];
			for (const [name, text] of broken) {
				expect(text).not.toBe(source);
				const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
				writeFileSync(file, text);
				expect([name, validateDocument(file).valid]).toEqual([name, false]);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('declares bearer authentication for every API operation', () => {
		expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
			type: 'http',
			scheme: 'bearer',
		});
		expect(doc.security).toEqual([{ bearerAuth: [] }]);
	});
});

describe('endpoints of the spec tables', () => {
	const documented = listOperations().filter((o) => o.path.startsWith('/api/v1/'));

	test.each(SPEC_ENDPOINTS)('%s %s needs %s and answers %i', (method, path, scope, success) => {
		const op = documented.find((o) => o.method === method && o.path === path);
		expect(op).toBeDefined();
		expect(op!.requiredScopes).toEqual([scope]);
		expect(op!.operation.security).toEqual([{ bearerAuth: [scope] }]);
		const successCodes = Object.keys(op!.operation.responses).filter((s) => s.startsWith('2'));
		expect(successCodes).toEqual([String(success)]);
	});

	test('no operation exists that the spec does not list', () => {
		const listed = new Set(SPEC_ENDPOINTS.map(([m, p]) => `${m} ${p}`));
		expect(documented.map((o) => `${o.method} ${o.path}`).filter((k) => !listed.has(k))).toEqual(
			[],
		);
		expect(documented).toHaveLength(SPEC_ENDPOINTS.length);
	});

	test('operationIds are unique', () => {
		const ids = listOperations().map((o) => o.operationId);
		expect(new Set(ids).size).toBe(ids.length);
	});

	test.each(SPEC_ENDPOINTS)(
		'%s %s documents the generic errors with their headers',
		(method, path) => {
			const responses = get(
				`/paths/${path.replace(/\//g, '~1')}/${method.toLowerCase()}/responses`,
			);
			for (const code of ['400', '401', '403', '429', '500', '503'])
				expect(responses[code]).toBeDefined();
			const needs404 = path.includes('{id}');
			const needs409 = IDEMPOTENT_WRITES.includes(`${method} ${path}`);
			expect({
				404: needs404 ? responses['404'] !== undefined : 'not needed',
				409: needs409 ? responses['409'] !== undefined : 'not needed',
			}).toEqual({ 404: needs404 ? true : 'not needed', 409: needs409 ? true : 'not needed' });
			expect(responses['401'].$ref).toBe('#/components/responses/Unauthorized');
			expect(responses['429'].$ref).toBe('#/components/responses/TooManyRequests');
			for (const [status, response] of Object.entries<Json>(responses)) {
				const resolved = response.$ref ? get(response.$ref.slice(1)) : response;
				expect([status, Object.keys(resolved.headers ?? {})]).toEqual([
					status,
					expect.arrayContaining(['X-Request-Id', 'Cache-Control']),
				]);
			}
		},
	);

	test('error responses carry their extra headers: WWW-Authenticate, Retry-After, Allow', () => {
		expect(Object.keys(get('/components/responses/Unauthorized/headers'))).toContain(
			'WWW-Authenticate',
		);
		expect(get('/components/headers/Retry-After')).toMatchObject({
			required: true,
			schema: { type: 'integer', minimum: 1 },
		});
		expect(Object.keys(get('/components/responses/MethodNotAllowed/headers'))).toContain('Allow');
		expect(Object.keys(get('/paths/~1api~1v1~1events/get/responses'))).toContain('410');
	});

	test.each(IDEMPOTENT_WRITES)('%s requires the Idempotency-Key header', (key) => {
		const [method, path] = key.split(' ');
		const params = get(
			`/paths/${path.replace(/\//g, '~1')}/${method.toLowerCase()}/parameters`,
		) as Array<{ $ref?: string }>;
		expect(params.map((p) => p.$ref)).toContain('#/components/parameters/IdempotencyKey');
		expect(get('/components/parameters/IdempotencyKey')).toMatchObject({
			in: 'header',
			required: true,
			schema: { minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
		});
	});

	test('the sandbox storage PUT is described separately, unauthenticated, marked as an assumption', () => {
		const storage = get('/paths/~1_storage~1uploads~1{reportId}');
		expect(storage.servers).toHaveLength(1);
		expect(storage.put.tags).toEqual(['storage']);
		expect(storage.put.security).toEqual([]);
		expect(storage.put['x-assumption']).toEqual(expect.any(String));
		expect(Object.keys(storage.put.requestBody.content).sort()).toEqual(
			[DOCX, 'application/pdf'].sort(),
		);
	});

	test('webhooks: every event type of the spec, with the Standard Webhooks headers', () => {
		const types = [
			'report.completed',
			'report.requires_action',
			'report.failed',
			'report.result_ready',
			'report.deleted',
			'interview.invited',
			'interview.started',
			'interview.completed',
			'interview.expired',
			'interview.preparation_failed',
			'interview.result_failed',
			'interview.invitation_failed',
			'interview.result_ready',
			'batch.completed',
			'webhook.test',
		];
		expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...types].sort());
		for (const type of types) {
			const names = (doc.webhooks![type].post.parameters as Array<{ $ref: string }>).map(
				(p) => get(p.$ref.slice(1)).name,
			);
			expect(names).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
		}
	});
});

describe('every "not shown" choice is marked x-assumption', () => {
	// Each entry: where the spec says "not shown", and the place in the document that records our choice.
	const choices: Array<[string, string]> = [
		['field name of the saved job ID', '/components/schemas/ExistingJobDescription'],
		['analysis quote request and response', '/paths/~1api~1v1~1analysis-quotes/post'],
		['analysis quote request body', '/components/schemas/AnalysisQuoteRequest'],
		['success code of the URL refresh', '/paths/~1api~1v1~1uploads~1{id}~1url/post/responses/200'],
		['success code of GETs', '/paths/~1api~1v1~1reports/get/responses/200'],
		['success code of quotes', '/paths/~1api~1v1~1interview-quotes/post/responses/200'],
		['job description list parameters and shape', '/paths/~1api~1v1~1job-descriptions/get'],
		['code versus reason placement', '/components/responses/Conflict'],
		['error reasons and details', '/components/schemas/ErrorBody'],
		['400 reasons', '/components/responses/BadRequest'],
		['403 reasons', '/components/responses/Forbidden'],
		['404 reasons and foreign batch IDs', '/components/responses/NotFound'],
		['request-rate limits', '/components/responses/TooManyRequests'],
		['status of the 256 KiB violation', '/components/responses/PayloadTooLarge'],
		['preparation values', '/components/schemas/Interview/properties/preparation'],
		['evaluation values', '/components/schemas/Interview/properties/evaluation'],
		['emailDelivery values', '/components/schemas/Interview/properties/emailDelivery'],
		['batch status values', '/components/schemas/Batch/properties/status'],
		[
			'batch item state values',
			'/components/schemas/Batch/properties/items/items/properties/state',
		],
		['job status values', '/components/schemas/JobDescription/properties/status'],
		['report.result_ready payload', '/components/schemas/ReportResultReadyEvent'],
		['interview.* payloads', '/components/schemas/InterviewEvent'],
		['batch.completed payload and count names', '/components/schemas/BatchCompletedEvent'],
		['webhook.test payload', '/components/schemas/WebhookTestEvent'],
		['tombstone fields', '/components/schemas/EventTombstone'],
		[
			'policyWarnings element shape',
			'/components/schemas/ReportResultDetail/properties/policyWarnings',
		],
		[
			'ignoredCriteria element shape',
			'/components/schemas/ReportResultDetail/properties/ignoredCriteria',
		],
		[
			'integrity.signals element shape',
			'/components/schemas/ReportResultDetail/properties/integrity/properties/signals',
		],
		['result value sets and text bounds', '/components/schemas/ReportResultDetail'],
		['external reference constraints in upload input', '/components/schemas/ExternalReference'],
		['ID prefixes', '/components/schemas/ResourceId'],
		['storage destination', '/paths/~1_storage~1uploads~1{reportId}/put'],
		['webhook-id value', '/components/parameters/WebhookId'],
		['statusUrl of non-analysis batches', '/components/schemas/BatchAccepted/properties/statusUrl'],
		[
			'upload of a batch item before its preparation',
			'/components/schemas/Batch/properties/items/items/properties/upload',
		],
		['report state transitions', '/components/schemas/ReportState'],
		['interview axis transitions', '/components/schemas/Interview'],
		['interview result value sets', '/components/schemas/InterviewResultDetail'],
		['report code and item errorCode value sets', '/components/schemas/NullableCode'],
		['event trigger conditions', '/components/schemas/EventType'],
		['numeric thresholds of capacity and allowance', '/components/responses/UnprocessableContent'],
		['deprecation and compatibility policy', '/info'],
	];
	test.each(choices)('%s', (_what, pointer) => {
		const node = get(pointer);
		expect(node).toBeDefined();
		expect(typeof node['x-assumption']).toBe('string');
		expect(node['x-assumption'].length).toBeGreaterThan(20);
	});
});

describe('limits as schema constraints', () => {
	test('UploadInput: a valid PDF and DOCX input pass', () => {
		expect(validateSchema('UploadInput', pdfInput)).toEqual([]);
		expect(validateSchema('UploadInput', { ...pdfInput, fileName: 'CV.PDF' })).toEqual([]);
		expect(
			validateSchema('UploadInput', {
				...pdfInput,
				fileName: 'cv.docx',
				mimeType: DOCX,
				jobDescription: { kind: 'existing', id: 'jd_1', expectedRevision: 'b'.repeat(64) },
				externalReference: { source: 'greenhouse', id: 'APP-1' },
			}),
		).toEqual([]);
	});

	test.each([
		['fileSize 10485761 (one byte over 10 MiB)', { fileSize: 10485761 }, 'fileSize'],
		['fileSize 0', { fileSize: 0 }, 'fileSize'],
		['fileSize not an integer', { fileSize: 1.5 }, 'fileSize'],
		['fileName with /', { fileName: 'dir/cv.pdf' }, 'fileName'],
		['fileName with \\', { fileName: 'dir\\cv.pdf' }, 'fileName'],
		['fileName with a control character', { fileName: 'cv\u0007.pdf' }, 'fileName'],
		['fileName with a newline', { fileName: 'cv\n.pdf' }, 'fileName'],
		['fileName without .pdf/.docx', { fileName: 'cv.exe' }, 'fileName'],
		['fileName of 201 characters', { fileName: `${'a'.repeat(197)}.pdf` }, 'fileName'],
		['fileName empty', { fileName: '' }, 'fileName'],
		['extension disagreeing with mimeType', { fileName: 'cv.docx' }, 'fileName'],
		['unknown mimeType', { mimeType: 'text/plain' }, 'mimeType'],
		[
			'jobDescription of unknown kind',
			{ jobDescription: { kind: 'url', url: 'x' } },
			'jobDescription',
		],
		['saved job without id', { jobDescription: { kind: 'existing' } }, 'jobDescription'],
		[
			'expectedRevision not 64 hex',
			{ jobDescription: { kind: 'existing', id: 'jd_1', expectedRevision: 'abc' } },
			'expectedRevision',
		],
		[
			'externalReference source not a slug',
			{ externalReference: { source: 'Green_House', id: 'x' } },
			'source',
		],
		[
			'externalReference id of 129 characters',
			{ externalReference: { source: 'ats', id: 'x'.repeat(129) } },
			'id',
		],
	])('UploadInput rejects %s', (_name, patch, field) => {
		const problems = validateSchema('UploadInput', { ...pdfInput, ...patch });
		expect(problems.join('\n')).toContain(field);
	});

	test('UploadInput requires fileName, fileSize, mimeType and jobDescription', () => {
		for (const field of ['fileName', 'fileSize', 'mimeType', 'jobDescription']) {
			const input: Record<string, unknown> = { ...pdfInput };
			delete input[field];
			expect(validateSchema('UploadInput', input).join('\n')).toContain(`'${field}'`);
		}
		// In an upload batch the job may come from the batch level instead.
		const { jobDescription: _omit, ...withoutJob } = pdfInput;
		expect(validateSchema('UploadBatchItemInput', withoutJob)).toEqual([]);
	});

	test('batches take 1 to 20 items', () => {
		const analysisInput = { reportId: 'rpt_1', quoteFingerprint: fp };
		expect(
			validateRequestBody('POST', '/api/v1/analysis-batches', {
				items: batchItems(20, analysisInput),
			}),
		).toEqual([]);
		expect(
			validateRequestBody('POST', '/api/v1/analysis-batches', {
				items: batchItems(21, analysisInput),
			}).join(),
		).toMatch(/must NOT have more than 20 items/);
		expect(validateRequestBody('POST', '/api/v1/analysis-batches', { items: [] }).join()).toMatch(
			/fewer than 1 items/,
		);
		expect(
			validateRequestBody('POST', '/api/v1/upload-batches', {
				items: batchItems(21, pdfInput),
			}).join(),
		).toMatch(/more than 20/);
		expect(
			validateRequestBody('POST', '/api/v1/analysis-batch-quotes', {
				items: batchItems(21, { reportId: 'r' }),
			}).join(),
		).toMatch(/more than 20/);
		const invite = {
			reportId: 'rpt_1',
			candidateEmail: 'ada@example.com',
			sendEmail: true,
			quoteFingerprint: fp,
		};
		expect(
			validateRequestBody('POST', '/api/v1/interview-batches', { items: batchItems(20, invite) }),
		).toEqual([]);
		expect(
			validateRequestBody('POST', '/api/v1/interview-batches', {
				items: batchItems(21, invite),
			}).join(),
		).toMatch(/more than 20/);
		expect(
			validateRequestBody('POST', '/api/v1/interview-batch-quotes', {
				items: batchItems(0, invite),
			}).join(),
		).toMatch(/fewer than 1/);
	});

	test('interview batches support only sendEmail true', () => {
		const invite = {
			reportId: 'rpt_1',
			candidateEmail: 'ada@example.com',
			sendEmail: false,
			quoteFingerprint: fp,
		};
		expect(
			validateRequestBody('POST', '/api/v1/interview-batches', {
				items: batchItems(1, invite),
			}).join(),
		).toContain('sendEmail');
	});

	test.each([
		['63 hex characters', 'a'.repeat(63)],
		['65 hex characters', 'a'.repeat(65)],
		['upper-case hex', 'A'.repeat(64)],
		['non-hex letters', 'g'.repeat(64)],
	])('a quote fingerprint of %s is rejected', (_name, fingerprint) => {
		expect(
			validateRequestBody('POST', '/api/v1/analyses', {
				reportId: 'rpt_1',
				quoteFingerprint: fingerprint,
			}).join(),
		).toContain('quoteFingerprint');
		expect(
			validateSchema('AnalysisQuote', {
				reportId: 'r',
				reportSystemVersion: 'v',
				creditUnits: 1,
				creditScale: 1,
				fingerprint,
			}).join(),
		).toContain('fingerprint');
	});

	test('candidateEmail must be an email without a leading dot or consecutive dots', () => {
		const quote = (candidateEmail: string) =>
			validateRequestBody('POST', '/api/v1/interview-quotes', {
				reportId: 'rpt_1',
				candidateEmail,
			});
		expect(quote('ada@example.com')).toEqual([]);
		expect(quote('.ada@example.com')).not.toEqual([]);
		expect(quote('ada..b@example.com')).not.toEqual([]);
		expect(quote('not-an-email')).not.toEqual([]);
		expect(
			validateRequestBody('POST', '/api/v1/interviews', {
				reportId: 'rpt_1',
				candidateEmail: 'ada@example.com',
			}).join(),
		).toContain('quoteFingerprint');
	});

	test('start analysis needs both reportId and quoteFingerprint', () => {
		expect(
			validateRequestBody('POST', '/api/v1/analyses', { reportId: 'rpt_1', quoteFingerprint: fp }),
		).toEqual([]);
		expect(validateRequestBody('POST', '/api/v1/analyses', { reportId: 'rpt_1' }).join()).toContain(
			'quoteFingerprint',
		);
		expect(
			validateRequestBody('POST', '/api/v1/analyses', { quoteFingerprint: fp }).join(),
		).toContain('reportId');
	});

	test('operations without a body refuse one', () => {
		expect(validateRequestBody('POST', '/api/v1/interviews/int_1/resend', undefined)).toEqual([]);
		expect(validateRequestBody('POST', '/api/v1/interviews/int_1/resend', { x: 1 })).toEqual([
			expect.stringContaining('takes no body'),
		]);
		expect(validateRequestBody('POST', '/api/v1/uploads/rpt_1/url', { x: 1 })).toEqual([
			expect.stringContaining('takes no body'),
		]);
	});

	test.each(
		[
			['GET', '/api/v1/reports', 'limit', '0', false],
			['GET', '/api/v1/reports', 'limit', '1', true],
			['GET', '/api/v1/reports', 'limit', '100', true],
			['GET', '/api/v1/reports', 'limit', '101', false],
			['GET', '/api/v1/events', 'limit', '2.5', false],
			['GET', '/api/v1/events', 'cursor', 'c'.repeat(2048), true],
			['GET', '/api/v1/events', 'cursor', 'c'.repeat(2049), false],
			['GET', '/api/v1/events', 'cursor', '', false],
			['GET', '/api/v1/reports/{id}', 'id', 'r'.repeat(100), true],
			['GET', '/api/v1/reports/{id}', 'id', 'r'.repeat(101), false],
			['GET', '/api/v1/reports', 'externalReferenceSource', 'work-day', true],
			['GET', '/api/v1/reports', 'externalReferenceSource', 'Work Day', false],
			['GET', '/api/v1/reports', 'externalReferenceSource', 's'.repeat(65), false],
			['GET', '/api/v1/reports', 'externalReferenceId', 'i'.repeat(129), false],
			['GET', '/api/v1/reports', 'include', 'reference', true],
			['GET', '/api/v1/reports', 'createdAfter', 'yesterday', false],
			['GET', '/api/v1/reports', 'createdAfter', '2026-01-01T00:00:00+02:00', true],
			['GET', '/api/v1/events', 'type', 'interview.result_ready', true],
			['GET', '/api/v1/events', 'type', 'report.archived', false],
			['GET', '/api/v1/interviews', 'lifecycle', 'superseded', true],
			['GET', '/api/v1/interviews', 'lifecycle', 'paused', false],
			['POST', '/api/v1/uploads', 'Idempotency-Key', 'k'.repeat(128), true],
			['POST', '/api/v1/uploads', 'Idempotency-Key', 'k'.repeat(129), false],
			['POST', '/api/v1/uploads', 'Idempotency-Key', 'exec-1:node.A_b-2', true],
			['POST', '/api/v1/uploads', 'Idempotency-Key', 'has space', false],
			['POST', '/api/v1/uploads', 'Idempotency-Key', '', false],
		].map(
			([m, r, n, v, ok]) =>
				[
					m,
					r,
					n,
					(v as string).length > 24 ? `<${(v as string).length} characters>` : JSON.stringify(v),
					ok,
					v,
				] as const,
		),
	)('%s %s %s=%s valid: %s', (method, route, name, _label, valid, value) => {
		const problems = validateParameter(
			method as string,
			route as string,
			name as string,
			value as string,
		);
		expect(valid ? problems : problems.length > 0).toEqual(valid ? [] : true);
	});
});

describe('tolerant reader', () => {
	const interview = {
		id: 'int_1',
		reportId: 'rpt_1',
		interviewSystemVersion: 'iv-1',
		createdAt: '2026-01-01T00:00:00.000Z',
		expiresAt: '2026-01-08T00:00:00.000Z',
		startedAt: null,
		completedAt: null,
		lifecycle: 'invited',
		preparation: 'queued',
		evaluation: 'not_started',
		emailDelivery: 'queued',
		resultRevision: null,
	};

	test('unknown values of open enumerations and unknown fields validate', () => {
		expect(
			validateSchema('Interview', {
				...interview,
				preparation: 'regenerating',
				evaluation: 'on_hold',
				emailDelivery: 'bounced',
				newField: 1,
			}),
		).toEqual([]);
		expect(
			validateSchema('Event', {
				id: uuid,
				type: 'candidate.future_type',
				schemaVersion: 1,
				occurredAt: '2026-01-01T00:00:00.000Z',
				data: { anything: true },
			}),
		).toEqual([]);
	});

	test('nullable timestamps: null or a UTC millisecond timestamp, nothing else', () => {
		expect(
			validateSchema('Interview', { ...interview, startedAt: '2026-01-02T03:04:05.006Z' }),
		).toEqual([]);
		expect(validateSchema('Interview', { ...interview, startedAt: '2026-01-02' }).join()).toContain(
			'startedAt',
		);
		expect(validateSchema('Interview', { ...interview, completedAt: 0 }).join()).toContain(
			'completedAt',
		);
	});

	test('closed sets stay closed: report status and interview lifecycle', () => {
		expect(validateSchema('Interview', { ...interview, lifecycle: 'paused' }).join()).toContain(
			'lifecycle',
		);
		expect(
			validateSchema('ReportStatus', {
				id: 'r',
				status: 'archived',
				attemptId: null,
				code: null,
				reportSystemVersion: 'v',
			}).join(),
		).toContain('status');
	});

	test('null stays distinct: a null score is allowed, a string score is not', () => {
		const summary = {
			id: 'rpt_1',
			createdAt: '2026-01-01T00:00:00.000Z',
			reportSystemVersion: 'rs-1',
			status: 'completed',
			attemptId: 'att_1',
			code: null,
			jobDescription: { id: null, title: null, company: null },
			candidate: { name: null, currentRole: null },
			result: { score: null, summary: null, scoreReasoning: null },
		};
		expect(validateSchema('ReportSummary', summary)).toEqual([]);
		expect(
			validateSchema('ReportSummary', {
				...summary,
				result: { ...summary.result, score: '7' },
			}).join(),
		).toContain('score');
	});

	test('events: tombstones keep only id, type and occurrence time; typed payloads are checked', () => {
		const base = { id: uuid, schemaVersion: 1, occurredAt: '2026-01-01T00:00:00.000Z' };
		expect(validateSchema('Event', { ...base, type: 'report.deleted' })).toEqual([]);
		expect(
			validateSchema('Event', { ...base, type: 'report.deleted', data: { reportId: 'r' } }),
		).not.toEqual([]);
		expect(
			validateSchema('Event', {
				...base,
				type: 'report.completed',
				data: { reportId: 'r', attemptId: 'a', status: 'completed', code: null },
			}),
		).toEqual([]);
		expect(
			validateSchema('Event', { ...base, type: 'report.completed', data: { reportId: 'r' } }),
		).not.toEqual([]);
		expect(
			validateSchema('Event', {
				...base,
				type: 'batch.completed',
				data: { batchId: 'b', kind: 'uploads', succeededCount: 2, failedCount: 0 },
			}),
		).toEqual([]);
		expect(
			validateSchema('Event', {
				...base,
				id: 'not-a-uuid',
				type: 'webhook.test',
				data: { test: true },
			}).join(),
		).toContain('uuid');
		expect(
			validateSchema('Event', {
				...base,
				occurredAt: '2026-01-01T00:00:00Z',
				type: 'webhook.test',
				data: { test: true },
			}).join(),
		).toContain('occurredAt');
	});
});

describe('the contract helper reports problems', () => {
	const notFound = {
		method: 'GET',
		route: '/api/v1/reports/{id}',
		status: 404,
		headers: okHeaders,
		body: errorBody('NOT_FOUND'),
	};

	test('a conforming response has no problems; fastify-style routes and concrete URLs resolve', () => {
		expect(validateResponse(notFound)).toEqual([]);
		expect(validateResponse({ ...notFound, route: '/api/v1/reports/:id' })).toEqual([]);
		expect(
			validateResponse({
				...notFound,
				route: undefined,
				url: '/api/v1/reports/rpt_9?include=reference',
			}),
		).toEqual([]);
		expect(validateResponse({ ...notFound, body: JSON.stringify(errorBody('NOT_FOUND')) })).toEqual(
			[],
		);
	});

	test('unknown route, method and status are problems', () => {
		expect(validateResponse({ ...notFound, route: '/api/v1/nothing' })).toEqual([
			expect.stringContaining('not in the contract'),
		]);
		expect(validateResponse({ ...notFound, method: 'PATCH' })).toEqual([
			expect.stringContaining('not defined'),
		]);
		expect(validateResponse({ ...notFound, status: 418 })).toEqual([
			expect.stringContaining('not documented'),
		]);
	});

	test('missing or malformed headers and wrong codes are problems', () => {
		expect(
			validateResponse({
				...notFound,
				headers: { ...okHeaders, 'x-request-id': undefined },
			}).join(),
		).toContain('X-Request-Id');
		expect(
			validateResponse({
				...notFound,
				headers: { ...okHeaders, 'cache-control': 'max-age=60' },
			}).join(),
		).toContain('Cache-Control');
		expect(validateResponse({ ...notFound, body: errorBody('CONFLICT') }).join()).toContain(
			'NOT_FOUND',
		);
		expect(validateResponse({ ...notFound, status: 401 }).join()).toContain('WWW-Authenticate');
		expect(
			validateResponse({
				...notFound,
				status: 429,
				body: errorBody('TOO_MANY_REQUESTS'),
				headers: { ...okHeaders, 'retry-after': '0' },
			}).join(),
		).toContain('Retry-After');
		expect(
			validateResponse({
				...notFound,
				status: 429,
				body: errorBody('TOO_MANY_REQUESTS'),
				headers: { ...okHeaders, 'retry-after': '2' },
			}),
		).toEqual([]);
		expect(
			validateResponse({
				...notFound,
				route: '/api/v1/reports/{id}/result',
				status: 422,
				body: errorBody('UNPROCESSABLE_CONTENT'),
			}).join(),
		).toContain('reason');
		const otherId = {
			error: { code: 'NOT_FOUND', message: 'm', requestId: '0f1e0c1a-4b0a-4c57-9a1e-1c2d3e4f5a6b' },
		};
		expect(validateResponse({ ...notFound, body: otherId })).toEqual([
			expect.stringContaining('differs from X-Request-Id'),
		]);
	});

	test('bodies: 204 must be empty, JSON must be JSON, content type must match', () => {
		const cancel = {
			method: 'DELETE',
			route: '/api/v1/uploads/{id}',
			status: 204,
			headers: { 'x-request-id': uuid, 'cache-control': 'no-store' },
		};
		expect(validateResponse({ ...cancel, body: '' })).toEqual([]);
		expect(validateResponse({ ...cancel, body: { data: {} } }).join()).toContain('empty body');
		expect(validateResponse({ ...notFound, body: '{not json' }).join()).toContain('not JSON');
		expect(
			validateResponse({
				...notFound,
				headers: { ...okHeaders, 'content-type': 'text/html' },
			}).join(),
		).toContain('Content-Type');
	});

	test('405 is checked against the Allow header of the path', () => {
		const refused = {
			method: 'PUT',
			route: '/api/v1/reports',
			status: 405,
			body: errorBody('METHOD_NOT_ALLOWED'),
		};
		expect(validateResponse({ ...refused, headers: { ...okHeaders, allow: 'GET, HEAD' } })).toEqual(
			[],
		);
		expect(
			validateResponse({ ...refused, headers: { ...okHeaders, allow: 'POST' } }).join(),
		).toContain('omits GET');
		expect(validateResponse({ ...refused, headers: okHeaders }).join()).toContain('Allow');
	});

	test('webhook deliveries: headers and typed body', () => {
		const body = JSON.stringify({
			id: uuid,
			type: 'webhook.test',
			schemaVersion: 1,
			occurredAt: '2026-01-01T00:00:00.000Z',
			data: { test: true },
		});
		const headers = {
			'webhook-id': uuid,
			'webhook-timestamp': '1767225600',
			'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,AAAA',
		};
		expect(validateWebhookDelivery(headers, body)).toEqual([]);
		expect(
			validateWebhookDelivery({ ...headers, 'webhook-signature': 'sha256=abc' }, body).join(),
		).toContain('webhook-signature');
		expect(validateWebhookDelivery({ ...headers, 'webhook-id': undefined }, body).join()).toContain(
			'webhook-id',
		);
		expect(
			validateWebhookDelivery(headers, body.replace('"test":true', '"test":false')).join(),
		).toContain('test');
	});
});
