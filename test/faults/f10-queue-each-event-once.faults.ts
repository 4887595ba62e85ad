/**
 * F10 in queue mode: each webhook event handled once with the n8n-native remedy that docs/triggers.md ("Where the
 * trigger alone stops holding") prescribes, the example examples/webhook-each-event-once-postgres.json, in a real
 * n8n 2.x queue stack (Redis, PostgreSQL, the main, one worker, two webhook processes; scripts/n8n-host/queue.ts).
 *
 * The trigger alone cannot promise one execution per event across two webhook processes (each process's copy of an
 * event starts before the other's is stored) nor across the 30-day replay window (static data holds at most 10,000
 * ids and is saved whole). The example's PostgreSQL step (one atomic INSERT … ON CONFLICT DO NOTHING) lets exactly
 * one execution per event id through to the steps after it. Measured here: simultaneous copies at both processes,
 * an interleaved burst with redeliveries, and replays of every event after the trigger's own memory is gone (its
 * static data cleared, as an overwrite by another process or a Feed Trigger would); then a Feed Trigger beside the
 * webhook trigger in the same workflow, both given the same events.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { Webhook } from 'standardwebhooks';

import { FigureBook } from './figures';
import { delay, nodeOutput } from '../../scripts/n8n-host';
import {
	bootRealN8n,
	FEED_POLL_TIMES,
	n8nUnderTest,
	NODE_TYPES,
	triggerPath,
	type RealN8n,
} from '../e2e/helpers';

const book = new FigureBook(
	'F10-queue',
	`Every webhook event once in queue mode with two webhook processes, with the PostgreSQL step of the example (F10; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} queue mode (main, 1 worker, 2 webhook processes, Redis, PostgreSQL) + sandbox process`,
);
let env: RealN8n;
const TABLE = 'recruiting_analysis_event_once';

function psql(sql: string): string {
	const pg = env.stack!.postgres;
	return execFileSync(
		join(pg.binDir, 'psql'),
		['-h', '127.0.0.1', '-p', String(pg.port), '-U', pg.user, '-d', pg.database, '-tAc', sql],
		{ encoding: 'utf8' },
	).trim();
}

interface Answer {
	/** The statuses of every attempt, in order (a 503 is retried, as the service retries it). */
	statuses: number[];
	started: boolean;
}

