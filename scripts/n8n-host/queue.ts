/**
 * n8n in queue mode on this machine: Redis as the queue, PostgreSQL as the database, one main (`n8n start`:
 * editor, REST, triggers and pollers), `n8n worker` processes that execute, and `n8n webhook` processes that
 * receive production webhooks. Binary data in database mode (n8n 2.x's default in queue mode, set explicitly),
 * manual executions offloaded to the workers (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS), production webhooks
 * served only by the webhook processes (N8N_DISABLE_PRODUCTION_MAIN_PROCESS). All processes share one user
 * folder (the package installed once into its `.n8n/nodes`) and one encryption key, as n8n's own queue-mode
 * compose file shares one volume. Every listener is on a free loopback port: main and webhook HTTP ports, each
 * worker's health port, and one task-runner broker port per process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import {
	delay,
	ensureN8n,
	freePort,
	n8nEnv,
	startN8n,
	type ExecutionDetail,
	type N8nInstance,
	type Logger,
	type N8nHost,
	type N8nLine,
} from './index';
import { startPostgres, startRedis, type PostgresProcess, type ServiceProcess } from './services';

export type QueueRole = 'main' | 'worker' | 'webhook';

/** One n8n process of the stack. `instance.baseUrl` is its HTTP port (a worker's: its health server). */
export interface QueueProcess {
	role: QueueRole;
	name: string;
	instance: N8nInstance;
}

export interface QueueStackOptions {
	userFolder: string;
	workers?: number;
	webhooks?: number;
	/** Port of the main (editor); default: a free one. */
	mainPort?: number;
	/** Extra environment for every n8n process. */
	env?: NodeJS.ProcessEnv;
	/** The n8n line every process runs (default: 2.x). */
	line?: N8nLine;
	log?: Logger;
}

const defaultLog: Logger = (line) => process.stderr.write(`[queue] ${line}\n`);

/** Distinct free ports (freePort() may hand out one twice when asked back to back). */
async function freePorts(count: number, taken: Set<number>): Promise<number[]> {
	const ports: number[] = [];
	while (ports.length < count) {
		const p = await freePort();
		if (taken.has(p)) continue;
		taken.add(p);
		ports.push(p);
	}
	return ports;
}

export class QueueStack {
	readonly workers: QueueProcess[] = [];
	readonly webhooks: QueueProcess[] = [];
	main!: QueueProcess;
	private readonly ports = new Set<number>();
	private firstWebhookPort?: number;
	private stopping = false;

	private constructor(
		readonly host: N8nHost,
		readonly userFolder: string,
		readonly redis: ServiceProcess,
		readonly postgres: PostgresProcess,
		/** The queue-mode environment every n8n process of the stack shares. */
		readonly env: NodeJS.ProcessEnv,
		private readonly log: Logger,
	) {}

