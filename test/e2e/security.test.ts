/**
 * Secrets in a real n8n at N8N_LOG_LEVEL=debug (docs/security.md): after example workflows (an analysis with an
 * email invitation, 25 resumes through Analyze Many, a signed webhook delivery, a forged one) and the security
 * cases (an API that echoes the key in its error answers, a redirect to another host carrying the key in its
 * Location, a revoked key, a Private Link invitation), the API keys and the webhook signing secret appear in no
 * line of n8n's log (server and `n8n execute`), no row of n8n's SQLite database and no execution n8n's REST API
 * shows; the invitation token appears only in the Private Link invitation's own execution. The workflows run in the
 * running n8n as the editor's *Execute workflow* runs them (their lines in the server's log), except two that run
 * in `n8n execute`, which prints the run it made and logs in a process of its own: the Private Link invitation
 * (the token in a printed run) and the API that echoes the key (the key in a printed error).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

import { Webhook } from 'standardwebhooks';

import {
	cliExecution,
	executeWorkflow,
	nodeOutput,
	type CliExecution,
} from '../../scripts/n8n-host';
import { settled } from '../../scripts/start-kit';
import { actionWorkflow, bootRealN8n, n8nUnderTest, triggerPath, type RealN8n } from './helpers';

let env: RealN8n;
let echo: Server;
let echoOrigin = '';
const previousLogLevel = process.env.N8N_LOG_LEVEL;
/** Every `n8n execute` run: the run it printed and its log lines (executeInCli). */
const cliRuns: Array<{
	label: string;
	workflowId: string;
	result: CliExecution & { logLines: string[] };
}> = [];
const workflows: Array<{ label: string; id: string }> = [];
const secrets: Record<string, string> = {};
let token = '';
let privateLinkWorkflowId = '';
/** The run's error of the workflow whose API redirected to another host (checked with the other findings). */
let redirectError = '';

beforeAll(async () => {
	// Read by scripts/n8n-host/n8n-env.ts for every n8n process (server and `n8n execute`).
	process.env.N8N_LOG_LEVEL = 'debug';
	// An API in front of which a proxy echoes every request header back in its error answers, and redirects one
	// path to another host with the Authorization header in the Location.
	echo = createServer((req, res) => {
		const auth = String(req.headers.authorization ?? '');
		if (req.url?.startsWith('/api/v1/job-descriptions/')) {
			res.writeHead(302, {
				location: `http://127.0.0.2:9/collect?auth=${encodeURIComponent(auth)}`,
			});
			res.end();
			return;
		}
		const body = JSON.stringify({
			error: {
				code: 'GATEWAY_ECHO',
				message: `rejected ${auth}`,
				details: [{ field: auth, rule: auth }],
				headers: req.headers,
			},
		});
		res.writeHead(400, { 'content-type': 'application/json' });
		res.end(body);
	});
	await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
	echoOrigin = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
	env = await bootRealN8n('e2e-security', { homeInUserFolder: true });
	secrets.apiKey = env.sandbox.seed.apiKey;
	secrets.webhookSecret = env.sandbox.seed.webhookSecret;
	secrets.webhookSecretBody = env.sandbox.seed.webhookSecret.replace(/^whsec_/, '');
}, 300_000);

afterAll(async () => {
	if (previousLogLevel === undefined) delete process.env.N8N_LOG_LEVEL;
	else process.env.N8N_LOG_LEVEL = previousLogLevel;
	await env?.close();
	await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
});

/**
 * `n8n execute` at debug level, logging JSON lines (N8N_LOG_FORMAT=json): plain console lines at debug level carry a
 * prefix and metadata that make the printed run unreadable. `n8n execute --rawOutput` prints the run as one info
 * line of its log; that line is the run (the execution's data), every other line is log.
 */
