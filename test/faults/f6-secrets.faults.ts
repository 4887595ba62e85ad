/**
 * F6: secrets. The API key goes to the API only: every request the node sends is recorded as it leaves the
 * process (test/helpers/outgoing-http.ts), and the key travels only in the Authorization header of requests to the
 * API's origin, never to storage (the sandbox's storage counters agree); never into execution data, n8n's log or
 * an error message, including errors that involve the key itself. The invitation token appears only when private-link
 * delivery was chosen. 401 and 403 give clear errors naming the missing scope. n8n-core engine + sandbox.
 */
import { Container } from '@n8n/di';
import { Logger } from '@n8n/backend-common';
import type { IDataObject } from 'n8n-workflow';

import { FigureBook } from './figures';
import type { ExecuteNodeResult } from '../helpers/n8n-engine';
import { recordOutgoingHttp } from '../helpers/outgoing-http';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import {
	analyzeParams,
	apiCall,
	counters,
	newWorkspace,
	pdfItem,
	runNode,
	waitForReportStatus,
	type Workspace,
} from '../nodes/action/helpers';

const book = new FigureBook(
	'F6',
	'Secrets: API key and invitation token (F6)',
	'n8n-core engine + sandbox records (inbox, counters)',
);
let sandbox: TestSandbox;
let ws: Workspace;

/** Everything the runs produced that a user or an operator could see: run data, errors, log lines. */
const runs: Array<{ label: string; result: ExecuteNodeResult }> = [];
const logLines: string[] = [];
const restoreLogger: Array<() => void> = [];

async function run(label: string, ...args: Parameters<typeof runNode>): Promise<ExecuteNodeResult> {
	const result = await runNode(...args);
	runs.push({ label, result });
	return result;
}

/** Records every call of n8n's logger (the one WorkflowExecute, the request helpers and our node use). */
function captureLogger(): void {
	const logger = Container.get(Logger) as unknown as Record<string, (...a: unknown[]) => unknown>;
	for (const level of ['error', 'warn', 'info', 'debug']) {
		const original = logger[level];
		logger[level] = function (this: unknown, ...a: unknown[]) {
			logLines.push(
				`${level} ${a.map((x) => (typeof x === 'string' ? x : safeJson(x))).join(' ')}`,
			);
			return original.apply(this, a);
		};
		restoreLogger.push(() => (logger[level] = original));
	}
}

function safeJson(value: unknown): string {
	const seen = new WeakSet();
	return JSON.stringify(value, (_k, v: unknown) => {
		if (typeof v === 'object' && v !== null) {
			if (seen.has(v)) return '[circular]';
			seen.add(v);
		}
		if (v instanceof Error)
			return { name: v.name, message: v.message, stack: v.stack, ...(v as unknown as IDataObject) };
		return v;
	});
}

/** Run data and the run's error as n8n stores them, plus the error's message, description and stack. */
function visibleText(result: ExecuteNodeResult): string {
	const e = result.error as
		(Error & { description?: string; context?: unknown; cause?: unknown }) | undefined;
	return [
		safeJson(result.run),
		e
			? `${e.message} ${e.description ?? ''} ${e.stack ?? ''} ${safeJson(e.context)} ${safeJson(e.cause)}`
			: '',
	].join('\n');
}

beforeAll(async () => {
	sandbox = await startTestSandbox();
	ws = await newWorkspace(sandbox.baseUrl);
});
afterAll(async () => {
	for (const restore of restoreLogger) restore();
	book.save();
	await sandbox?.close();
});

