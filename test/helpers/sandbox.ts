/**
 * Helpers every test uses to talk to a real sandbox over loopback HTTP:
 *   const sb = await startTestSandbox();           // port 0, fast worker, fast webhook schedule
 *   await api(sb, 'GET', '/api/v1/reports')         // bearer = sb.seed.apiKey unless `key` is given
 *   await uploadFile(sb, upload.url, pdf, PDF_MIME) // the storage PUT (no Authorization header)
 *   await sb.control.counters(sb.seed.workspaceId)  // typed /_sandbox client
 */
import type { IDataObject } from 'n8n-workflow';

import {
	startSandbox,
	type Counters,
	type SandboxHandle,
	type SandboxOptions,
	type SeedInfo,
	type WorkspaceLimits,
} from '../../sandbox/src';
import type { MailItem, Workspace } from '../../sandbox/src/types';

/** A parsed JSON value, typed as JSON.parse types it (tests read nested fields freely). */
export type Json = ReturnType<typeof JSON.parse>;

export interface ApiResponse<T = Json> {
	status: number;
	headers: Headers;
	/** Parsed JSON, or null for an empty body. */
	body: T;
	text: string;
}

export interface ApiOptions {
	body?: unknown;
	/** Bearer key; defaults to the seeded key. `null` sends no Authorization header. */
	key?: string | null;
	idempotencyKey?: string;
	headers?: Record<string, string>;
	/** Send this exact string as the body (with content-type application/json unless headers say otherwise). */
	rawBody?: string;
}

export type WorkspaceInfo = SeedInfo;

export interface DeliveryView {
	deliveryId: string;
	eventId: string;
	eventType: string;
	state: 'pending' | 'succeeded' | 'failed' | 'cancelled';
	outcome: string | null;
	attemptCount: number;
	reportId: string | null;
	interviewId: string | null;
	attempts: { at: string; status: number | null; durationMs: number; error: string | null }[];
}

export interface InboxEntry {
	receivedAt: string;
	headers: Record<string, string>;
	body: string;
	verified: boolean;
	reason: string | null;
}

/** One idempotency receipt the sandbox keeps (GET /_sandbox/workspaces/{id}/receipts); `expiresAt` null = kept for ever. */
export interface ReceiptView {
	key: string;
	operation: string;
	status: number;
	createdAt: string;
	expiresAt: string | null;
}

/** The answer of the receipt-aging controls: receipts made older, forgotten, and still kept. */
export interface ReceiptsAged {
	receiptLifetimeMs: number;
	aged: number;
	forgotten: number;
	kept: number;
}

/** One message of the workspace's mail sink (GET /_sandbox/workspaces/{id}/mail), as the sandbox stores it. */
export type MailEntry = MailItem;

