/** Shared steps of the sandbox tests: a workspace per test, the upload/analysis flow, counter snapshots. */
import { randomUUID } from 'node:crypto';
import { DOCX_MIME, PDF_MIME, makePdf, type ResumeOptions } from '../fixtures/resumes';
import {
	api,
	uploadFile,
	useTestSandbox,
	waitFor,
	type ApiOptions,
	type Json,
	type ApiResponse,
	type TestSandbox,
	type UseTestSandboxOptions,
	type WorkspaceInfo,
} from '../helpers/sandbox';
import type { Counters } from '../../sandbox/src';

export { DOCX_MIME, PDF_MIME };

/** What a workspace needs of a sandbox: its address and control client (in-process, or a sandbox process). */
export type SandboxAccess = Pick<TestSandbox, 'baseUrl' | 'control'>;

export interface Ws extends WorkspaceInfo {
	sb: SandboxAccess;
	call<T = Json>(method: string, path: string, o?: ApiOptions): Promise<ApiResponse<T>>;
	counters(): Promise<Counters>;
}

export async function newWs(
	sb: SandboxAccess,
	body: Parameters<TestSandbox['control']['createWorkspace']>[0] = {},
): Promise<Ws> {
	const info = await sb.control.createWorkspace(body);
	return {
		...info,
		sb,
		call: (method, path, o = {}) =>
			api({ baseUrl: sb.baseUrl, seed: { apiKey: info.apiKey } }, method, path, o),
		counters: () => sb.control.counters(info.workspaceId),
	};
}

/**
 * The usual set-up of a sandbox test file: one sandbox (see `useTestSandbox`) and one fresh workspace on it, made in
 * the same beforeAll and handed to `onStart` (assign them to the file's own variables there).
 */
export function useSandboxWs(
	onStart: (started: { sb: TestSandbox; ws: Ws }) => unknown,
	options: UseTestSandboxOptions = {},
): void {
	useTestSandbox(async (sb) => {
		await onStart({ sb, ws: await newWs(sb) });
	}, options);
}

export const key = () => `test-${randomUUID()}`;

/** Counters that prove whether anything was created (requests and replays excluded). */
export function created(c: Counters) {
	const { requests: _r, idempotentReplays: _i, ...rest } = c;
	return rest;
}

export function uploadBody(ws: Ws, file: Buffer, extra: Record<string, unknown> = {}) {
	return {
		fileName: 'resume.pdf',
		fileSize: file.length,
		mimeType: PDF_MIME,
		jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
		...extra,
	};
}

export async function prepare(ws: Ws, file: Buffer, extra: Record<string, unknown> = {}) {
	const res = await ws.call('POST', '/api/v1/uploads', {
		idempotencyKey: key(),
		body: uploadBody(ws, file, extra),
	});
	if (res.status !== 201) throw new Error(`prepare -> ${res.status} ${res.text}`);
	return res.body.data as {
		reportId: string;
		upload: { url: string; mimeType: string; sizeBytes: number };
	};
}

/** Prepare + PUT; returns the report id. */
export async function uploaded(
	ws: Ws,
	o: ResumeOptions = {},
	extra: Record<string, unknown> = {},
): Promise<string> {
	const file = makePdf({ candidate: `Cand ${randomUUID().slice(0, 8)}`, ...o });
	const prep = await prepare(ws, file, extra);
	const put = await uploadFile(ws.sb, prep.upload.url, file, PDF_MIME);
	if (put.status !== 200) throw new Error(`PUT -> ${put.status} ${put.text}`);
	return prep.reportId;
}

export async function quote(ws: Ws, reportId: string): Promise<string> {
	const q = await ws.call('POST', '/api/v1/analysis-quotes', { body: { reportId } });
	if (q.status !== 200) throw new Error(`quote -> ${q.status} ${q.text}`);
	return q.body.data.fingerprint as string;
}