	/** Starts Redis, PostgreSQL, the main, the workers and the webhook processes, in that order. */
	static async start(o: QueueStackOptions): Promise<QueueStack> {
		const log = o.log ?? defaultLog;
		const host = await ensureN8n(log, o.line ?? '2');
		const redis = await startRedis({ log, logDir: o.userFolder });
		let postgres: PostgresProcess;
		try {
			postgres = await startPostgres({ log, logDir: o.userFolder });
		} catch (error) {
			await redis.stop();
			throw error;
		}
		const env: NodeJS.ProcessEnv = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
			N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
			...(o.env ?? {}),
		};
		const stack = new QueueStack(host, o.userFolder, redis, postgres, env, log);
		// The first webhook process's port is chosen now: every process gets it as N8N_WEBHOOK_URL (the editor shows it).
		if ((o.webhooks ?? 1) > 0) stack.firstWebhookPort = (await freePorts(1, stack.ports))[0];
		try {
			await stack.startMain(o.mainPort);
			// The main has migrated the database: the others start side by side.
			await Promise.all([
				...Array.from({ length: o.workers ?? 2 }, () => stack.startWorker()),
				...Array.from({ length: o.webhooks ?? 1 }, () => stack.startWebhook()),
			]);
		} catch (error) {
			await stack.stop();
			throw error;
		}
		return stack;
	}

	/** The production webhook base of the first webhook process (what a load balancer would route /webhook/ to). */
	get webhookBaseUrl(): string {
		return this.webhooks[0]?.instance.baseUrl ?? this.main.instance.baseUrl;
	}

	/** Environment of one process: the shared queue settings plus its own ports. */
	private processEnv(
		port: number,
		brokerPort: number,
		extra: NodeJS.ProcessEnv = {},
	): NodeJS.ProcessEnv {
		const webhookUrl = this.firstWebhookPort
			? `http://127.0.0.1:${this.firstWebhookPort}/`
			: undefined;
		return n8nEnv(this.host, {
			userFolder: this.userFolder,
			port,
			brokerPort,
			env: { ...this.env, ...(webhookUrl ? { N8N_WEBHOOK_URL: webhookUrl } : {}), ...extra },
		});
	}

	private async startMain(port?: number): Promise<QueueProcess> {
		if (port) this.ports.add(port);
		const [mainPort, brokerPort] = port
			? [port, ...(await freePorts(1, this.ports))]
			: await freePorts(2, this.ports);
		const instance = await startN8n({
			userFolder: this.userFolder,
			port: mainPort,
			brokerPort,
			env: this.processEnv(mainPort, brokerPort),
			line: this.host.line,
			log: this.log,
		});
		this.main = { role: 'main', name: 'main', instance };
		return this.main;
	}

	/** Stops the main and starts it again on the same port (same database, same queue); logs in again. */
	async restartMain(): Promise<N8nInstance> {
		const old = this.main.instance;
		const cookie = old.cookie;
		await old.stop();
		const brokerPort = (await freePorts(1, this.ports))[0];
		const instance = await startN8n({
			userFolder: this.userFolder,
			port: old.port,
			brokerPort,
			env: this.processEnv(old.port, brokerPort),
			line: this.host.line,
			log: this.log,
		});
		instance.cookie = cookie;
		this.main = { role: 'main', name: 'main', instance };
		return instance;
	}

	private async spawnProcess(role: 'worker' | 'webhook', name: string): Promise<QueueProcess> {
		const first = role === 'webhook' && name === 'webhook-1' && this.firstWebhookPort;
		const [port, brokerPort] = first
			? [this.firstWebhookPort!, ...(await freePorts(1, this.ports))]
			: await freePorts(2, this.ports);
		// A worker answers /healthz/readiness on its health server; a webhook process on its HTTP port.
		const extra: NodeJS.ProcessEnv =
			role === 'worker'
				? {
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					}
				: {};
		const instance = await startN8n({
			userFolder: this.userFolder,
			port,
			brokerPort,
			env: this.processEnv(port, brokerPort, extra),
			command: role,
			label: name,
			line: this.host.line,
			log: this.log,
		});
		return { role, name, instance };
	}

	private started = { worker: 0, webhook: 0 };

	async startWorker(): Promise<QueueProcess> {
		const p = await this.spawnProcess('worker', `worker-${++this.started.worker}`);
		this.workers.push(p);
		this.workers.sort((x, y) => x.name.localeCompare(y.name, 'en', { numeric: true }));
		return p;
	}

	async startWebhook(): Promise<QueueProcess> {
		const p = await this.spawnProcess('webhook', `webhook-${++this.started.webhook}`);
		this.webhooks.push(p);
		this.webhooks.sort((x, y) => x.name.localeCompare(y.name, 'en', { numeric: true }));
		return p;
	}

	/** Every n8n process of the stack (stopped ones included), main first. */
	get processes(): QueueProcess[] {
		return [this.main, ...this.workers, ...this.webhooks].filter(Boolean);
	}

	/** Ends a process the hard way (SIGKILL to its process group: n8n and its task runner), as a crash would. */
	async kill(p: QueueProcess): Promise<void> {
		try {
			process.kill(-p.instance.child.pid!, 'SIGKILL');
		} catch {
			/* already gone */
		}
		await p.instance.exited;
	}

	/** Which worker's log says it started this execution (`Worker started execution <id> (job …)`). */
	whoRan(executionId: string): string | undefined {
		const marker = `Worker started execution ${executionId} (job`;
		for (const w of this.workers) {
			try {
				if (readFileSync(w.instance.logFile, 'utf8').includes(marker)) return w.name;
			} catch {
				/* no log yet */
			}
		}
		return undefined;
	}

	/**
	 * Starts a workflow as the editor's "Execute workflow" button does (POST /rest/workflows/:id/run from its
	 * trigger); in queue mode the main enqueues it and a worker runs it. Resolves with the finished execution.
	 */
	async runManually(
		workflowId: string,
		triggerName: string,
		timeoutMs = 300_000,
	): Promise<ExecutionDetail & { worker?: string }> {
		const executionId = await this.main.instance.startManualRun(workflowId, triggerName);
		return this.waitForExecution(executionId, timeoutMs);
	}

	/** Waits until an execution has a final status; returns it with the worker that ran it. */
	async waitForExecution(
		executionId: string,
		timeoutMs = 300_000,
	): Promise<ExecutionDetail & { worker?: string }> {
		const main = this.main.instance;
		const started = Date.now();
		for (;;) {
			const summary = await main.rest<{
				status: string;
				finished: boolean;
				stoppedAt?: string | null;
			}>('GET', `/executions/${encodeURIComponent(executionId)}`);
			if (
				['success', 'error', 'crashed', 'canceled'].includes(summary.status) &&
				summary.stoppedAt
			) {
				const detail = await main.getExecution(executionId);
				return { ...detail, worker: this.whoRan(executionId) };
			}
			if (Date.now() - started > timeoutMs) {
				throw new Error(`execution ${executionId} still ${summary.status} after ${timeoutMs} ms`);
			}
			await delay(500);
		}
	}

	/** Stops every process it started: webhook processes, workers, main, then PostgreSQL and Redis. */
	async stop(): Promise<void> {
		if (this.stopping) return;
		this.stopping = true;
		const quiet = (p: Promise<unknown>) =>
			p.catch((e: unknown) => this.log(`stop: ${(e as Error).message}`));
		await Promise.all(this.webhooks.map((p) => quiet(p.instance.stop())));
		await Promise.all(this.workers.map((p) => quiet(p.instance.stop())));
		if (this.main) await quiet(this.main.instance.stop());
		await quiet(this.postgres.stop());
		await quiet(this.redis.stop());
	}
}
