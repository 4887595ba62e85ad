/**
 * B3: feed drain. 10,000 retained events (seeded through the sandbox control endpoint) read two ways in real n8n:
 *   - the action node, Event → Get Many with Return All (pages of 100 while hasMore), run once through a webhook;
 *   - the feed trigger from the oldest retained event at the largest per-poll cap it allows (5,000), pages of 100:
 *     the activation poll plus the next scheduled poll (n8n polls at most once a minute).
 * Requests come from the workspace's counters (GET /api/v1/events); time is the webhook round trip for Get
 * Many, and for the trigger the time spent inside each poll (first to last events request of each burst in the
 * sandbox's request log), plus the wall time including n8n's one-minute schedule. Every event must arrive once.
 */
import { delay, type N8nInstance } from '../../scripts/n8n-host';
import {
	credentialsFor,
	executionCount,
	publish,
	runWebhook,
	webhookPath,
	type Log,
} from '../lib/n8n';
import { counters, freshWorkspace, logSize, readLog, type BenchSandbox } from '../lib/sandbox';
import { median } from '../lib/stats';
import { eventGetMany, feedTrigger } from '../lib/workflows';

/** Median time between consecutive page responses (the client's time per page; the sandbox answers in < 1 ms). */
const medianGap = (times: number[]): number => median(times.slice(1).map((t, i) => t - times[i]));

export interface B3Result {
	events: number;
	floorRequests: number;
	getMany: {
		requests: number;
		wallMs: number;
		serverSpanMs: number;
		medianPageGapMs: number;
		eventsOut: number;
		distinct: number;
		ok: boolean;
		problem?: string;
	};
	trigger: {
		requests: number;
		polls: number;
		pollSpansMs: number[];
		medianPageGapMs: number;
		activeMs: number;
		wallMs: number;
		eventsOut: number;
		distinct: number;
		ok: boolean;
		problem?: string;
	};
}

const EVENTS_ROUTE = 'GET /api/v1/events';

/**
 * Splits the trigger's request times into its polls: a poll reads exactly `pagesPerPoll` full pages before it
 * stops at its cap (the next scheduled poll can follow at once, so gaps alone do not separate them). Returns
 * each poll's span, first to last response.
 */
function pollSpans(times: number[], pagesPerPoll: number): number[] {
	const spans: number[] = [];
	for (let i = 0; i < times.length; i += pagesPerPoll) {
		const group = times.slice(i, i + pagesPerPoll);
		spans.push(group[group.length - 1] - group[0]);
	}
	return spans;
}

export async function runB3(o: {
	n8n: N8nInstance;
	sb: BenchSandbox;
	events: number;
	log: Log;
}): Promise<B3Result> {
	const { n8n, sb } = o;
	const ws = await freshWorkspace(sb);
	await sb.control.call('POST', `/_sandbox/workspaces/${ws.workspaceId}/events/seed`, {
		count: o.events,
	});
	const creds = await credentialsFor(n8n, sb.baseUrl, ws);

	// Action node, Get Many (Return All).
	const path = webhookPath('b3-getmany');
	const wfId = await publish(n8n, eventGetMany({ path, creds }));
	let c0 = await counters(sb, ws.workspaceId);
	let offset = logSize(sb);
	const run = await runWebhook(n8n, path, 10 * 60_000);
	let c1 = await counters(sb, ws.workspaceId);
	await n8n.deactivateWorkflow(wfId);
	let times = readLog(sb, offset)
		.lines.filter((l) => l.method === 'GET' && l.path === '/api/v1/events')
		.map((l) => l.at);
	let out: { events?: number; distinct?: number } = {};
	try {
		out = JSON.parse(run.body) as typeof out;
	} catch {
		/* reported below */
	}
	const getManyRequests = (c1.requests[EVENTS_ROUTE] ?? 0) - (c0.requests[EVENTS_ROUTE] ?? 0);
	const getManyProblem =
		run.status !== 200
			? `webhook answered ${run.status}: ${run.body.slice(0, 300)}`
			: out.events !== o.events || out.distinct !== o.events
				? `${out.events} events (${out.distinct} distinct), wanted ${o.events}`
				: undefined;
	const getMany = {
		requests: getManyRequests,
		wallMs: Math.round(run.ms),
		serverSpanMs: times.length ? times[times.length - 1] - times[0] : 0,
		medianPageGapMs: medianGap(times),
		eventsOut: out.events ?? 0,
		distinct: out.distinct ?? 0,
		ok: !getManyProblem,
		problem: getManyProblem,
	};
	o.log(
		`B3 Get Many: ${getMany.requests} requests, ${getMany.wallMs} ms, ${getMany.eventsOut} events${getManyProblem ? `, PROBLEM: ${getManyProblem}` : ''}`,
	);

	// Feed trigger: activation poll + next scheduled poll.
	const maxEventsPerPoll = 5000;
	const polls = Math.ceil(o.events / maxEventsPerPoll);
	c0 = await counters(sb, ws.workspaceId);
	offset = logSize(sb);
	const t0 = Date.now();
	const feedId = await publish(
		n8n,
		feedTrigger({ name: `bench B3 feed ${path}`, creds, maxEventsPerPoll }),
	);
	let executions = 0;
	const deadline = Date.now() + (polls * 60 + 60) * 1000;
	while (Date.now() < deadline) {
		executions = await executionCount(n8n, feedId);
		if (executions >= polls) break;
		await delay(500);
	}
	const wallMs = Date.now() - t0;
	await n8n.deactivateWorkflow(feedId);
	c1 = await counters(sb, ws.workspaceId);
	times = readLog(sb, offset)
		.lines.filter((l) => l.method === 'GET' && l.path === '/api/v1/events')
		.map((l) => l.at);
	const spans = pollSpans(times, maxEventsPerPoll / 100);
	// Every emitted event, from the executions' data.
	const ids: string[] = [];
	const list = await n8n.listExecutions(feedId);
	for (const e of list) {
		const detail = await n8n.getExecution(e.id);
		const runs = detail.data.resultData.runData['Event Feed'] ?? [];
		for (const r of runs)
			for (const item of r.data?.main?.[0] ?? [])
				if (typeof item.json.id === 'string') ids.push(item.json.id);
	}
	const distinct = new Set(ids).size;
	const triggerRequests = (c1.requests[EVENTS_ROUTE] ?? 0) - (c0.requests[EVENTS_ROUTE] ?? 0);
	const triggerProblem =
		executions < polls
			? `${executions} executions after the time limit, wanted ${polls}`
			: ids.length !== o.events || distinct !== o.events
				? `${ids.length} events (${distinct} distinct), wanted ${o.events}`
				: undefined;
	const trigger = {
		requests: triggerRequests,
		polls: spans.length,
		pollSpansMs: spans,
		medianPageGapMs: median(
			spans.length
				? times.flatMap((t, i) => (i % (maxEventsPerPoll / 100) === 0 ? [] : [t - times[i - 1]]))
				: [],
		),
		activeMs: spans.reduce((a, b) => a + b, 0),
		wallMs,
		eventsOut: ids.length,
		distinct,
		ok: !triggerProblem,
		problem: triggerProblem,
	};
	o.log(
		`B3 feed trigger: ${trigger.requests} requests in ${trigger.polls} polls, active ${trigger.activeMs} ms, ${trigger.eventsOut} events${triggerProblem ? `, PROBLEM: ${triggerProblem}` : ''}`,
	);
	return { events: o.events, floorRequests: Math.ceil(o.events / 100), getMany, trigger };
}