/** One delivery as the service makes it: a fresh signature per attempt, 5xx retried (here after 1 s, at most 10). */
async function deliver(
	baseUrl: string,
	path: string,
	event: Record<string, unknown>,
): Promise<Answer> {
	const body = JSON.stringify(event);
	const statuses: number[] = [];
	for (let attempt = 0; attempt < 10; attempt++) {
		const now = new Date();
		const id = `msg_${randomUUID()}`;
		const res = await fetch(`${baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': id,
				'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
				'webhook-signature': new Webhook(env.sandbox.seed.webhookSecret).sign(id, now, body),
			},
			body,
		});
		const text = await res.text();
		statuses.push(res.status);
		if (res.status < 500) {
			let started = false;
			try {
				started = (JSON.parse(text) as { started?: unknown }).started === true;
			} catch {
				started = false;
			}
			return { statuses, started };
		}
		await delay(1000);
	}
	return { statuses, started: false };
}

/** A seeded pseudo-random sequence, so a failing interleaving can be run again. */
function random(seed: number): () => number {
	let s = seed;
	return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

beforeAll(async () => {
	env = await bootRealN8n('f10-queue', { queue: { workers: 1, webhooks: 2 } });
}, 600_000);

afterAll(async () => {
	try {
		book.save();
	} finally {
		await env?.close();
	}
});

it('two webhook processes, simultaneous copies, an interleaved burst with redeliveries and replays: the steps after the PostgreSQL step run once per event id', async () => {
	const stack = env.stack!;
	const pg = stack.postgres;
	const postgres = await env.n8n.createCredential({
		name: 'F10 queue PostgreSQL',
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
	const { id, wf } = await env.importExample('webhook-each-event-once-postgres.json', (w) => {
		for (const node of w.nodes)
			if (node.credentials?.postgres) node.credentials.postgres = postgres;
	});
	// The table the example's daily branch creates; made here with that branch's own statement.
	const setup = wf.nodes.find((n) => n.name === 'Create Table, Drop Ids Past 30 Days')!;
	psql(String(setup.parameters.query));
	await env.n8n.activateWorkflow(id);
	const path = triggerPath(wf);
	for (const p of stack.webhooks) await p.instance.waitForWebhook(path, 60_000, 'POST');
	const [w1, w2] = stack.webhooks.map((p) => p.instance.baseUrl);

	const event = () => ({
		id: randomUUID(),
		type: 'webhook.test',
		schemaVersion: 1,
		occurredAt: new Date().toISOString(),
		data: { test: true },
	});
	const answers: Answer[] = [];
	// (1) Ten events, each at both processes at the same moment.
	const simultaneous = Array.from({ length: 10 }, event);
	for (const e of simultaneous)
		answers.push(...(await Promise.all([deliver(w1, path, e), deliver(w2, path, e)])));
	// (2) Fifteen events at random processes, each redelivered once or twice within two seconds, interleaved.
	const burst = Array.from({ length: 15 }, event);
	const rand = random(11);
	const sends: Array<Promise<void>> = [];
	for (const e of burst) {
		const copies = 2 + Math.floor(rand() * 2);
		for (let k = 0; k < copies; k++) {
			const at = k === 0 ? rand() * 500 : rand() * 2000;
			const target = rand() < 0.5 ? w1 : w2;
			sends.push(
				new Promise((resolve) => setTimeout(resolve, at)).then(async () => {
					answers.push(await deliver(target, path, e));
				}),
			);
		}
	}
	await Promise.all(sends);
	// (3) Replays of every event, after the trigger's own memory is gone: its static data emptied in n8n's database
	// (what an overwrite by another webhook process or a Feed Trigger's save does) and each replay sent to the other
	// process than the event's first copy would be (both are tried).
	psql(`UPDATE workflow_entity SET "staticData" = NULL WHERE id = '${id}'`);
	const all = [...simultaneous, ...burst];
	for (const e of all) answers.push(await deliver(rand() < 0.5 ? w1 : w2, path, e));

	const started = answers.filter((a) => a.started).length;
	const finalStatuses = [...new Set(answers.map((a) => a.statuses.at(-1)!))].sort();
	const retried = answers.flatMap((a) => a.statuses.slice(0, -1));
	book.set('deliveries', answers.length);
	book.set('finalStatuses', finalStatuses);
	book.set('retriedAttempts', { count: retried.length, statuses: [...new Set(retried)].sort() });
	book.set('executionsStarted', started);
	const executions = await env.n8n.waitForExecutions(id, started, 300_000);
	const handled = new Map<string, number>();
	const failed: string[] = [];
	for (const ex of executions) {
		const run = await env.n8n.getExecution(ex.id);
		for (const item of nodeOutput(run.data, 'Handle Event Once')) {
			const eventId = String(item.id);
			handled.set(eventId, (handled.get(eventId) ?? 0) + 1);
		}
		if (ex.status !== 'success')
			failed.push(`${ex.id}: ${run.data.resultData.error?.message ?? ex.status}`);
	}
	const perEvent = all.map((e) => handled.get(e.id) ?? 0);
	const rows = Number(psql(`SELECT count(*) FROM ${TABLE}`));
	book.set('distinctEvents', all.length);
	book.set('executions', executions.length);
	book.set('failedExecutions', failed);
	book.set('handledPerEvent', { min: Math.min(...perEvent), max: Math.max(...perEvent) });
	book.set('tableRows', rows);
	const once = book.check(
		'every event id reached the steps after the PostgreSQL step exactly once (simultaneous copies at two webhook processes, redeliveries, replays after the static data was lost)',
		{
			events: all.length,
			handledOnce: perEvent.filter((n) => n === 1).length,
			executions: executions.length,
		},
		perEvent.every((n) => n === 1),
	);
	const answered = book.check(
		'every delivery ended with 200 (a 503 for a copy in flight is retried, as the service does)',
		finalStatuses,
		finalStatuses.length === 1 && finalStatuses[0] === 200,
	);
	const clean = book.check('no execution failed', failed.length, failed.length === 0);
	expect({ once, answered, clean, rows }).toEqual({
		once: true,
		answered: true,
		clean: true,
		rows: all.length,
	});
}, 900_000);

it('a Feed Trigger beside the webhook trigger in one workflow is refused at activation, naming the webhook trigger', async () => {
	const { id } = await env.importExample('webhook-each-event-once-postgres.json', (w) => {
		w.nodes.push({
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
			credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
		});
		w.connections.Feed = { main: [[{ node: 'First Delivery Only', type: 'main', index: 0 }]] };
	});
	const refusal = await env.n8n.activateWorkflow(id).then(
		() => 'activated',
		(error: Error) => error.message,
	);
	const active = (await env.n8n.getWorkflow(id)).active;
	book.set('bothTriggers.activation', refusal.slice(0, 300));
	const refused = book.check(
		"a workflow holding both the Feed Trigger and the webhook trigger is refused at activation (each would overwrite the other's static data)",
		{ refusal: refusal.slice(0, 200), active },
		/also holds the Recruiting Analysis Trigger "Recruiting Analysis Trigger"; the Feed Trigger refuses to run in the same workflow/.test(
			refusal,
		) && !active,
	);
	expect(refused).toBe(true);
}, 300_000);