export async function start(ws: Ws, reportId: string) {
	const fp = await quote(ws, reportId);
	const s = await ws.call('POST', '/api/v1/analyses', {
		idempotencyKey: key(),
		body: { reportId, quoteFingerprint: fp },
	});
	if (s.status !== 202) throw new Error(`start -> ${s.status} ${s.text}`);
	return s.body.data as { reportId: string; attemptId: string; statusUrl: string };
}

export async function waitStatus(ws: Ws, reportId: string, statuses: string[], timeoutMs = 5000) {
	return waitFor(async () => {
		const r = await ws.call('GET', `/api/v1/reports/${reportId}/status`);
		return statuses.includes(r.body?.data?.status) ? r.body.data : undefined;
	}, timeoutMs);
}

/** A report whose analysis completed (usable for interview quotes). */
export async function completedReport(ws: Ws, o: ResumeOptions = {}): Promise<string> {
	const reportId = await uploaded(ws, o);
	await start(ws, reportId);
	await waitStatus(ws, reportId, ['completed']);
	return reportId;
}

export async function interviewQuote(
	ws: Ws,
	reportId: string,
	candidateEmail = 'ada@example.com',
	sendEmail = true,
): Promise<string> {
	const q = await ws.call('POST', '/api/v1/interview-quotes', {
		body: { reportId, candidateEmail, sendEmail },
	});
	if (q.status !== 200) throw new Error(`interview quote -> ${q.status} ${q.text}`);
	return q.body.data.fingerprint as string;
}

/**
 * Quote + invite. With `settle` (default) it waits until the automatic steps are done (preparation ready,
 * email sent), so later counter snapshots are not disturbed by them; pass false when a hold is set.
 */
export async function invited(
	ws: Ws,
	reportId: string,
	candidateEmail = 'ada@example.com',
	sendEmail = true,
	settle = true,
) {
	const fp = await interviewQuote(ws, reportId, candidateEmail, sendEmail);
	const r = await ws.call('POST', '/api/v1/interviews', {
		idempotencyKey: key(),
		body: { reportId, candidateEmail, sendEmail, quoteFingerprint: fp },
	});
	if (r.status !== 202) throw new Error(`invite -> ${r.status} ${r.text}`);
	if (settle) {
		await waitFor(async () => {
			const i = await interviewState(ws, r.body.data.interviewId);
			return i.preparation !== 'queued' && i.emailDelivery !== 'queued';
		});
	}
	return r.body.data as {
		interviewId: string;
		reportId: string;
		invitationToken: string | null;
		statusUrl: string;
		emailDelivery: string;
	};
}

export async function interviewState(ws: Ws, id: string) {
	return (await ws.call('GET', `/api/v1/interviews/${id}`)).body.data;
}

/** Asserts an API error: status, generic code, reason and a UUID requestId. */
export function expectError(res: ApiResponse, status: number, reason?: string): void {
	const codes: Record<number, string> = {
		400: 'BAD_REQUEST',
		401: 'UNAUTHORIZED',
		403: 'FORBIDDEN',
		404: 'NOT_FOUND',
		405: 'METHOD_NOT_ALLOWED',
		409: 'CONFLICT',
		410: 'EVENT_CURSOR_EXPIRED',
		422: 'UNPROCESSABLE_CONTENT',
		429: 'TOO_MANY_REQUESTS',
		500: 'INTERNAL_SERVER_ERROR',
		503: 'SERVICE_UNAVAILABLE',
	};
	expect({
		status: res.status,
		code: res.body?.error?.code,
		reason: res.body?.error?.reason,
	}).toEqual({
		status,
		code: codes[status],
		reason,
	});
	expect(res.body.error.requestId).toMatch(
		/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
	);
	expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId);
	expect(res.headers.get('cache-control')).toBe('no-store');
}

/** Asserts a 400 VALIDATION_FAILED naming this field and rule. */
export function expectInvalid(res: ApiResponse, field: string, rule?: string): void {
	expectError(res, 400, 'VALIDATION_FAILED');
	const details = res.body.error.details as { field: string; rule: string }[];
	expect(details.map((d) => d.field)).toContain(field);
	if (rule) expect(details).toContainEqual({ field, rule });
}