async function executeInCli(
	label: string,
	workflowId: string,
): Promise<CliExecution & { logLines: string[] }> {
	const raw = await executeWorkflow(env.n8n.host, workflowId, {
		userFolder: env.userFolder,
		env: { ...env.n8n.env, N8N_LOG_FORMAT: 'json' },
		timeoutMs: 300_000,
	});
	let run: CliExecution['run'];
	const logLines: string[] = [];
	for (const line of `${raw.stdout}\n${raw.stderr}`.split('\n')) {
		if (line.trim() === '') continue;
		let message: unknown;
		try {
			message = (JSON.parse(line) as { message?: unknown }).message;
		} catch {
			logLines.push(line);
			continue;
		}
		if (!run && typeof message === 'string' && message.startsWith('{')) {
			try {
				const parsed = JSON.parse(message) as CliExecution['run'];
				if (parsed?.data?.resultData) {
					run = parsed;
					continue;
				}
			} catch {
				// an ordinary log line
			}
		}
		logLines.push(line);
	}
	// A run printed whole and finished is the result even when `n8n execute` then died while exiting.
	const result = { ...cliExecution(raw, run), logLines };
	cliRuns.push({ label, workflowId, result });
	return result;
}

/**
 * A workflow run in the running n8n, as the editor's *Execute workflow* runs it (it logs to the server's log), until it
 * ends or waits for the recruiter's approval form (the examples): ok when no error ended it.
 */
async function execute(workflowId: string): Promise<Pick<CliExecution, 'ok' | 'run'>> {
	const execution = await settled(env.n8n, await env.n8n.startManualRun(workflowId), 300_000);
	return {
		ok: ['success', 'waiting'].includes(execution.status) && !execution.data.resultData.error,
		run: { data: execution.data, status: execution.status },
	};
}

/** The run succeeded; otherwise what n8n said (exit code, the run's error, the end of its output or log). */
function expectOk(result: Pick<CliExecution, 'ok' | 'run'> & Partial<CliExecution>): void {
	const failure = {
		code: result.code,
		error: result.run?.data.resultData.error?.message,
		tail:
			result.stdout === undefined
				? env.n8n.logTail(40)
				: `${result.stdout}\n${result.stderr}`.slice(-3000),
	};
	expect({ ok: result.ok, ...(result.ok ? {} : failure) }).toEqual({ ok: true });
}

async function importAction(
	label: string,
	parameters: Record<string, unknown>,
	credential: { id: string; name: string },
	onError?: string,
) {
	const created = await env.n8n.createWorkflow(
		actionWorkflow(`security: ${label}`, parameters, credential, onError ? { onError } : {}),
	);
	workflows.push({ label, id: created.id });
	return created.id;
}

/** Every row of every table of n8n's SQLite database, read by the host's own sqlite3 (n8n's Node, read-only). */
function databaseRows(): Array<{ table: string; row: string }> {
	const database = join(env.userFolder, '.n8n', 'database.sqlite');
	const script = `
		const sqlite3 = require('sqlite3');
		const db = new sqlite3.Database(process.argv[1], sqlite3.OPEN_READONLY);
		const text = (v) => (Buffer.isBuffer(v) ? v.toString('utf8') : v);
		db.all("select name from sqlite_master where type = 'table'", async (error, tables) => {
			if (error) throw error;
			const out = [];
			for (const { name } of tables) {
				const rows = await new Promise((resolve, reject) => db.all('select * from "' + name + '"', (e, r) => (e ? reject(e) : resolve(r))));
				for (const row of rows) out.push({ table: name, row: JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, text(v)]))) });
			}
			process.stdout.write(JSON.stringify(out));
			db.close();
		});`;
	const host = env.n8n.host;
	const output = execFileSync(host.nodeBin, ['-e', script, database], {
		env: { ...process.env, NODE_PATH: join(host.hostDir, 'node_modules') },
		maxBuffer: 512 * 1024 * 1024,
	}).toString();
	return JSON.parse(output) as Array<{ table: string; row: string }>;
}

