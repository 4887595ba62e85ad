/**
 * A running `n8n start` and the REST calls the harness makes on it.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { n8nCli } from './n8n-commands';
import { nodeEnv } from './node-runtime';
import { N8nRestClient } from './rest-client';
import type { N8nHost } from './paths';
import { delay, run, settlesWithin, type Logger, type RunResult } from './process';
import type { ExecutionDetail, ExecutionSummary, IRunDataLike, WorkflowJson } from './run-data';

export interface OwnerLogin {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: OwnerLogin = {
	email: 'owner@example.com',
	password: 'RecruitingDemo1',
	firstName: 'Demo',
	lastName: 'Owner',
};

/** A running `n8n start`, with the REST calls the harness needs (cookie login as the owner). */
export class N8nInstance extends N8nRestClient {
	private stopped = false;
	readonly exited: Promise<number | null>;

	constructor(
		readonly host: N8nHost,
		readonly child: ChildProcess,
		readonly userFolder: string,
		port: number,
		readonly brokerPort: number,
		readonly logFile: string,
		readonly env: NodeJS.ProcessEnv,
		log: Logger,
	) {
		super(port, log);
		this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
		// Loaded now: a shared n8n's instance outlives the jest file that made it, whose require then stops working.
		flatted(host);
	}

	/** The n8n log so far (for error messages). */
	logTail(lines = 60): string {
		try {
			return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
		} catch {
			return '';
		}
	}

	async stop(): Promise<void> {
		if (this.stopped) return;
		this.stopped = true;
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		// n8n runs in its own process group (with its task runner): end that group only.
		const pid = this.child.pid!;
		const signal = (sig: NodeJS.Signals) => {
			try {
				process.kill(-pid, sig);
			} catch {
				/* already gone */
			}
		};
		signal('SIGTERM');
		const done = await settlesWithin(this.exited, 20_000);
		if (!done) {
			this.log(`n8n (pid ${pid}) did not stop within 20 s; killing it`);
			signal('SIGKILL');
			await this.exited;
		}
	}

	/** Creates the owner account (fresh instances only) and logs in; keeps the auth cookie. */
	async setupOwner(owner: OwnerLogin = DEFAULT_OWNER): Promise<OwnerLogin> {
		const settings = await this.rest<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>(
			'GET',
			'/settings',
		);
		if (settings.userManagement?.showSetupOnFirstLoad !== false) {
			const res = await this.request('POST', '/rest/owner/setup', owner);
			this.takeCookie(res.headers);
		}
		await this.login(owner);
		return owner;
	}

	async login(owner: OwnerLogin = DEFAULT_OWNER): Promise<void> {
		const res = await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
		this.takeCookie(res.headers);
		if (!this.cookie) throw new Error('n8n login returned no auth cookie');
	}

	private takeCookie(headers: Headers): void {
		const cookies = headers.getSetCookie();
		const auth = cookies.find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
	}

	/** Node types n8n knows (`/types/nodes.json`, as the editor loads them). */
	async nodeTypes(): Promise<
		Array<{ name: string; displayName: string; version: number | number[] }>
	> {
		const { body } = await this.request<
			Array<{ name: string; displayName: string; version: number | number[] }>
		>('GET', '/types/nodes.json');
		return body;
	}

