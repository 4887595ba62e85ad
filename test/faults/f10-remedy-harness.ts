/**
 * What the F10 files that run the PostgreSQL remedy (examples/webhook-each-event-once-postgres.json) share: signed
 * deliveries as the service makes them, captured requests resent byte for byte, and the count of effects per event
 * (every item the "Handle Event Once" step output in every run of every execution, an item without an event id
 * counted apart, so that a copy which carries no id is seen).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { Webhook } from 'standardwebhooks';

import { delay, type WorkflowJson } from '../../scripts/n8n-host';
import type { PostgresProcess } from '../../scripts/n8n-host/services';

export interface Answer {
	/** The statuses of every attempt, in order (a 503 is retried, as the service retries it). */
	statuses: number[];
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

/** Sends the same bytes again; what n8n answered. */
export async function resend(
	baseUrl: string,
	path: string,
	request: Captured,
): Promise<{ status: number; started: boolean }> {
	const res = await fetch(`${baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: request.headers,
		body: request.body,
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

/** One delivery as the service makes it: a fresh signature per attempt, 5xx retried (here after 1 s, at most 10). */
export async function deliver(
	secret: string,
	baseUrl: string,
	path: string,
	event: Record<string, unknown>,
): Promise<Answer> {
	const statuses: number[] = [];
	for (let attempt = 0; attempt < 10; attempt++) {
		const answer = await resend(baseUrl, path, signed(secret, event));
		statuses.push(answer.status);
		if (answer.status < 500) return { statuses, started: answer.started };
		await delay(1000);
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

export interface RunLike {
	resultData: {
		runData: Record<
			string,
			Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>
		>;
	};
}

/** Every item "Handle Event Once" output, over all its runs: effects per event id, and items without an id. */
export function effectsOf(runs: RunLike[]): { perEvent: Map<string, number>; withoutId: number } {
	const perEvent = new Map<string, number>();
	let withoutId = 0;
	for (const run of runs) {
		for (const r of run.resultData.runData['Handle Event Once'] ?? []) {
			for (const item of r.data?.main?.[0] ?? []) {
				const id = item.json.id;
				if (typeof id === 'string' && id !== '') perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
				else withoutId++;
			}
		}
	}
	return { perEvent, withoutId };
}