test(`examples and security cases run in ${n8nUnderTest()} at debug level`, async () => {
	const { n8n, sandbox } = env;
	// A signed webhook delivery: the trigger verifies it with the signing secret.
	const ats = await env.importExample('report-result-to-ats.json');
	workflows.push({ label: 'report-result-to-ats', id: ats.id });
	await n8n.activateWorkflow(ats.id);
	const path = triggerPath(ats.wf);
	await n8n.waitForWebhook(path, 30_000, 'POST');
	await sandbox.control.registerWebhook(
		sandbox.seed.workspaceId,
		`${n8n.baseUrl}/webhook/${path}`,
		['report.result_ready'],
	);

	const one = await env.importExample('analyze-one-resume.json');
	workflows.push({ label: 'analyze-one-resume', id: one.id });
	expectOk(await execute(one.id));
	const many = await env.importExample('analyze-many-resumes.json');
	workflows.push({ label: 'analyze-many-resumes', id: many.id });
	const manyRun = await execute(many.id);
	expectOk(manyRun);
	// The example uses the node's newest version: Simplify gives each resume's `status` at the top level.
	const analyzed = nodeOutput(manyRun.run!.data, 'Analyze Many') as Array<{
		reportId: string;
		status?: string;
		report?: { status: string };
	}>;
	const completed = analyzed.find((item) => (item.status ?? item.report?.status) === 'completed');
	expect(completed).toBeDefined();

	// A Private Link invitation: the only output that may hold an invitation token.
	privateLinkWorkflowId = await importAction(
		'private link invitation',
		{
			resource: 'interview',
			operation: 'invite',
			spendingLimit: 0,
			reportId: completed!.reportId,
			candidateEmail: 'private.link@example.com',
			delivery: 'privateLink',
		},
		env.credentials.recruitingAnalysisApi,
	);
	const invited = await executeInCli('private link invitation', privateLinkWorkflowId);
	expectOk(invited);
	token = String(nodeOutput(invited.run!.data, 'Recruiting Analysis')[0]?.invitationToken ?? '');
	expect(token.length).toBeGreaterThan(10);

	// An API whose errors echo the key, stopping and with Continue On Fail; a redirect carrying the key away.
	secrets.echoKey = `svc_live_echo_${randomBytes(16).toString('hex')}`;
	const echoCredential = await n8n.createCredential({
		name: 'Recruiting Analysis behind an echoing proxy',
		type: 'recruitingAnalysisApi',
		data: { environment: 'custom', baseUrl: echoOrigin, apiKey: secrets.echoKey },
	});
	const echoStop = await importAction(
		'echoed key, stop',
		{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		echoCredential,
	);
	expect((await executeInCli('echoed key, stop', echoStop)).ok).toBe(false);
	const echoContinue = await importAction(
		'echoed key, continue',
		{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		echoCredential,
		'continueRegularOutput',
	);
	await execute(echoContinue);
	const redirected = await importAction(
		'redirect to another host',
		{ resource: 'jobDescription', operation: 'get', jobDescriptionId: 'jd_1' },
		echoCredential,
	);
	const redirectRun = await execute(redirected);
	expect(redirectRun.ok).toBe(false);
	redirectError = JSON.stringify(redirectRun.run?.data.resultData.error ?? null);

	// A revoked key (401).
	const extra = await sandbox.control.call<{ apiKey: string }>(
		'POST',
		`/_sandbox/workspaces/${sandbox.seed.workspaceId}/keys`,
		{},
	);
	await sandbox.control.call('POST', '/_sandbox/keys/revoke', { apiKey: extra.apiKey });
	secrets.revokedKey = extra.apiKey;
	const revokedCredential = await n8n.createCredential({
		name: 'Recruiting Analysis revoked key',
		type: 'recruitingAnalysisApi',
		data: { environment: 'sandbox', baseUrl: sandbox.baseUrl, apiKey: extra.apiKey },
	});
	const revoked = await importAction(
		'revoked key',
		{ resource: 'report', operation: 'getMany', returnAll: false, limit: 5 },
		revokedCredential,
	);
	expect((await execute(revoked)).ok).toBe(false);

	// A forged delivery (n8n logs the refusal at warn) next to the real ones.
	const forger = new Webhook(`whsec_${randomBytes(24).toString('base64')}`);
	const id = `msg_${randomBytes(8).toString('hex')}`;
	const now = new Date();
	const body = JSON.stringify({
		id: '5f0c8c36-9a4e-4d0c-b0f5-00000000000f',
		type: 'report.result_ready',
		schemaVersion: 1,
		occurredAt: now.toISOString(),
		data: {},
	});
	const forged = await fetch(`${n8n.baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': forger.sign(id, now, body),
		},
		body,
	});
	expect(forged.status).toBe(401);
	// The real deliveries of the analyses arrive at the trigger.
	await n8n.waitForExecutions(ats.id, 1, 120_000);
}, 900_000);

test('no API key and no signing secret in any log line, database row or execution; the token only in its own execution', async () => {
	expect(token).not.toBe('');
	const forbidden = Object.entries(secrets);
	expect(forbidden.map(([name]) => name).sort()).toEqual([
		'apiKey',
		'echoKey',
		'revokedKey',
		'webhookSecret',
		'webhookSecretBody',
	]);

	// n8n's log at debug level: the server's log file and every line `n8n execute` logged.
	const serverLog = readFileSync(env.n8n.logFile, 'utf8').split('\n');
	expect(serverLog.some((line) => /debug/i.test(line))).toBe(true);
	const cliLog = cliRuns.flatMap((run) =>
		run.result.logLines.map((line) => `${run.label}: ${line}`),
	);
	expect(cliLog.some((line) => line.includes('"level":"debug"'))).toBe(true);
	const logLines = [...serverLog, ...cliLog];
	const leakingLines = logLines.filter(
		(line) => forbidden.some(([, value]) => line.includes(value)) || line.includes(token),
	);
	expect(leakingLines).toEqual([]);

	// n8n's database: every row of every table.
	const rows = databaseRows();
	expect(rows.some((r) => r.table === 'execution_data')).toBe(true);
	const leakingRows = rows
		.filter((r) => forbidden.some(([, value]) => r.row.includes(value)))
		.map((r) => r.table);
	expect(leakingRows).toEqual([]);
	const privateLinkExecutions = (await env.n8n.listExecutions(privateLinkWorkflowId)).map((e) =>
		String(e.id),
	);
	const tokenRows = rows.filter((r) => r.row.includes(token));
	expect(tokenRows.length).toBeGreaterThan(0);
	for (const r of tokenRows) {
		expect(r.table).toBe('execution_data');
		expect(privateLinkExecutions).toContain(
			String((JSON.parse(r.row) as { executionId: unknown }).executionId),
		);
	}

	// n8n's REST API: every execution of every workflow, with its data.
	let inspected = 0;
	for (const workflow of workflows) {
		for (const summary of await env.n8n.listExecutions(workflow.id)) {
			const text = JSON.stringify(await env.n8n.getExecution(summary.id));
			inspected++;
			for (const [name, value] of forbidden)
				expect(`${workflow.label} ${name}: ${text.includes(value)}`).toBe(
					`${workflow.label} ${name}: false`,
				);
			expect(`${workflow.label} token: ${text.includes(token)}`).toBe(
				`${workflow.label} token: ${workflow.id === privateLinkWorkflowId}`,
			);
		}
	}
	expect(inspected).toBeGreaterThanOrEqual(workflows.length);
	// `n8n execute` prints the run it made: the token only in the Private Link run's.
	for (const run of cliRuns) {
		expect(`${run.label}: ${JSON.stringify(run.result.run ?? null).includes(token)}`).toBe(
			`${run.label}: ${run.workflowId === privateLinkWorkflowId}`,
		);
	}
	// The redirect was refused, naming the host it pointed to (not followed there with the key).
	expect(redirectError).toMatch(
		/Refused a redirect of GET \/api\/v1\/job-descriptions\/jd_1 to another host: 127\.0\.0\.2:9/,
	);
});
