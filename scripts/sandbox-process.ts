/**
 * The local sandbox as a child process (`node --import tsx sandbox/cli.ts --port N`, see sandbox/README.md), plus a small
 * client for its control endpoints (`/_sandbox/...`). Used by the main job and the real-n8n tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { REPO_ROOT, killGroupOnExit, settlesWithin, type Logger } from './n8n-host';

export interface SandboxSeed {
	baseUrl: string;
	apiKey: string;
	webhookSecret: string;
	jobDescriptionId: string;
	workspaceId: string;
}

export interface SandboxProcess {
	seed: SandboxSeed;
	baseUrl: string;
	control: SandboxControl;
	child: ChildProcess;
	stop(): Promise<void>;
}

/** Starts `npm run sandbox`'s program on loopback; resolves with the seed JSON it prints first. */
export async function startSandboxProcess(
	opts: {
		port?: number;
		logFile?: string;
		log?: Logger;
		timeoutMs?: number;
		extraArgs?: string[];
	} = {},
): Promise<SandboxProcess> {
	const args = [
		'--import',
		'tsx',
		join(REPO_ROOT, 'sandbox', 'cli.ts'),
		'--port',
		String(opts.port ?? 0),
		...(opts.extraArgs ?? []),
	];
	const child = spawn(process.execPath, args, {
		cwd: REPO_ROOT,
		env: { ...process.env, NODE_OPTIONS: '' },
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group: stop() ends the server and anything it started
	});
	killGroupOnExit(child);
	const out = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
	let stderr = '';
	child.stderr!.on('data', (c: Buffer) => {
		stderr += c.toString();
		out?.write(c);
	});
	const lines = createInterface({ input: child.stdout! });
	const seed = await new Promise<SandboxSeed>((resolveSeed, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`sandbox printed no seed line in time\n${stderr}`)),
			opts.timeoutMs ?? 60_000,
		);
		let first = true;
		lines.on('line', (line) => {
			out?.write(line + '\n');
			if (!first) return;
			first = false;
			clearTimeout(timer);
			try {
				resolveSeed(JSON.parse(line) as SandboxSeed);
			} catch {
				reject(new Error(`sandbox's first line is not the seed JSON: ${line}\n${stderr}`));
			}
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`sandbox exited (${code}) before printing its seed\n${stderr}`));
		});
	});
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	let stopped = false;
	return {
		seed,
		baseUrl: seed.baseUrl,
		control: new SandboxControl(seed.baseUrl),
		child,
		async stop() {
			if (stopped) return;
			stopped = true;
			if (child.exitCode !== null || child.signalCode !== null) return;
			try {
				process.kill(-child.pid!, 'SIGTERM');
			} catch {
				/* gone */
			}
			const done = await settlesWithin(exited, 5000);
			if (!done) {
				try {
					process.kill(-child.pid!, 'SIGKILL');
				} catch {
					/* gone */
				}
				await exited;
			}
			out?.end();
		},
	};
}

/** The sandbox's control endpoints (loopback only, no API key). */
export class SandboxControl {
	constructor(readonly baseUrl: string) {}

	async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const res = await fetch(`${this.baseUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (res.status >= 400)
			throw new Error(`sandbox ${method} ${path} -> ${res.status}: ${text.slice(0, 500)}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** A fresh workspace (its own key, secret and sample job), so tests never see each other's events. */
	createWorkspace(body: Record<string, unknown> = {}) {
		return this.call<{
			workspaceId: string;
			apiKey: string;
			webhookSecret: string;
			jobDescriptionId: string;
		}>('POST', '/_sandbox/workspaces', body);
	}

	registerWebhook(workspaceId: string, url: string, eventTypes?: string[]) {
		return this.call<{ id: string; secret: string }>(
			'POST',
			`/_sandbox/workspaces/${workspaceId}/webhook-endpoints`,
			{
				url,
				...(eventTypes ? { eventTypes } : {}),
			},
		);
	}

	deliveries(endpointId: string) {
		return this.call<{
			items: Array<{
				deliveryId: string;
				eventId: string;
				eventType: string;
				state: string;
				attempts: Array<{ status: number | null }>;
			}>;
		}>('GET', `/_sandbox/webhook-endpoints/${endpointId}/deliveries`);
	}

	interviewEvent(interviewId: string, type: string) {
		return this.call('POST', `/_sandbox/interviews/${interviewId}/events`, { type });
	}

	counters(workspaceId: string) {
		return this.call<Record<string, unknown>>(
			'GET',
			`/_sandbox/workspaces/${workspaceId}/counters`,
		);
	}
}
