/**
 * F4 with n8n's durable poll cursors on (n8n 2.x only; the 1.x line has no such setting, so this file runs on 2.x):
 * N8N_POLLER_DURABLE_CURSORS_ENABLED with what n8n 2.41.1 requires beside it (N8N_SCHEDULER_ENABLED,
 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE; n8n's PollCursorService keeps them
 * off otherwise and logs why). The feed trigger then keeps its position in n8n's poller_state table, committed
 * with each execution, instead of the workflow's static data. Measured in a real n8n with our package installed:
 * the position is in poller_state (read from n8n's own SQLite database), and events published across polls each
 * start exactly one delivery, none twice.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { FigureBook } from './figures';
import { delay, nodeOutput, type WorkflowJson } from '../../scripts/n8n-host';
import {
	bootRealN8n,
	FEED_POLL_TIMES,
	n8nUnderTest,
	NODE_TYPES,
	type RealN8n,
} from '../e2e/helpers';

const book = new FigureBook(
	'F4-durable',
	`The feed trigger with n8n's durable poll cursors on (F4; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball, durable poll cursors on) + sandbox process`,
);

/** What n8n 2.41.1 needs for durable poll cursors (packages/cli PollCursorService, durable-poller-chain). */
const DURABLE_CURSORS: Record<string, string> = {
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

let env: RealN8n;
let workflowId = '';
/** The feed reads counted once activation (and the poll n8n runs with it) returned. */
let readsAtActivation = 0;

interface Delivery {
	execution: string;
	ids: string[];
}

beforeAll(async () => {
	// The n8n processes take their environment from this one (scripts/n8n-host/node-runtime.ts).
	const before = Object.fromEntries(Object.keys(DURABLE_CURSORS).map((k) => [k, process.env[k]]));
	Object.assign(process.env, DURABLE_CURSORS);
	try {
		env = await bootRealN8n('faults-f4-durable');
	} finally {
		for (const [k, v] of Object.entries(before)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	}
	const wf: WorkflowJson = {
		name: `F4 durable feed ${randomBytes(3).toString('hex')}`,
		nodes: [
			{
				id: randomUUID(),
				name: 'Feed',
				type: NODE_TYPES.feed,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: FEED_POLL_TIMES,
					events: ['*'],
					startAt: 'now',
					filters: {},
					options: {},
				},
				credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
	workflowId = (await env.n8n.createWorkflow(wf)).id;
	await env.n8n.activateWorkflow(workflowId);
	readsAtActivation = await feedReads();
}, 300_000);

afterAll(async () => {
	book.save();
	await env?.close();
});

/** The rows n8n keeps in poller_state for the workflow, read with n8n's own sqlite3 on n8n's own Node. */
function pollerState(): Array<{ nodeId: string; cursor: string }> {
	const host = env.n8n.host;
	const script = `
		const sqlite3 = require(${JSON.stringify(join(host.hostDir, 'node_modules', 'sqlite3'))});
		const db = new sqlite3.Database(process.argv[1], sqlite3.OPEN_READONLY);
		db.all('SELECT * FROM poller_state WHERE workflowId = ?', [process.argv[2]], (err, rows) => {
			if (err) { console.error(err.message); process.exit(1); }
			console.log(JSON.stringify(rows));
		});`;
	const out = execFileSync(
		host.nodeBin,
		['-e', script, join(env.userFolder, '.n8n', 'database.sqlite'), workflowId],
		{ encoding: 'utf8' },
	);
	return JSON.parse(out) as Array<{ nodeId: string; cursor: string }>;
}

/** Every delivery of the feed so far: execution id and the event ids it carried. */
async function deliveries(): Promise<Delivery[]> {
	const found: Delivery[] = [];
	for (const e of await env.n8n.listExecutions(workflowId)) {
		if (!(e.finished || e.stoppedAt)) continue;
		const detail = await env.n8n.getExecution(e.id);
		const ids = nodeOutput(detail.data, 'Feed')
			.map((i) => i.id)
			.filter((id): id is string => typeof id === 'string');
		found.push({ execution: e.id, ids });
	}
	return found;
}

/** How many times the workspace's feed has been read (the sandbox's counters). */
async function feedReads(): Promise<number> {
	const counters = (await env.sandbox.control.counters(env.sandbox.seed.workspaceId)) as {
		requests?: Record<string, number>;
	};
	return counters.requests?.['GET /api/v1/events'] ?? 0;
}

/**
 * Waits (bounded) until a scheduled poll has read the feed: two reads in all, the poll n8n runs at activation (it may
 * read after the activation request has answered) and one scheduled after it, or one more than activation had
 * counted.
 */
async function scheduledPollRead(): Promise<void> {
	const until = Date.now() + 90_000;
	while ((await feedReads()) < Math.max(2, readsAtActivation + 1)) {
		if (Date.now() > until)
			throw new Error(`no scheduled poll read the feed within 90 s\n${env.n8n.logTail(40)}`);
		await delay(500);
	}
}

async function seed(count: number): Promise<string[]> {
	const wid = env.sandbox.seed.workspaceId;
	await env.sandbox.control.call('POST', `/_sandbox/workspaces/${wid}/events/seed`, { count });
	const res = await fetch(`${env.sandbox.baseUrl}/api/v1/events?limit=100`, {
		headers: { authorization: `Bearer ${env.sandbox.seed.apiKey}` },
	});
	const page = (await res.json()) as { data: { items: Array<{ id: string }> } };
	return page.data.items.slice(-count).map((e) => e.id);
}

async function waitDelivered(ids: string[], what: string): Promise<Delivery[]> {
	const until = Date.now() + 180_000;
	for (;;) {
		const all = await deliveries();
		const seen = new Set(all.flatMap((d) => d.ids));
		if (ids.every((id) => seen.has(id))) return all;
		if (Date.now() > until)
			throw new Error(`${what}: not delivered within 180 s\n${env.n8n.logTail(40)}`);
		await delay(3000);
	}
}

describe("F4: the feed trigger with n8n's durable poll cursors on", () => {
	it('keeps its position in poller_state and delivers events published across polls once each', async () => {
		const log = env.n8n.logTail(4000);
		book.check(
			'n8n did not refuse durable poll cursors (no "durable poll cursors stay disabled" line)',
			/durable poll cursors stay disabled/.test(log) ? 'refused' : 'accepted',
			!/durable poll cursors stay disabled/.test(log),
		);
		// A first scheduled poll sets the position at the end (Start From Now; the poll n8n runs at activation does not
		// keep a durable position), then events arrive in two rounds. Awaited as that poll's read of the feed.
		await scheduledPollRead();
		const first = await seed(3);
		const afterFirst = await waitDelivered(first, 'the first three events');
		const second = await seed(2);
		const all = await waitDelivered(second, 'the two later events');
		const delivered = all.flatMap((d) => d.ids);
		const counts = new Map<string, number>();
		for (const id of delivered) counts.set(id, (counts.get(id) ?? 0) + 1);
		const twice = [...counts.entries()].filter(([, n]) => n > 1).map(([id]) => id);
		const rows = pollerState();
		const stored = JSON.stringify((await env.n8n.getWorkflow(workflowId)) as unknown as object);
		book.set(
			'deliveries',
			all.map((d) => ({ execution: d.execution, events: d.ids.length })),
		);
		book.set('pollerStateRows', rows.length);
		book.set('pollerStateCursor', rows[0]?.cursor?.slice(0, 300) ?? null);
		book.set('workflowStaticDataHoldsTheLastEvent', stored.includes(second.at(-1)!));
		book.check(
			"the feed's position is in n8n's poller_state, at the last event delivered",
			`${rows.length} row(s)${rows[0] ? `: ${rows[0].cursor.slice(0, 160)}` : ''}`,
			rows.length === 1 && rows[0].cursor.includes(second.at(-1)!),
		);
		book.check(
			'each event published across the polls delivered exactly once',
			`${first.length + second.length} published, ${delivered.length} delivered, ${twice.length} twice; executions ${afterFirst.length} then ${all.length}`,
			[...first, ...second].every((id) => counts.get(id) === 1) && twice.length === 0,
		);
		expect(rows).toHaveLength(1);
		expect(rows[0].cursor).toContain(second.at(-1)!);
		expect(twice).toEqual([]);
		for (const id of [...first, ...second]) expect(counts.get(id)).toBe(1);
	}, 600_000);
});
