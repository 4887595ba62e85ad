/**
 * Shared set-up of the trigger tests: a running sandbox, a fresh workspace per test, and the sandbox's
 * control endpoints over loopback HTTP.
 */
import { randomUUID } from 'node:crypto';

import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../../credentials/RecruitingAnalysisApi.credentials';
import { RecruitingAnalysisSigningSecretApi } from '../../../credentials/RecruitingAnalysisSigningSecretApi.credentials';
import { signWebhook } from '../../helpers/sign-webhook';
import type { SandboxHandle } from '../../../sandbox/src';
import { apiBaseUrl, http, startTestSandbox } from '../../helpers/sandbox';
import { makePdf, PDF_MIME } from '../../fixtures/resumes';

export interface Workspace {
	baseUrl: string;
	workspaceId: string;
	apiKey: string;
	webhookSecret: string;
	jobDescriptionId: string;
}

export async function control(
	ws: { baseUrl: string },
	method: string,
	path: string,
	body?: unknown,
): Promise<IDataObject> {
	const r = await http(ws.baseUrl, method, path, body);
	if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
	return r.body;
}

export async function api(
	ws: Workspace,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
) {
	return await http(ws.baseUrl, method, path, body, {
		authorization: `Bearer ${ws.apiKey}`,
		...headers,
	});
}

export async function newWorkspace(sb: SandboxHandle): Promise<Workspace> {
	const body = await control({ baseUrl: sb.baseUrl }, 'POST', '/_sandbox/workspaces', {});
	return { baseUrl: sb.baseUrl, ...(body as unknown as Omit<Workspace, 'baseUrl'>) };
}

/** A sandbox for the trigger tests; in the Prism project (RA_PRISM=1) with Prism's validating proxy in front. */
export async function withSandbox(): Promise<SandboxHandle> {
	return await startTestSandbox({
		workerDelayMs: 10,
		webhookTimeScale: 0.001,
		webhookDeadlineMs: undefined,
	});
}

/** The node's credential: the sandbox, or Prism's proxy in front of it when the tests run with RA_PRISM=1. */
export function apiCredential(ws: Workspace): ICredentialDataDecryptedObject {
	return { environment: 'sandbox', baseUrl: apiBaseUrl(ws.baseUrl), apiKey: ws.apiKey };
}

export const credentialTypes = [
	new RecruitingAnalysisApi(),
	new RecruitingAnalysisSigningSecretApi(),
];

/** Every retained event of the workspace, read straight from the API (for expected order). */
export async function allEvents(ws: Workspace, query = ''): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	let cursor: string | undefined;
	for (;;) {
		const q = new URLSearchParams(query);
		q.set('limit', '100');
		if (cursor) q.set('cursor', cursor);
		const r = await api(ws, 'GET', `/api/v1/events?${q.toString()}`);
		if (r.status !== 200)
			throw new Error(`GET /api/v1/events → ${r.status} ${JSON.stringify(r.body)}`);
		const data = r.body.data as { items: IDataObject[]; nextCursor: string; hasMore: boolean };
		items.push(...data.items);
		if (!data.hasMore) return items;
		cursor = data.nextCursor;
	}
}

export async function seedEvents(ws: Workspace, count: number, type?: string): Promise<void> {
	await control(ws, 'POST', `/_sandbox/workspaces/${ws.workspaceId}/events/seed`, {
		count,
		...(type ? { type } : {}),
	});
}

/** Waits (polling loopback state, bounded) until `check` returns a value that is not undefined. */
export async function eventually<T>(
	check: () => Promise<T | undefined> | T | undefined,
	timeoutMs = 10_000,
): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > until) throw new Error('eventually: condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** Prepare, upload, quote and start one analysis through the API; returns the report and attempt ids. */
export async function analyse(ws: Workspace): Promise<{ reportId: string; attemptId: string }> {
	const pdf = makePdf({ candidate: `Candidate ${randomUUID()}`, outcome: 'completed', score: 7 });
	const prepared = await api(
		ws,
		'POST',
		'/api/v1/uploads',
		{
			fileName: 'resume.pdf',
			fileSize: pdf.length,
			mimeType: PDF_MIME,
			jobDescription: { kind: 'existing', id: ws.jobDescriptionId },
		},
		{ 'idempotency-key': `test-${randomUUID()}` },
	);
	expect(prepared.status).toBe(201);
	const { reportId, upload } = prepared.body.data as {
		reportId: string;
		upload: { url: string; mimeType: string };
	};
	const put = await fetch(upload.url, {
		method: 'PUT',
		headers: { 'content-type': upload.mimeType },
		body: pdf,
	});
	expect(put.status).toBe(200);
	const quote = await api(ws, 'POST', '/api/v1/analysis-quotes', { reportId });
	expect(quote.status).toBe(200);
	const started = await api(
		ws,
		'POST',
		'/api/v1/analyses',
		{ reportId, quoteFingerprint: (quote.body.data as IDataObject).fingerprint },
		{ 'idempotency-key': `test-${randomUUID()}` },
	);
	expect(started.status).toBe(202);
	return { reportId, attemptId: (started.body.data as IDataObject).attemptId as string };
}

/** Standard Webhooks headers for `raw`, signed with `secret` (as the service's sender signs). */
export function signedHeaders(
	secret: string,
	raw: string,
	at = Math.floor(Date.now() / 1000),
	id = `msg_${randomUUID()}`,
): Record<string, string> {
	return {
		'content-type': 'application/json',
		'webhook-id': id,
		'webhook-timestamp': String(at),
		'webhook-signature': signWebhook({
			secret,
			webhookId: id,
			timestamp: at,
			rawBody: Buffer.from(raw),
		}),
	};
}
