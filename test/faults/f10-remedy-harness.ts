/**
 * What the F10 files that run the PostgreSQL remedy (examples/webhook-each-event-once-postgres.json) share: signed
 * deliveries as the service makes them, captured requests resent byte for byte, and the count of effects per event
 * (every item the "Handle Event Once" step output in every run of every execution, an item without an event id
 * counted apart, so that a copy which carries no id is seen), and every execution of a workflow as n8n's PostgreSQL
 * database holds it (n8n's REST list stops at 100).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { Webhook } from 'standardwebhooks';

import { delay, type N8nInstance, type WorkflowJson } from '../../scripts/n8n-host';
import type { PostgresProcess } from '../../scripts/n8n-host/services';
import { FEED_POLL_TIMES, NODE_TYPES } from '../e2e/helpers';

/** What one attempt got: n8n's status, or no answer within the sender's deadline, or no connection at all. */
export type AttemptOutcome = number | 'timeout' | 'network error';

export interface Answer {
	/** Every attempt's outcome, in order (a 5xx, a timeout and a network error are retried, as the service does). */
	statuses: AttemptOutcome[];
	started: boolean;
}

/** A signed request, kept to be sent again exactly as it was. */
export interface Captured {
	headers: Record<string, string>;
	body: string;
}

export function signed(secret: string, event: Record<string, unknown>): Captured {
	const body = JSON.stringify(event);
	const now = new Date();
	const id = `msg_${randomUUID()}`;
	return {
		headers: {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': new Webhook(secret).sign(id, now, body),
		},
		body,
	};
}