/** JSON request to the sandbox (control endpoints, or the API with the headers given); any status comes back. */
export async function http(
	baseUrl: string,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<{ status: number; body: IDataObject }> {
	const response = await fetch(`${baseUrl}${path}`, {
		method,
		headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text ? (JSON.parse(text) as IDataObject) : {} };
}

async function json<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
	const res = await fetch(`${baseUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
	return (text ? JSON.parse(text) : null) as T;
}

/** Typed client of the /_sandbox control endpoints (see sandbox/README.md). */
export function controlClient(baseUrl: string) {
	const c = <T>(method: string, path: string, body?: unknown) =>
		json<T>(baseUrl, method, path, body);
	return {
		health: () => c<{ ok: boolean }>('GET', '/_sandbox/health'),
		createWorkspace: (
			body: {
				scopes?: string[];
				keyExpiresInDays?: number;
				analysisAllowance?: number;
				interviewAllowance?: number;
			} & Partial<WorkspaceLimits> = {},
		) => c<WorkspaceInfo>('POST', '/_sandbox/workspaces', body),
		createKey: (wid: string, body: { scopes?: string[]; expiresInDays?: number } = {}) =>
			c<{ apiKey: string; keyId: string }>('POST', `/_sandbox/workspaces/${wid}/keys`, body),
		revokeKey: (apiKey: string) =>
			c<{ revoked: boolean }>('POST', '/_sandbox/keys/revoke', { apiKey }),
		patchWorkspace: (
			wid: string,
			body: Partial<
				Omit<Workspace, 'id' | 'createdAt' | 'webhookSecret' | 'eventSeq' | 'purgedThroughSeq'>
			>,
		) => c<Record<string, unknown>>('PATCH', `/_sandbox/workspaces/${wid}`, body),
		reset: (wid: string) => c<{ apiKey: string }>('POST', `/_sandbox/workspaces/${wid}/reset`),
		counters: (wid: string) => c<Counters>('GET', `/_sandbox/workspaces/${wid}/counters`),
		mail: (wid: string) => c<{ items: MailEntry[] }>('GET', `/_sandbox/workspaces/${wid}/mail`),
		receipts: (wid: string) =>
			c<{ receiptLifetimeMs: number; items: ReceiptView[] }>(
				'GET',
				`/_sandbox/workspaces/${wid}/receipts`,
			),
		ageReceipts: (wid: string, seconds: number) =>
			c<ReceiptsAged>('POST', `/_sandbox/workspaces/${wid}/receipts/age`, { seconds }),
		forgetReceipts: (wid: string) =>
			c<ReceiptsAged>('POST', `/_sandbox/workspaces/${wid}/receipts/forget`),
		createJob: (wid: string, body: Record<string, string> = {}) =>
			c<Record<string, Json>>('POST', `/_sandbox/workspaces/${wid}/job-descriptions`, body),
		reviseJob: (id: string, body: { description?: string } = {}) =>
			c<Record<string, Json>>('POST', `/_sandbox/job-descriptions/${id}/revise`, body),
		deactivateJob: (id: string) =>
			c<Record<string, Json>>('POST', `/_sandbox/job-descriptions/${id}/deactivate`),
		deleteReport: (id: string) => c<{ deleted: boolean }>('POST', `/_sandbox/reports/${id}/delete`),
		interviewEvent: (id: string, type: string) =>
			c<Record<string, string>>('POST', `/_sandbox/interviews/${id}/events`, { type }),
		seedEvents: (wid: string, count: number, type?: string) =>
			c<{ appended: number }>('POST', `/_sandbox/workspaces/${wid}/events/seed`, {
				count,
				...(type ? { type } : {}),
			}),
		addWebhookEndpoint: (
			wid: string,
			body: { url: string; eventTypes?: string[]; secret?: string },
		) =>
			c<{ id: string; secret: string }>(
				'POST',
				`/_sandbox/workspaces/${wid}/webhook-endpoints`,
				body,
			),
		patchWebhookEndpoint: (
			id: string,
			body: {
				mode?: 'success' | 'retry' | 'timeout';
				url?: string;
				paused?: boolean;
				eventTypes?: string[] | null;
			},
		) => c<Record<string, unknown>>('PATCH', `/_sandbox/webhook-endpoints/${id}`, body),
		rotateSecret: (id: string) =>
			c<{ secret: string; previousSecret: string }>(
				'POST',
				`/_sandbox/webhook-endpoints/${id}/rotate-secret`,
			),
		sendTest: (id: string) =>
			c<{ deliveryId: string; eventId: string }>('POST', `/_sandbox/webhook-endpoints/${id}/test`),
		deliveries: (
			id: string,
			filter: { reportId?: string; interviewId?: string; eventId?: string } = {},
		) => {
			const q = new URLSearchParams(
				Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][],
			).toString();
			return c<{ items: DeliveryView[] }>(
				'GET',
				`/_sandbox/webhook-endpoints/${id}/deliveries${q ? `?${q}` : ''}`,
			);
		},
		replay: (deliveryId: string) =>
			c<{ deliveryId: string; eventId: string }>(
				'POST',
				`/_sandbox/deliveries/${deliveryId}/replay`,
			),
		catchUpPreview: (endpointId: string, from: string, to: string) =>
			c<{
				previewId: string;
				eventCount: number;
				limit: number;
				expiresAt: string;
				endpointRevision: number;
			}>('POST', `/_sandbox/webhook-endpoints/${endpointId}/catch-up`, { from, to }),
		catchUpSend: (previewId: string) =>
			c<{ deliveries: number }>('POST', `/_sandbox/catch-ups/${previewId}/send`),
		inbox: (wid: string) => c<{ items: InboxEntry[] }>('GET', `/_sandbox/workspaces/${wid}/inbox`),
		inboxUrl: (wid: string) => `${baseUrl}/_sandbox/inbox/${wid}`,
		clock: () => c<{ now: string }>('GET', '/_sandbox/clock'),
		advanceClock: (ms: number) => c<{ now: string }>('POST', '/_sandbox/clock/advance', { ms }),
		setFaults: (body: {
			latencyMs?: number;
			seed?: number;
			rules?: {
				method?: string;
				path?: string;
				status?: number;
				rate?: number;
				retryAfterSeconds?: number;
				mode?: 'before' | 'commit-then-drop' | 'latency';
				count?: number;
				latencyMs?: number;
				gather?: number;
			}[];
		}) => c<{ rules: number }>('PUT', '/_sandbox/faults', body),
		clearFaults: () => c<{ cleared: boolean }>('DELETE', '/_sandbox/faults'),
		faults: () =>
			c<{ rules: Array<{ path?: string; fired: number; heldNow: number; heldMax: number }> }>(
				'GET',
				'/_sandbox/faults',
			),
	};
}

export type ControlClient = ReturnType<typeof controlClient>;

export interface TestSandbox extends SandboxHandle {
	control: ControlClient;
	/** The handle itself (for code that wants the plain SandboxHandle). */
	handle: SandboxHandle;
	/** Where the node sends API requests: the sandbox, or Prism's validating proxy in front of it (RA_PRISM=1). */
	apiBaseUrl: string;
}

/** API base URL by sandbox base URL, for the sandboxes that run behind Prism in this worker. */
const prismFor = new Map<string, string>();

/** The base URL API clients under test should use for a sandbox: Prism's proxy in Prism mode, else the sandbox. */
export function apiBaseUrl(sandboxBaseUrl: string): string {
	return prismFor.get(sandboxBaseUrl) ?? sandboxBaseUrl;
}

/**
 * Starts a sandbox on a free loopback port with a fast worker and a fast webhook schedule. With RA_PRISM=1 (the
 * `jest.prism.config.js` project) Stoplight Prism's validating proxy is started in front of it (test/helpers/prism.ts).
 */
export async function startTestSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
	const handle = await startSandbox({
		port: 0,
		workerDelayMs: 10,
		webhookTimeScale: 0.0001,
		webhookDeadlineMs: 1000,
		...opts,
	});
	let close = handle.close;
	if (process.env.RA_PRISM === '1') {
		const { startPrismProxy } = await import('./prism');
		const proxy = await startPrismProxy(handle.baseUrl);
		prismFor.set(handle.baseUrl, proxy.url);
		close = async () => {
			prismFor.delete(handle.baseUrl);
			await proxy.close();
			await handle.close();
		};
	}
	return Object.assign(Object.create(null), handle, {
		control: controlClient(handle.baseUrl),
		handle,
		apiBaseUrl: apiBaseUrl(handle.baseUrl),
		close,
	}) as TestSandbox;
}

export interface UseTestSandboxOptions {
	/** Options of `startTestSandbox` (port 0, fast worker and webhook schedule unless given). */
	sandbox?: SandboxOptions;
	/** Clear the faults injected through /_sandbox/faults after each test. */
	clearFaultsAfterEach?: boolean;
}

/**
 * One sandbox for the tests of the file (or the describe block) that calls it: started by a beforeAll, closed by
 * an afterAll, its injected faults cleared after each test when asked. `onStart` gets the sandbox inside that
 * beforeAll (to keep it in the file's own variable, or to arrange state), so a beforeAll the file registers after
 * this call already finds it.
 */
export function useTestSandbox(
	onStart: (sandbox: TestSandbox) => unknown,
	options: UseTestSandboxOptions = {},
): void {
	let sandbox: TestSandbox | undefined;
	beforeAll(async () => {
		sandbox = await startTestSandbox(options.sandbox);
		await onStart(sandbox);
	});
	if (options.clearFaultsAfterEach) {
		afterEach(async () => {
			await sandbox?.control.clearFaults();
		});
	}
	afterAll(async () => {
		await sandbox?.close();
	});
}

/** One API request over real HTTP. */
export async function api<T = Json>(
	sb: { baseUrl: string; seed: { apiKey: string } },
	method: string,
	path: string,
	o: ApiOptions = {},
): Promise<ApiResponse<T>> {
	const headers: Record<string, string> = {};
	const key = o.key === undefined ? sb.seed.apiKey : o.key;
	if (key !== null) headers.authorization = `Bearer ${key}`;
	if (o.idempotencyKey !== undefined) headers['idempotency-key'] = o.idempotencyKey;
	let body: string | undefined;
	if (o.rawBody !== undefined) body = o.rawBody;
	else if (o.body !== undefined) body = JSON.stringify(o.body);
	if (body !== undefined) headers['content-type'] = 'application/json';
	Object.assign(headers, o.headers);
	return await toApiResponse<T>(await fetch(`${sb.baseUrl}${path}`, { method, headers, body }));
}

/** Status, headers and body of a response: parsed JSON, the text when it is not JSON, null when empty. */
async function toApiResponse<T = Json>(res: Response): Promise<ApiResponse<T>> {
	const text = await res.text();
	let parsed: unknown = null;
	if (text) {
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = text;
		}
	}
	return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** PUT the bytes to a signed storage URL, as a client must: declared type, no Authorization header. */
export async function uploadFile(
	_sb: unknown,
	url: string,
	buffer: Buffer,
	mime: string,
	extraHeaders: Record<string, string> = {},
): Promise<ApiResponse> {
	return await toApiResponse(
		await fetch(url, {
			method: 'PUT',
			headers: { 'content-type': mime, ...extraHeaders },
			body: buffer,
		}),
	);
}

/** The elements of an S3-style storage error body (`<Error><Code>…</Code><Message>…</Message>…</Error>`). */
export function storageErrorOf(text: string): Record<string, string> | undefined {
	const error = /<Error>([\s\S]*)<\/Error>/.exec(text)?.[1];
	if (error === undefined) return undefined;
	const out: Record<string, string> = {};
	for (const m of error.matchAll(/<([A-Za-z]+)>([^<]*)<\/\1>/g))
		out[m[1]] = m[2]
			.replace(/&apos;/g, "'")
			.replace(/&quot;/g, '"')
			.replace(/&lt;/g, '<')
			.replace(/&gt;/g, '>')
			.replace(/&amp;/g, '&');
	return out;
}

/**
 * Asserts a storage answer is a real signed storage's error: the status, an XML `<Error>` with this `<Code>`,
 * and none of the API's conventions (no JSON body, no X-Request-Id, no Cache-Control: no-store).
 */
export function expectStorageError(
	res: ApiResponse,
	status: number,
	code: string,
	message?: RegExp,
): Record<string, string> {
	const error = storageErrorOf(res.text);
	expect({ status: res.status, code: error?.Code }).toEqual({ status, code });
	expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
	expect(res.headers.get('x-request-id')).toBeNull();
	expect(res.headers.get('cache-control')).toBeNull();
	expect(res.headers.get('x-amz-request-id')).toBe(error?.RequestId);
	if (message) expect(error?.Message).toMatch(message);
	return error!;
}

/** Polls `fn` until it returns a truthy value (real time), or throws after `timeoutMs`. */
export async function waitFor<T>(
	fn: () => Promise<T | undefined | null | false>,
	timeoutMs = 5000,
	everyMs = 10,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v) return v;
		if (Date.now() > deadline) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, everyMs));
	}
}
