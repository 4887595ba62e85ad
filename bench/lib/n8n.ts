/**
 * A real n8n for the benchmarks, built from the harness in scripts/n8n-host/: a fresh user folder with the
 * packed package installed as a community package, `n8n start` on loopback with the environment a benchmark
 * needs (binary-data mode, the folder the Read/Write Files node may read), the owner login, and helpers to run a
 * workflow through a production webhook and to read the n8n process's memory from /proc.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Agent, request } from 'undici';

import {
	createUserFolder,
	delay,
	installCommunityPackage,
	startN8n,
	uniqueSuffix,
	type N8nInstance,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import { QueueStack } from '../../scripts/n8n-host/queue';
import type { Workspace } from './sandbox';

export { NODE_TYPES } from '../../scripts/n8n-host';

export type Log = (line: string) => void;

export async function bootN8n(opts: {
	label: string;
	tarball: string;
	binaryMode: 'filesystem' | 'default';
	filesDir: string;
	log: Log;
	/** More environment for the n8n process (e.g. NODE_OPTIONS for a CPU profile). */
	env?: NodeJS.ProcessEnv;
}): Promise<N8nInstance> {
	const userFolder = createUserFolder(opts.label);
	await installCommunityPackage(opts.tarball, userFolder, { log: opts.log });
	const n8n = await startN8n({
		userFolder,
		log: opts.log,
		env: {
			N8N_DEFAULT_BINARY_DATA_MODE: opts.binaryMode,
			N8N_RESTRICT_FILE_ACCESS_TO: opts.filesDir,
			// Keep n8n's own log quiet: the benchmark measures the work, not log formatting.
			N8N_LOG_LEVEL: 'warn',
			EXECUTIONS_DATA_PRUNE: 'false',
			...opts.env,
		},
	});
	try {
		await n8n.setupOwner();
	} catch (error) {
		await n8n.stop();
		throw error;
	}
	return n8n;
}

/** n8n in queue mode for B2: one worker (measured) and one webhook process, binary data in PostgreSQL. */
export async function bootQueueN8n(opts: {
	label: string;
	tarball: string;
	filesDir: string;
	log: Log;
}): Promise<QueueStack> {
	const userFolder = createUserFolder(opts.label);
	await installCommunityPackage(opts.tarball, userFolder, { log: opts.log });
	const stack = await QueueStack.start({
		userFolder,
		workers: 1,
		webhooks: 1,
		log: opts.log,
		env: {
			N8N_RESTRICT_FILE_ACCESS_TO: opts.filesDir,
			N8N_LOG_LEVEL: 'warn',
			EXECUTIONS_DATA_PRUNE: 'false',
		},
	});
	try {
		await stack.main.instance.setupOwner();
	} catch (error) {
		await stack.stop();
		throw error;
	}
	return stack;
}

/** Credentials for one sandbox workspace: ours, and the header-auth one an HTTP Request workflow uses. */
export interface BoundCredentials {
	recruitingAnalysisApi: { id: string; name: string };
	recruitingAnalysisSigningSecretApi: { id: string; name: string };
	httpHeaderAuth: { id: string; name: string };
}

export async function credentialsFor(
	n8n: N8nInstance,
	baseUrl: string,
	ws: Workspace,
): Promise<BoundCredentials> {
	const tag = ws.workspaceId.slice(-6);
	return {
		recruitingAnalysisApi: await n8n.createCredential({
			name: `RA ${tag}`,
			type: 'recruitingAnalysisApi',
			data: { environment: 'sandbox', baseUrl, apiKey: ws.apiKey },
		}),
		recruitingAnalysisSigningSecretApi: await n8n.createCredential({
			name: `RA secret ${tag}`,
			type: 'recruitingAnalysisSigningSecretApi',
			data: { secret: ws.webhookSecret },
		}),
		httpHeaderAuth: await n8n.createCredential({
			name: `RA header ${tag}`,
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${ws.apiKey}` },
		}),
	};
}

/** Creates and publishes a workflow; returns its id. */
export async function publish(n8n: N8nInstance, wf: WorkflowJson): Promise<string> {
	const created = await n8n.createWorkflow(wf);
	await n8n.activateWorkflow(created.id);
	return created.id;
}

/**
 * Calls a production webhook whose workflow answers when its last node finishes; returns the wall time.
 * A 404 (registration not visible yet) started nothing, so it is retried (bounded). The answer may take longer than
 * fetch's own 300 s wait for headers (B7), so the request goes through an undici agent given `timeoutMs` instead.
 */
export async function runWebhook(
	n8n: N8nInstance,
	path: string,
	timeoutMs: number,
): Promise<{ ms: number; status: number; body: string }> {
	const agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
	try {
		for (let attempt = 0; attempt < 50; attempt++) {
			const started = performance.now();
			const res = await request(`${n8n.baseUrl}/webhook/${path}`, {
				method: 'POST',
				dispatcher: agent,
			});
			const body = await res.body.text();
			const elapsed = performance.now() - started;
			if (res.statusCode !== 404) return { ms: elapsed, status: res.statusCode, body };
			await delay(200);
		}
		throw new Error(`webhook ${path} still 404 after 50 tries`);
	} finally {
		await agent.close();
	}
}

export const webhookPath = (label: string): string => `bench-${label}-${uniqueSuffix()}`;

/** Resident memory of a process in bytes (VmRSS) and its high-water mark (VmHWM), from /proc. */
export function procMemory(pid: number): { rss: number; hwm: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (name: string) =>
		Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
	return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resets the kernel's peak-RSS counter (VmHWM) of a process: `echo 5 > /proc/<pid>/clear_refs`. */
export function resetPeak(pid: number): boolean {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

/** The n8n main process: the node child of `n8n start` (its pid is the group leader the harness spawned). */
export function n8nPid(n8n: N8nInstance): number {
	return n8n.child.pid!;
}

/** Version of the installed n8n, read from its package.json. */
export function n8nPackageVersion(n8n: N8nInstance): string {
	return (
		JSON.parse(
			readFileSync(join(n8n.host.hostDir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		) as { version: string }
	).version;
}

/** Finished executions of a workflow (count from n8n's REST list). */
export async function executionCount(n8n: N8nInstance, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const data = await n8n.rest<{ count: number; results: unknown[] }>(
		'GET',
		`/executions?filter=${filter}&limit=1`,
	);
	return data.count;
}