describe('F6: the API key never leaves for storage, receivers, run data, logs or errors', () => {
	const tokens: string[] = [];

	it('a full flow: the node sends the key only to the API, never to storage; its outputs hold no key, the token only for private links', async () => {
		const warmup = await run('get job description', ws, {
			resource: 'jobDescription',
			operation: 'get',
			jobDescriptionId: ws.jobDescriptionId,
		});
		expect(warmup.error).toBeUndefined();
		captureLogger();
		const sent = recordOutgoingHttp();
		const analyzed = await run(
			'analyze resume (wait)',
			ws,
			analyzeParams(ws, { waitForCompletion: true, waitTimeout: 30 }),
			[
				pdfItem({ candidate: 'Secret One' }, 'one.pdf'),
				pdfItem({ candidate: 'Secret Two' }, 'two.pdf'),
			],
		);
		expect(analyzed.error).toBeUndefined();
		const reportIds = analyzed.output[0].map((i) => String(i.json.id ?? i.json.reportId));
		for (const id of reportIds) expect(await waitForReportStatus(ws, id)).toBe('completed');

		const byEmail = await run('invite by email', ws, {
			resource: 'interview',
			operation: 'invite',
			spendingLimit: 0,
			reportId: reportIds[0],
			candidateEmail: 'email.delivery@example.com',
		});
		expect(byEmail.error).toBeUndefined();
		const byLink = await run('invite by private link', ws, {
			resource: 'interview',
			operation: 'invite',
			spendingLimit: 0,
			reportId: reportIds[1],
			candidateEmail: 'private.link@example.com',
			delivery: 'privateLink',
		});
		expect(byLink.error).toBeUndefined();
		const emailItem = byEmail.output[0][0].json;
		const linkItem = byLink.output[0][0].json;
		const token = linkItem.invitationToken;
		expect(typeof token).toBe('string');
		tokens.push(String(token));
		sent.stop();

		const c = await counters(ws);
		const feed = await apiCall(ws, 'GET', '/api/v1/events?limit=100');
		const feedText = JSON.stringify(feed.body);
		const emailOutputKeys = Object.keys(emailItem);
		// What the node sent, request by request, as it left the process.
		const apiOrigin = new URL(ws.baseUrl).origin;
		const toApi = sent.requests.filter(
			(r) => r.origin === apiOrigin && r.path.startsWith('/api/v1/'),
		);
		const elsewhere = sent.requests.filter((r) => !toApi.includes(r));
		const storagePutsSent = elsewhere.filter(
			(r) => r.method === 'PUT' && r.path.startsWith('/_storage/'),
		);
		const carriesKey = (r: (typeof sent.requests)[number]) => JSON.stringify(r).includes(ws.apiKey);
		const keyOutsideAuthorization = sent.requests.filter((r) =>
			JSON.stringify({ ...r, headers: { ...r.headers, authorization: '' } }).includes(ws.apiKey),
		);
		const apiWithoutKey = toApi.filter((r) => r.headers.authorization !== `Bearer ${ws.apiKey}`);
		const withToken = sent.requests.filter((r) => JSON.stringify(r).includes(String(token)));
		book.set('requestsSentByTheNode', sent.requests.length);
		book.set('requestsToTheApi', toApi.length);
		book.set(
			'requestsElsewhere',
			elsewhere.map((r) => `${r.method} ${r.origin}${r.path.replace(/\?.*$/, '?…')}`),
		);
		book.set('storagePuts', c.storagePuts);
		book.set('storageAuthorizationHeaders', c.storageAuthorizationHeaders);
		book.check(
			'the node sent the key on every API request (Authorization: Bearer), the precondition of the checks below',
			`${toApi.length - apiWithoutKey.length}/${toApi.length} API requests`,
			toApi.length >= 6 && apiWithoutKey.length === 0,
		);
		book.check(
			'requests the node sent elsewhere (storage PUTs) carrying the key or an Authorization header',
			`${elsewhere.filter((r) => carriesKey(r) || r.headers.authorization !== undefined).length} of ${elsewhere.length} (storage PUTs sent: ${storagePutsSent.length})`,
			storagePutsSent.length >= 2 &&
				elsewhere.every((r) => !carriesKey(r) && r.headers.authorization === undefined),
		);
		book.check(
			'requests carrying the key anywhere but their Authorization header (URL, other headers)',
			keyOutsideAuthorization.length,
			keyOutsideAuthorization.length === 0,
		);
		book.check(
			'requests the node sent carrying the invitation token',
			withToken.length,
			withToken.length === 0,
		);
		book.set(
			'emailDelivery.invitationTokenInOutput',
			emailItem.invitationToken === undefined
				? 'absent'
				: (emailItem.invitationToken as string | null),
		);
		book.set(
			'privateLink.invitationTokenInOutput',
			typeof token === 'string' ? 'present' : 'absent',
		);
		book.check(
			'storage PUTs with an Authorization header',
			c.storageAuthorizationHeaders,
			c.storageAuthorizationHeaders === 0 && c.storagePuts >= 2,
		);

		book.check(
			'invitation token only with private-link delivery (email delivery output has none)',
			[String(emailItem.invitationToken ?? 'none'), 'present'],
			!emailOutputKeys.some(
				(k) => /token/i.test(k) && typeof emailItem[k] === 'string' && emailItem[k] !== '',
			),
		);
		book.check(
			'invitation token never in the event feed',
			feedText.includes(String(token)),
			!feedText.includes(String(token)),
		);

		expect(c.storagePuts).toBeGreaterThanOrEqual(2);
		expect(c.storageAuthorizationHeaders).toBe(0);
		expect(storagePutsSent.length).toBeGreaterThanOrEqual(2);
		expect(apiWithoutKey).toEqual([]);
		expect(elsewhere.filter((r) => carriesKey(r) || r.headers.authorization !== undefined)).toEqual(
			[],
		);
		expect(keyOutsideAuthorization).toEqual([]);
		expect(withToken).toEqual([]);
		// The node's outputs (json and binary of every item of these runs) hold no key.
		for (const r of [analyzed, byEmail, byLink]) expect(visibleText(r)).not.toContain(ws.apiKey);
		// Token: absent for email delivery, present for private link, and never in events.
		expect(emailItem.interviewId).toMatch(/^int_/);
		expect(typeof emailItem.invitationToken === 'string' && emailItem.invitationToken !== '').toBe(
			false,
		);
		expect(JSON.stringify(emailItem)).not.toMatch(/\/interview\/[A-Za-z0-9_-]{8,}/);
		expect(String(token).length).toBeGreaterThan(10);
		expect(feedText).not.toContain(String(token));
		// The email run's data holds no token either (it is null or absent in what n8n keeps).
		expect(visibleText(byEmail)).not.toMatch(/"invitationToken":"[^"]+"/);
	});

	it('errors involving the key itself (revoked, wrong environment, unreachable API, 5xx) never repeat it', async () => {
		const extra = await sandbox.control.createKey(ws.workspaceId, {});
		await sandbox.control.revokeKey(extra.apiKey);
		const revoked = { ...ws, apiKey: extra.apiKey };
		const r401 = await run('revoked key', revoked, {
			resource: 'report',
			operation: 'getMany',
			returnAll: false,
			limit: 5,
		});
		// A key with surrounding spaces (pasted), a production-looking key against the sandbox, an unreachable base URL.
		const spaced = await run(
			'key with spaces',
			{ ...ws, apiKey: `  ${extra.apiKey}  ` },
			{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		);
		const prodKey = `svc_live_${'9'.repeat(40)}`;
		const wrongEnv = await run(
			'production key on sandbox',
			{ ...ws, apiKey: prodKey },
			{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		);
		const closedPort = await run(
			'unreachable API',
			{ ...ws, baseUrl: 'http://127.0.0.1:9' },
			{ resource: 'jobDescription', operation: 'get', jobDescriptionId: ws.jobDescriptionId },
		);
		await sandbox.control.setFaults({ rules: [{ path: '/api/v1', status: 500, rate: 1 }] });
		const r500 = await run('500 on every request', ws, analyzeParams(ws), [
			pdfItem({ candidate: 'Five Hundred' }),
		]);
		await sandbox.control.clearFaults();

		const texts = [r401, spaced, wrongEnv, closedPort, r500].map(visibleText);
		const secrets = [ws.apiKey, extra.apiKey, prodKey];
		const leaks = texts.filter((t) => secrets.some((s) => t.includes(s))).length;
		book.set('errorRuns', texts.length);
		book.set(
			'errorMessages',
			[r401, spaced, wrongEnv, closedPort, r500].map(
				(r) => `${r.error?.name ?? 'none'}: ${String(r.error?.message ?? '').slice(0, 160)}`,
			),
		);
		book.check(
			'error runs whose data, message, description or stack contain a key',
			leaks,
			leaks === 0,
		);
		for (const r of [r401, spaced, wrongEnv, closedPort, r500]) expect(r.error).toBeDefined();
		for (const t of texts) for (const s of secrets) expect(t).not.toContain(s);
	});

	it('401 and 403: clear errors; 403 names the missing scope', async () => {
		const extra = await sandbox.control.createKey(ws.workspaceId, {});
		await sandbox.control.revokeKey(extra.apiKey);
		const r401 = await run(
			'401',
			{ ...ws, apiKey: extra.apiKey },
			{ resource: 'report', operation: 'getStatus', reportId: 'rpt_any' },
		);
		const writeOnly = await sandbox.control.createKey(ws.workspaceId, {
			scopes: ['analyses:write'],
		});
		const r403 = await run(
			'403 reports:read',
			{ ...ws, apiKey: writeOnly.apiKey },
			{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		);
		const readOnly = await sandbox.control.createKey(ws.workspaceId, { scopes: ['reports:read'] });
		const r403b = await run(
			'403 interviews:write',
			{ ...ws, apiKey: readOnly.apiKey },
			{
				resource: 'interview',
				operation: 'invite',
				spendingLimit: 0,
				reportId: 'rpt_any',
				candidateEmail: 'x@example.com',
			},
		);
		const text = (r: ExecuteNodeResult) =>
			`${r.error?.message ?? ''} ${r.error?.description ?? ''}`;
		book.set(
			'401.message',
			`${r401.error?.message ?? ''} | ${String(r401.error?.description ?? '').slice(0, 200)}`,
		);
		book.set(
			'403.reports:read.message',
			`${r403.error?.message ?? ''} | ${String(r403.error?.description ?? '').slice(0, 200)}`,
		);
		book.set(
			'403.interviews:write.message',
			`${r403b.error?.message ?? ''} | ${String(r403b.error?.description ?? '').slice(0, 200)}`,
		);
		book.check(
			'401: NodeApiError 401 saying the key is invalid, expired or revoked',
			r401.error?.message ?? null,
			r401.error?.name === 'NodeApiError' &&
				/401/.test(text(r401)) &&
				/revoked|expired|invalid/i.test(text(r401)),
		);
		book.check(
			'403: names reports:read',
			r403.error?.message ?? null,
			/reports:read/.test(text(r403)),
		);
		book.check(
			'403: names interviews:write',
			r403b.error?.message ?? null,
			/interviews:write/.test(text(r403b)),
		);
		expect(r401.error?.name).toBe('NodeApiError');
		expect(text(r401)).toMatch(/401/);
		expect(text(r401)).toMatch(/revoked|expired|invalid/i);
		expect(r403.error?.name).toBe('NodeApiError');
		expect(text(r403)).toMatch(/403/);
		expect(text(r403)).toContain('reports:read');
		expect(r403b.error?.name).toBe('NodeApiError');
		expect(text(r403b)).toContain('interviews:write');
		for (const r of [r401, r403, r403b])
			for (const s of [ws.apiKey, extra.apiKey, writeOnly.apiKey, readOnly.apiKey])
				expect(visibleText(r)).not.toContain(s);
	});

	it('no run data and no n8n log line contains the API key; the token only in the private-link run', () => {
		const secrets = [ws.apiKey];
		const leakingRuns = runs
			.filter((r) => secrets.some((s) => visibleText(r.result).includes(s)))
			.map((r) => r.label);
		const leakingLogLines = logLines.filter((l) => secrets.some((s) => l.includes(s))).length;
		const runsWithToken = runs
			.filter((r) => tokens.some((t) => visibleText(r.result).includes(t)))
			.map((r) => r.label);
		const logLinesWithToken = logLines.filter((l) => tokens.some((t) => l.includes(t))).length;
		book.set('runsInspected', runs.length);
		book.set('logLinesInspected', logLines.length);
		book.set('runsContainingApiKey', leakingRuns);
		book.set('logLinesContainingApiKey', leakingLogLines);
		book.set('runsContainingInvitationToken', runsWithToken);
		book.set('logLinesContainingInvitationToken', logLinesWithToken);
		book.check(
			'run data (all runs, success and error) containing the API key',
			leakingRuns.length,
			leakingRuns.length === 0,
		);
		book.check(
			'n8n log lines containing the API key or the invitation token',
			leakingLogLines + logLinesWithToken,
			leakingLogLines + logLinesWithToken === 0,
		);
		book.check(
			'runs whose data contain the invitation token: only the private-link one',
			runsWithToken,
			runsWithToken.length === 1 && runsWithToken[0] === 'invite by private link',
		);
		expect(runs.length).toBeGreaterThanOrEqual(10);
		expect(leakingRuns).toEqual([]);
		expect(leakingLogLines).toBe(0);
		expect(logLinesWithToken).toBe(0);
		expect(runsWithToken).toEqual(['invite by private link']);
	});
});