	/**
	 * Records an installed package in n8n's database the way n8n's installer does after unpacking it
	 * (installed_packages + installed_nodes), so Settings > Community nodes lists it. Loading does not need
	 * this: n8n loads whatever is in `nodes/node_modules`.
	 */
	async recordCommunityPackage(packageName: string): Promise<void> {
		const manifestPath = join(
			this.userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			packageName,
			'package.json',
		);
		const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
			name: string;
			version: string;
			author?: { name?: string; email?: string };
		};
		const pkg = { name: manifest.name, version: manifest.version, author: manifest.author };
		const types = await this.nodeTypes();
		const ours = types.filter((t) => t.name.startsWith(`${pkg.name}.`));
		// n8n derives "<node>Tool" variants of usableAsTool nodes; the installer records only declared nodes.
		const declared = ours.filter(
			(t) => !(t.name.endsWith('Tool') && ours.some((b) => `${b.name}Tool` === t.name)),
		);
		const nodes = [...new Map(declared.map((t) => [t.name, t])).values()].map((t) => ({
			name: t.displayName,
			type: t.name,
			latestVersion: Math.max(...([] as number[]).concat(t.version)),
		}));
		if (nodes.length === 0) throw new Error(`n8n has loaded no node of ${pkg.name}`);
		const script = `
			const sqlite3 = require('sqlite3');
			const input = JSON.parse(process.env.RA_RECORD);
			const db = new sqlite3.Database(input.db);
			db.configure('busyTimeout', 15000);
			const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
			const run = (sql, args) => new Promise((ok, fail) => db.run(sql, args, (e) => (e ? fail(e) : ok())));
			(async () => {
				await run('BEGIN IMMEDIATE', []);
				await run('DELETE FROM installed_nodes WHERE package = ?', [input.pkg.name]);
				await run('INSERT OR REPLACE INTO installed_packages (packageName, installedVersion, authorName, authorEmail, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)',
					[input.pkg.name, input.pkg.version, input.pkg.author?.name ?? null, input.pkg.author?.email ?? null, now, now]);
				for (const n of input.nodes) {
					await run('INSERT OR REPLACE INTO installed_nodes (name, type, latestVersion, package) VALUES (?, ?, ?, ?)', [n.name, n.type, n.latestVersion, input.pkg.name]);
				}
				await run('COMMIT', []);
				db.close();
			})().catch((e) => { console.error(e); process.exit(1); });`;
		await run(this.host.nodeBin, ['-e', script], {
			cwd: this.host.hostDir,
			env: nodeEnv(this.host, {
				RA_RECORD: JSON.stringify({
					db: join(this.userFolder, '.n8n', 'database.sqlite'),
					pkg,
					nodes,
				}),
			}),
		});
	}

	async credentialTypes(): Promise<Array<{ name: string; displayName: string }>> {
		const { body } = await this.request<Array<{ name: string; displayName: string }>>(
			'GET',
			'/types/credentials.json',
		);
		return body;
	}

	async createCredential(c: {
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<{ id: string; name: string }> {
		return this.rest<{ id: string; name: string }>('POST', '/credentials', c);
	}

	async createWorkflow(wf: WorkflowJson): Promise<{ id: string; versionId: string; name: string }> {
		const {
			id: _ignored,
			active: _active,
			...body
		} = wf as WorkflowJson & { id?: string; active?: boolean };
		void _ignored;
		void _active;
		// n8n 1.x requires `active` on a new workflow (2.x activates by publishing, never on create).
		const created = this.host.line === '1' ? { ...body, active: false } : body;
		return this.rest<{ id: string; versionId: string; name: string }>(
			'POST',
			'/workflows',
			created,
		);
	}

	async getWorkflow(
		id: string,
	): Promise<WorkflowJson & { id: string; versionId: string; active: boolean }> {
		return this.rest('GET', `/workflows/${encodeURIComponent(id)}`);
	}

	/** Publishes (activates) the current version of a workflow on the running instance. */
	async activateWorkflow(id: string): Promise<void> {
		const wf = await this.getWorkflow(id);
		await this.rest('POST', `/workflows/${encodeURIComponent(id)}/activate`, {
			versionId: wf.versionId,
		});
	}

	async deactivateWorkflow(id: string): Promise<void> {
		await this.rest('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {});
	}

	/** Executions of a workflow, newest first (summaries). */
	async listExecutions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const data = await this.rest<{ results: ExecutionSummary[] }>(
			'GET',
			`/executions?filter=${filter}&limit=100`,
		);
		return data.results;
	}

	/** One execution with its run data unflattened. */
	async getExecution(id: string): Promise<ExecutionDetail> {
		const data = await this.rest<ExecutionSummary & { data: string | IRunDataLike }>(
			'GET',
			`/executions/${encodeURIComponent(id)}`,
		);
		const runData =
			typeof data.data === 'string'
				? (flatted(this.host).parse(data.data) as IRunDataLike)
				: data.data;
		return { ...data, data: runData };
	}

	/**
	 * "Execute workflow" in the editor (POST /rest/workflows/:id/run) from the workflow's manual trigger, or from the
	 * trigger named `trigger`: the new execution's id, at once. n8n 2.x runs the saved workflow; n8n 1.x wants it in
	 * the request as the editor sends it (workflowData, with its id).
	 */
	async startManualRun(workflowId: string, trigger?: string): Promise<string> {
		const needsWorkflow = this.host.line === '1' || trigger === undefined;
		const workflowData = needsWorkflow ? await this.getWorkflow(workflowId) : undefined;
		const name = trigger ?? manualTriggerOf(workflowData!);
		const started = await this.rest<{ executionId?: string }>(
			'POST',
			`/workflows/${encodeURIComponent(workflowId)}/run`,
			{
				triggerToStartFrom: { name },
				...(this.host.line === '1' ? { workflowData } : {}),
			},
		);
		if (!started.executionId)
			throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(started)}`);
		return started.executionId;
	}

	/** Waits until an execution has a final status (success, error, crashed, canceled); returns it with its run data. */
	async finishedExecution(executionId: string, timeoutMs = 180_000): Promise<ExecutionDetail> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			const execution = await this.getExecution(executionId);
			if (isFinalStatus(execution.status)) return execution;
			if (Date.now() > until)
				throw new Error(
					`execution ${executionId} still ${execution.status} after ${timeoutMs} ms\n${this.logTail(30)}`,
				);
			await delay(250);
		}
	}

	/**
	 * Runs a workflow as the editor's *Execute workflow* does, in this running n8n, and waits for its end: the
	 * execution with its run data (`status` is `success` when no error ended it).
	 */
	async runManually(
		workflowId: string,
		opts: { trigger?: string; timeoutMs?: number } = {},
	): Promise<ExecutionDetail> {
		return this.finishedExecution(
			await this.startManualRun(workflowId, opts.trigger),
			opts.timeoutMs,
		);
	}

	/** Waits until a workflow has at least `count` finished executions (then returns them, newest first). */
	async waitForExecutions(
		workflowId: string,
		count: number,
		timeoutMs = 60_000,
	): Promise<ExecutionSummary[]> {
		const started = Date.now();
		for (;;) {
			const list = (await this.listExecutions(workflowId)).filter(
				(e) => e.finished || e.stoppedAt || isFinalStatus(e.status),
			);
			if (list.length >= count) return list;
			if (Date.now() - started > timeoutMs) {
				throw new Error(
					`workflow ${workflowId}: ${list.length} finished execution(s) after ${timeoutMs} ms, wanted ${count}\n${this.logTail(30)}`,
				);
			}
			await delay(500);
		}
	}

	/** Polls a production webhook until it stops answering 404 (registration after activation). */
	async waitForWebhook(path: string, timeoutMs = 30_000, method = 'HEAD'): Promise<number> {
		const started = Date.now();
		for (;;) {
			const res = await fetch(`${this.baseUrl}/webhook/${path}`, { method });
			await res.arrayBuffer();
			if (res.status !== 404) return res.status;
			if (Date.now() - started > timeoutMs)
				throw new Error(`webhook /webhook/${path} still 404 after ${timeoutMs} ms`);
			await delay(300);
		}
	}

	/** Runs an n8n CLI command against this instance's user folder (on a broker port of its own). */
	async cli(args: string[], opts: { timeoutMs?: number } = {}): Promise<RunResult> {
		return n8nCli(this.host, args, {
			userFolder: this.userFolder,
			env: this.env,
			timeoutMs: opts.timeoutMs,
		});
	}
}

const isFinalStatus = (s: string) => ['success', 'error', 'crashed', 'canceled'].includes(s);

/** The name of a workflow's one manual trigger (the node *Execute workflow* starts from). */
function manualTriggerOf(workflow: WorkflowJson): string {
	const triggers = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (triggers.length !== 1)
		throw new Error(
			`workflow "${workflow.name}" has ${triggers.length} manual triggers: name the one to run from`,
		);
	return triggers[0].name;
}

const flattedModules = new Map<string, { parse: (s: string) => unknown }>();
function flatted(host: N8nHost): { parse: (s: string) => unknown } {
	// n8n stores run data in the flatted format; read it with that n8n's own copy of the library.
	let module = flattedModules.get(host.hostDir);
	if (!module) {
		module = createRequire(join(host.hostDir, 'node_modules', 'n8n', 'package.json'))(
			'flatted',
		) as { parse: (s: string) => unknown };
		flattedModules.set(host.hostDir, module);
	}
	return module;
}