/** Sends the same bytes again; what n8n answered (`timeoutMs`: the sender's deadline, as the service's ten seconds). */
export async function resend(
	baseUrl: string,
	path: string,
	request: Captured,
	timeoutMs?: number,
): Promise<{ status: number; started: boolean }> {
	const res = await fetch(`${baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: request.headers,
		body: request.body,
		...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
	});
	const text = await res.text();
	let started = false;
	try {
		started = (JSON.parse(text) as { started?: unknown }).started === true;
	} catch {
		started = false;
	}
	return { status: res.status, started };
}

/**
 * One delivery as the service makes it: a fresh signature per attempt, a 5xx, a timeout or a network error retried
 * (here after `retryAfterMs`, 1 s by default, instead of the service's minutes; at most `attempts`, 10 by default).
 * `baseUrl` may name the process of each attempt (a balancer's choice). `timeoutMs`: the sender's deadline (none by
 * default).
 */
export async function deliver(
	secret: string,
	baseUrl: string | ((attempt: number) => string),
	path: string,
	event: Record<string, unknown>,
	o: { attempts?: number; timeoutMs?: number; retryAfterMs?: number } = {},
): Promise<Answer> {
	const statuses: AttemptOutcome[] = [];
	for (let attempt = 0; attempt < (o.attempts ?? 10); attempt++) {
		const url = typeof baseUrl === 'string' ? baseUrl : baseUrl(attempt);
		try {
			const answer = await resend(url, path, signed(secret, event), o.timeoutMs);
			statuses.push(answer.status);
			if (answer.status < 500) return { statuses, started: answer.started };
		} catch (error) {
			const name = (error as Error).name;
			statuses.push(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network error');
		}
		await delay(o.retryAfterMs ?? 1000);
	}
	return { statuses, started: false };
}

export function newEvent(): Record<string, unknown> {
	return {
		id: randomUUID(),
		type: 'webhook.test',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { test: true },
	};
}

export function psql(pg: PostgresProcess, sql: string): string {
	return execFileSync(
		join(pg.binDir, 'psql'),
		['-h', '127.0.0.1', '-p', String(pg.port), '-U', pg.user, '-d', pg.database, '-tAc', sql],
		{ encoding: 'utf8' },
	).trim();
}

export const TABLE = 'recruiting_analysis_event_once';

/** The example's knobs, shortened for a test: how long a claim lasts (in both statements that read it), and how long a
 * waiting copy waits. */
export function shortenClaim(wf: WorkflowJson, claimSeconds: number, waitSeconds: number): void {
	for (const name of ['Claim Event', 'Resume Expired Claims']) {
		const node = wf.nodes.find((n) => n.name === name)!;
		const query = String(node.parameters.query);
		if (!query.includes("interval '5 minutes'"))
			throw new Error(`${name}: the claim no longer lasts 5 minutes`);
		node.parameters.query = query.replace(
			"interval '5 minutes'",
			`interval '${claimSeconds} seconds'`,
		);
	}
	const wait = wf.nodes.find((n) => n.name === 'Wait, Then Ask Again')!;
	wait.parameters.amount = waitSeconds;
}

/** Resume Expired Claims every `seconds` instead of every minute (the example's schedule), for a test that waits on it. */
export function resumeExpiredEvery(wf: WorkflowJson, seconds: number): void {
	const node = wf.nodes.find((n) => n.name === 'Every Minute')!;
	const rule = JSON.stringify(node.parameters.rule);
	if (rule !== JSON.stringify({ interval: [{ field: 'minutes', minutesInterval: 1 }] }))
		throw new Error(`Every Minute: the schedule is no longer every minute (${rule})`);
	node.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: seconds }] };
}

/**
 * A slow step (n8n's Wait, `seconds`) where the user's steps go, between the claim's verdict and "Handle Event Once",
 * so that the process running the execution can be killed after the claim and before the effect.
 */
export function slowStepAfterClaim(wf: WorkflowJson, seconds: number): void {
	wf.nodes.push({
		id: randomUUID(),
		name: 'Slow Step',
		type: 'n8n-nodes-base.wait',
		typeVersion: 1.1,
		position: [550, -200],
		webhookId: randomUUID(),
		parameters: { amount: seconds },
	});
	const connections = wf.connections as Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
	connections['First Claim?'].main[0] = [{ node: 'Slow Step', type: 'main', index: 0 }];
	wf.connections['Slow Step'] = { main: [[{ node: 'Handle Event Once', type: 'main', index: 0 }]] };
}

export interface RunLike {
	resultData: {
		runData: Record<
			string,
			Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>
		>;
	};
}

/**
 * Every item a node ("Handle Event Once" by default: the example's effect) output, over all its runs: effects per
 * event id, and items without an id.
 */
export function effectsOf(
	runs: RunLike[],
	node = 'Handle Event Once',
): { perEvent: Map<string, number>; withoutId: number } {
	const perEvent = new Map<string, number>();
	let withoutId = 0;
	for (const run of runs) {
		for (const r of run.resultData.runData[node] ?? []) {
			for (const item of r.data?.main?.[0] ?? []) {
				const id = item.json.id;
				if (typeof id === 'string' && id !== '') perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
				else withoutId++;
			}
		}
	}
	return { perEvent, withoutId };
}

export interface ExecutionRow {
	id: string;
	status: string;
	stopped: boolean;
}

/** Every execution of a workflow, as n8n's PostgreSQL database holds it (queue mode), oldest first. */
export function allExecutions(pg: PostgresProcess, workflowId: string): ExecutionRow[] {
	const out = psql(
		pg,
		`SELECT id, status, "stoppedAt" IS NOT NULL FROM execution_entity WHERE "workflowId" = '${workflowId}' ORDER BY id`,
	);
	return out
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const [id, status, stopped] = line.split('|');
			return { id, status, stopped: stopped === 't' };
		});
}

/** Every finished execution of a workflow in n8n's PostgreSQL database, with its run data (read through n8n). */
export async function finishedRuns(
	n8n: N8nInstance,
	pg: PostgresProcess,
	workflowId: string,
): Promise<Array<{ id: string; status: string; data: RunLike }>> {
	const runs: Array<{ id: string; status: string; data: RunLike }> = [];
	for (const ex of allExecutions(pg, workflowId)) {
		if (!ex.stopped) continue;
		const detail = await n8n.getExecution(ex.id);
		runs.push({ id: ex.id, status: ex.status, data: detail.data as unknown as RunLike });
	}
	return runs;
}

/** Waits until a workflow has at least `count` executions and none is still running or waiting. */
export async function settle(
	pg: PostgresProcess,
	workflowId: string,
	count: number,
	timeoutMs: number,
): Promise<void> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const list = allExecutions(pg, workflowId);
		if (list.length >= count && list.every((e) => e.stopped)) return;
		if (Date.now() > end)
			throw new Error(
				`${list.length} executions, ${list.filter((e) => !e.stopped).length} unfinished`,
			);
		await delay(2000);
	}
}

/** n8n's PostgreSQL credential for the remedy's database. */
export async function postgresCredential(
	n8n: N8nInstance,
	pg: PostgresProcess,
	name: string,
): Promise<{ id: string; name: string }> {
	return await n8n.createCredential({
		name,
		type: 'postgres',
		data: {
			host: '127.0.0.1',
			port: pg.port,
			database: pg.database,
			user: pg.user,
			password: '',
			ssl: 'disable',
			maxConnections: 20,
			allowUnauthorizedCerts: false,
		},
	});
}

/** A Feed Trigger reading every event from the oldest, for a workflow that also holds the webhook trigger. */
export function feedNode(
	credentials: WorkflowJson['nodes'][number]['credentials'],
): WorkflowJson['nodes'][number] {
	return {
		id: randomUUID(),
		name: 'Feed',
		type: NODE_TYPES.feed,
		typeVersion: 1,
		position: [0, -220],
		parameters: {
			pollTimes: FEED_POLL_TIMES,
			events: ['*'],
			startAt: 'oldest',
			filters: {},
			options: {},
		},
		credentials,
	};
}
