/**
 * F3 and F4 in a real n8n, 2.41.1 and 1.123.81 (our tarball installed as a community package, see test/e2e/helpers.ts),
 * because the behaviour depends on n8n: its production webhook server, the persistence of node static data between
 * webhook requests and between polls, and its poller.
 *
 * F3: the Recruiting Analysis Trigger at n8n's production URL. A table of forged deliveries (each 401, no
 *     execution); duplicates (sandbox replays, a captured request sent again, concurrent copies), out-of-order
 *     deliveries and a late event for an older attempt. Measured: executions per event id, the delayed-event flag.
 * F4: the Feed Trigger polling four times a minute (FEED_POLL_TIMES in test/e2e/helpers.ts). The sandbox clock
 *     moves past the 30-day retention while unread events exist (410 EVENT_CURSOR_EXPIRED), then the sandbox
 *     workspace is reset (keys revoked, events erased). Measured:
 *     the gap notice, recovery, executions per poll and error executions (no crash loop).
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { Webhook } from 'standardwebhooks';

import { FigureBook } from './figures';
import { makePdf } from '../fixtures/resumes';
import {
	delay,
	nodeOutput,
	type ExecutionSummary,
	type WorkflowJson,
} from '../../scripts/n8n-host';
import {
	bootRealN8n,
	FEED_POLL_TIMES,
	n8nLineUnderTest,
	n8nUnderTest,
	NODE_TYPES,
	POLLS_PER_MINUTE,
	type RealN8n,
} from '../e2e/helpers';

// Runs once per n8n line (a jest project each); each line has its own section of the report.
const book = new FigureBook(
	n8nLineUnderTest() === '2' ? 'F3-F4' : `F3-F4-n8n${n8nLineUnderTest()}`,
	`Webhooks and the event feed in a real n8n (F3, F4; ${n8nUnderTest()})`,
	`real ${n8nUnderTest()} (community package from the tarball) + sandbox process`,
);
let env: RealN8n;
let apiKey = '';
const webhook = { workflowId: '', path: '', url: '', endpointId: '' };
const feed = { workflowId: '', activatedAt: 0 };
const DAY = 24 * 60 * 60 * 1000;

type Json = ReturnType<typeof JSON.parse>;

async function sbApi(
	method: string,
	path: string,
	body?: unknown,
	idempotencyKey?: string,
): Promise<{ status: number; body: Json }> {
	const res = await fetch(`${env.sandbox.baseUrl}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${apiKey}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
			...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Arranges a report through the API (not the subject here): prepare, PUT, quote, start. Returns ids. */
async function analyze(
	outcome: 'completed' | 'failed',
	candidate: string,
): Promise<{ reportId: string; attemptId: string }> {
	const pdf = makePdf({ candidate, outcome });
	const prep = await sbApi(
		'POST',
		'/api/v1/uploads',
		{
			fileName: 'cv.pdf',
			fileSize: pdf.length,
			mimeType: 'application/pdf',
			jobDescription: { kind: 'existing', id: env.sandbox.seed.jobDescriptionId },
		},
		`f3-prep-${randomUUID()}`,
	);
	if (prep.status !== 201) throw new Error(`prepare: ${prep.status} ${JSON.stringify(prep.body)}`);
	const put = await fetch(prep.body.data.upload.url, {
		method: 'PUT',
		headers: { 'content-type': 'application/pdf' },
		body: pdf,
	});
	if (put.status !== 200) throw new Error(`put: ${put.status}`);
	return { reportId: prep.body.data.reportId, attemptId: await start(prep.body.data.reportId) };
}

async function start(reportId: string): Promise<string> {
	const quote = await sbApi('POST', '/api/v1/analysis-quotes', { reportId });
	const started = await sbApi(
		'POST',
		'/api/v1/analyses',
		{ reportId, quoteFingerprint: quote.body.data.fingerprint },
		`f3-start-${randomUUID()}`,
	);
	if (started.status !== 202)
		throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
	return started.body.data.attemptId;
}

async function waitStatus(reportId: string, attemptId: string): Promise<string> {
	for (let i = 0; i < 400; i++) {
		const s = await sbApi('GET', `/api/v1/reports/${reportId}/status`);
		if (
			s.body?.data?.attemptId === attemptId &&
			['completed', 'failed', 'requires_action'].includes(s.body.data.status)
		)
			return s.body.data.status;
		await delay(50);
	}
	throw new Error(`report ${reportId} attempt ${attemptId} not terminal`);
}

/** Events of the feed about one report (no cursor: the retained list from the oldest). */
async function eventsOf(reportId: string): Promise<Array<Record<string, Json>>> {
	const page = await sbApi('GET', `/api/v1/events?limit=100&reportId=${reportId}`);
	return page.body.data.items;
}

/** Signs like the service (Standard Webhooks) and posts to n8n's production URL. */
function signedHeaders(
	secret: string,
	msgId: string,
	at: Date,
	body: string,
): Record<string, string> {
	return {
		'content-type': 'application/json',
		'webhook-id': msgId,
		'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
		'webhook-signature': new Webhook(secret).sign(msgId, at, body),
	};
}
async function post(
	headers: Record<string, string>,
	body: string,
): Promise<{ status: number; text: string }> {
	const res = await fetch(webhook.url, { method: 'POST', headers, body });
	return { status: res.status, text: await res.text() };
}
async function deliver(event: Record<string, Json>): Promise<number> {
	const body = JSON.stringify(event);
	return (
		await post(
			signedHeaders(env.sandbox.seed.webhookSecret, `msg_${randomUUID()}`, new Date(), body),
			body,
		)
	).status;
}

interface Started {
	executionId: string;
	status: string;
	event: Record<string, Json>;
}
/** Every execution of the webhook workflow with the event its trigger emitted. */
const seenExecutions = new Map<string, Started>();
async function webhookExecutions(): Promise<Started[]> {
	const list: ExecutionSummary[] = await env.n8n.listExecutions(webhook.workflowId);
	for (const e of list) {
		if (seenExecutions.has(e.id) || !(e.finished || e.stoppedAt)) continue;
		const detail = await env.n8n.getExecution(e.id);
		seenExecutions.set(e.id, {
			executionId: e.id,
			status: e.status,
			event: nodeOutput(detail.data, 'Trigger')[0] ?? {},
		});
	}
	return [...seenExecutions.values()];
}
async function executionsFor(eventId: string, settleMs = 2500): Promise<Started[]> {
	await delay(settleMs);
	return (await webhookExecutions()).filter((s) => s.event.id === eventId);
}
async function waitExecutionFor(eventId: string, timeoutMs = 30_000): Promise<Started> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const found = (await webhookExecutions()).find((s) => s.event.id === eventId);
		if (found) return found;
		if (Date.now() > until)
			throw new Error(`no execution for event ${eventId}\n${env.n8n.logTail(20)}`);
		await delay(500);
	}
}

function triggerWorkflow(): WorkflowJson {
	return {
		name: `F3 webhook trigger ${randomBytes(3).toString('hex')}`,
		nodes: [
			{
				id: randomUUID(),
				name: 'Trigger',
				type: NODE_TYPES.trigger,
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { events: ['*'], fetchResource: true, options: {} },
				credentials: {
					recruitingAnalysisSigningSecretApi: env.credentials.recruitingAnalysisSigningSecretApi,
					recruitingAnalysisApi: env.credentials.recruitingAnalysisApi,
				},
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
}

function feedWorkflow(): WorkflowJson {
	return {
		name: `F4 feed trigger ${randomBytes(3).toString('hex')}`,
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
}

beforeAll(async () => {
	env = await bootRealN8n('faults-f3-f4');
	apiKey = env.sandbox.seed.apiKey;
	// The feed workflow first: it polls four times a minute (FEED_POLL_TIMES) while F3 runs.
	const fwf = feedWorkflow();
	feed.workflowId = (await env.n8n.createWorkflow(fwf)).id;
	await env.n8n.activateWorkflow(feed.workflowId);
	feed.activatedAt = Date.now();

	const wf = triggerWorkflow();
	webhook.workflowId = (await env.n8n.createWorkflow(wf)).id;
	await env.n8n.activateWorkflow(webhook.workflowId);
	webhook.path = `${String(wf.nodes[0].webhookId)}/webhook`;
	webhook.url = `${env.n8n.baseUrl}/webhook/${webhook.path}`;
	await env.n8n.waitForWebhook(webhook.path, 30_000, 'POST');
	const endpoint = await env.sandbox.control.registerWebhook(
		env.sandbox.seed.workspaceId,
		webhook.url,
	);
	webhook.endpointId = endpoint.id;
}, 300_000);

afterAll(async () => {
	book.save();
	await env?.close();
}, 120_000);

describe('F3: webhooks at the production URL of a real n8n', () => {
	it('forged deliveries: each one answered 401, none starts an execution', async () => {
		const before = (await webhookExecutions()).length;
		const secret = env.sandbox.seed.webhookSecret;
		const foreign = `whsec_${randomBytes(32).toString('base64')}`;
		const event = {
			id: randomUUID(),
			type: 'report.completed',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { reportId: 'rpt_forged', attemptId: 'att_forged', status: 'completed', code: null },
		};
		const body = JSON.stringify(event);
		const now = new Date();
		const genuine = (id = 'msg_forged_1', at = now, b = body) => signedHeaders(secret, id, at, b);
		const without = (h: Record<string, string>, name: string) =>
			Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));
		const table: Array<{ forgery: string; headers: Record<string, string>; body: string }> = [
			{ forgery: 'no signature headers', headers: { 'content-type': 'application/json' }, body },
			{
				forgery: 'signed with a foreign secret',
				headers: signedHeaders(foreign, 'msg_forged_2', now, body),
				body,
			},
			{
				forgery: 'body changed after signing',
				headers: genuine('msg_forged_3'),
				body: body.replace('rpt_forged', 'rpt_changed'),
			},
			{
				forgery: 're-serialised body (whitespace)',
				headers: genuine('msg_forged_4'),
				body: JSON.stringify(event, null, 1),
			},
			{
				forgery: 'timestamp 6 minutes old',
				headers: genuine('msg_forged_5', new Date(now.getTime() - 6 * 60_000)),
				body,
			},
			{
				forgery: 'timestamp 6 minutes ahead',
				headers: genuine('msg_forged_6', new Date(now.getTime() + 6 * 60_000)),
				body,
			},
			{
				forgery: 'webhook-id swapped after signing',
				headers: { ...genuine('msg_forged_7'), 'webhook-id': 'msg_other' },
				body,
			},
			{
				forgery: 'webhook-timestamp changed after signing',
				headers: {
					...genuine('msg_forged_8'),
					'webhook-timestamp': String(Math.floor(now.getTime() / 1000) + 1),
				},
				body,
			},
			{
				forgery: 'signature under version v2',
				headers: {
					...genuine('msg_forged_9'),
					'webhook-signature': genuine('msg_forged_9')['webhook-signature'].replace('v1,', 'v2,'),
				},
				body,
			},
			{
				forgery: 'garbage signature',
				headers: { ...genuine('msg_forged_10'), 'webhook-signature': 'v1,AAAA' },
				body,
			},
			{
				forgery: 'missing webhook-timestamp',
				headers: without(genuine('msg_forged_11'), 'webhook-timestamp'),
				body,
			},
			{
				forgery: 'missing webhook-id',
				headers: without(genuine('msg_forged_12'), 'webhook-id'),
				body,
			},
			{
				forgery: 'non-numeric timestamp',
				headers: { ...genuine('msg_forged_13'), 'webhook-timestamp': 'yesterday' },
				body,
			},
			{
				forgery: 'signed with the signature secret without whsec_ decoding',
				headers: (() => {
					const raw = new Webhook(Buffer.from(secret).toString('base64')).sign(
						'msg_forged_14',
						now,
						body,
					);
					return { ...genuine('msg_forged_14'), 'webhook-signature': raw };
				})(),
				body,
			},
		];
		const results: Array<{ forgery: string; status: number; reason: string | null }> = [];
		for (const row of table) {
			const r = await post(row.headers, row.body);
			let reason: string | null = null;
			try {
				reason = JSON.parse(r.text)?.error?.reason ?? null;
			} catch {
				reason = null;
			}
			results.push({ forgery: row.forgery, status: r.status, reason });
		}
		const started = (await executionsFor(event.id, 3000)).length;
		const after = (await webhookExecutions()).length;
		book.set('forgedDeliveries', results);
		book.set('forgedExecutionsStarted', after - before);
		book.check(
			`forged deliveries answered 401 (${table.length} kinds)`,
			`${results.filter((r) => r.status === 401).length}/${table.length}`,
			results.every((r) => r.status === 401),
		);
		book.check(
			'executions started by forged deliveries',
			after - before,
			after - before === 0 && started === 0,
		);
		for (const r of results)
			expect({ forgery: r.forgery, status: r.status }).toEqual({ forgery: r.forgery, status: 401 });
		expect(after - before).toBe(0);
	});

	it('duplicates: sandbox replays, a captured request sent again and concurrent copies give one execution per event id', async () => {
		// A genuine delivery from the service (sandbox), then two manual replays of it (same event id).
		const test = await env.sandbox.control.call<{ deliveryId: string; eventId: string }>(
			'POST',
			`/_sandbox/webhook-endpoints/${webhook.endpointId}/test`,
		);
		await waitExecutionFor(test.eventId);
		for (let i = 0; i < 2; i++)
			await env.sandbox.control.call('POST', `/_sandbox/deliveries/${test.deliveryId}/replay`);
		// A captured genuine request posted again byte for byte (an attacker's or a proxy's replay within tolerance).
		const captured = {
			id: randomUUID(),
			type: 'webhook.test',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { test: true },
		};
		const capturedBody = JSON.stringify(captured);
		const capturedHeaders = signedHeaders(
			env.sandbox.seed.webhookSecret,
			`msg_${randomUUID()}`,
			new Date(),
			capturedBody,
		);
		const first = await post(capturedHeaders, capturedBody);
		await waitExecutionFor(captured.id);
		const again = await post(capturedHeaders, capturedBody);
		// Retries of one event arriving at once: five copies, each freshly signed with its own webhook-id.
		const burst = {
			id: randomUUID(),
			type: 'webhook.test',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { test: true },
		};
		const burstStatuses = await Promise.all(
			Array.from({ length: 5 }, async () => await deliver(burst)),
		);
		// Sequential retries of another event: three copies one after another.
		const sequential = {
			id: randomUUID(),
			type: 'webhook.test',
			schemaVersion: 1,
			occurredAt: new Date().toISOString(),
			data: { test: true },
		};
		const sequentialStatuses: number[] = [];
		for (let i = 0; i < 3; i++) {
			sequentialStatuses.push(await deliver(sequential));
			await delay(300);
		}
		await delay(4000);
		const deliveries = await env.sandbox.control.deliveries(webhook.endpointId);
		const replayed = deliveries.items.filter((d) => d.eventId === test.eventId);
		const counts = {
			sandboxDeliveryPlusTwoReplays: (await executionsFor(test.eventId, 0)).length,
			capturedRequestSentTwice: (await executionsFor(captured.id, 0)).length,
			fiveConcurrentCopies: (await executionsFor(burst.id, 0)).length,
			threeSequentialCopies: (await executionsFor(sequential.id, 0)).length,
		};
		book.set('duplicates.executionsPerEventId', counts);
		book.set(
			'duplicates.sandboxDeliveriesOfTestEvent',
			replayed.map((d) => `${d.state}:${d.attempts.at(-1)?.status ?? 'none'}`),
		);
		book.set('duplicates.statuses', {
			capturedFirst: first.status,
			capturedAgain: again.status,
			burst: burstStatuses,
			sequential: sequentialStatuses,
		});
		for (const [k, v] of Object.entries(counts))
			book.check(`one execution per event id: ${k}`, v, v === 1);
		if (Object.values(counts).some((v) => v > 1)) {
			const stored = await env.n8n.getWorkflow(webhook.workflowId);
			book.set(
				'duplicates.triggerStaticDataAfterDuplicates',
				JSON.stringify((stored as unknown as { staticData?: unknown }).staticData ?? null).slice(
					0,
					400,
				),
			);
			book.note(
				'Finding F3-a: in n8n 2.41.1 production webhooks, every copy of an event id started an execution. The event ids the trigger ' +
					'remembers in node static data (webhook/dedupe.ts via getWorkflowStaticData in RecruitingAnalysisTrigger.node.ts webhook()) ' +
					'are not there on the next request: the stored workflow staticData holds only `registration` (figure duplicates.triggerStaticDataAfterDuplicates). ' +
					'Dedupe by event id therefore does not work in a real n8n; the engine harness persists static data itself, so the node tests do not see it.',
			);
		}
		expect(replayed).toHaveLength(3);
		expect(replayed.every((d) => d.attempts.at(-1)?.status === 200)).toBe(true);
		expect(again.status).toBe(200);
		// A copy that arrives while the first is still in flight is answered 503 so that the sender retries it
		// (docs/triggers.md); every copy is acknowledged or retryable, and one of them was acknowledged.
		expect({
			acknowledgedOrRetryable: burstStatuses.every((s) => s === 200 || s === 503),
			acknowledged: burstStatuses.filter((s) => s === 200).length >= 1,
		}).toEqual({ acknowledgedOrRetryable: true, acknowledged: true });
		expect(counts.sandboxDeliveryPlusTwoReplays).toBe(1);
		expect(counts.capturedRequestSentTwice).toBe(1);
		expect(counts.threeSequentialCopies).toBe(1);
		expect(counts.fiveConcurrentCopies).toBe(1);
	});

	it('out-of-order deliveries and a late event for an older attempt (flagged as delayed)', async () => {
		// Hold the service's deliveries (paused endpoint) while the events are produced.
		await env.sandbox.control.call('PATCH', `/_sandbox/webhook-endpoints/${webhook.endpointId}`, {
			paused: true,
		});
		const done = await analyze('completed', 'Out Of Order');
		await waitStatus(done.reportId, done.attemptId);
		const failed = await analyze('failed', 'Late Attempt');
		await waitStatus(failed.reportId, failed.attemptId);
		const secondAttempt = await start(failed.reportId);
		await waitStatus(failed.reportId, secondAttempt);
		await delay(300);
		const doneEvents = await eventsOf(done.reportId);
		const completedEvent = doneEvents.find((e) => e.type === 'report.completed')!;
		const readyEvent = doneEvents.find((e) => e.type === 'report.result_ready')!;
		const failedEvents = (await eventsOf(failed.reportId)).filter(
			(e) => e.type === 'report.failed',
		);
		const lateEvent = failedEvents.find((e) => e.data.attemptId === failed.attemptId)!;
		const currentEvent = failedEvents.find((e) => e.data.attemptId === secondAttempt)!;
		expect(completedEvent && readyEvent && lateEvent && currentEvent).toBeTruthy();

		// Out of order: result_ready arrives before completed.
		const orderStatuses = [await deliver(readyEvent), await deliver(completedEvent)];
		// Then the service's held deliveries go out (same event ids: each is a duplicate now), then the late event.
		await env.sandbox.control.call('PATCH', `/_sandbox/webhook-endpoints/${webhook.endpointId}`, {
			paused: false,
		});
		const late = await waitExecutionFor(lateEvent.id);
		const current = await waitExecutionFor(currentEvent.id);
		await delay(2000);
		const counts = {
			resultReadyBeforeCompleted: (await executionsFor(readyEvent.id, 0)).length,
			completedAfterResultReady: (await executionsFor(completedEvent.id, 0)).length,
			lateFailedOlderAttempt: (await executionsFor(lateEvent.id, 0)).length,
			failedCurrentAttempt: (await executionsFor(currentEvent.id, 0)).length,
		};
		book.set('outOfOrder.statuses', orderStatuses);
		book.set('outOfOrder.executionsPerEventId', counts);
		book.set('lateEvent', {
			eventAttemptId: String(lateEvent.data.attemptId),
			currentAttemptId: secondAttempt,
			delayedEvent: (late.event.delayedEvent as boolean | undefined) ?? null,
			attemptCheck: (late.event.attemptCheck as Json) ?? null,
		});
		book.set(
			'currentEvent.delayedEvent',
			(current.event.delayedEvent as boolean | undefined) ?? null,
		);
		book.check(
			'out-of-order: both events start exactly one execution each',
			counts,
			Object.values(counts).every((n) => n === 1),
		);
		book.check(
			'late report.failed for the older attempt flagged delayedEvent: true',
			(late.event.delayedEvent as boolean | undefined) ?? null,
			late.event.delayedEvent === true,
		);
		book.check(
			'event for the current attempt not flagged',
			(current.event.delayedEvent as boolean | undefined) ?? null,
			current.event.delayedEvent === false,
		);
		expect(orderStatuses).toEqual([200, 200]);
		for (const n of Object.values(counts)) expect(n).toBe(1);
		expect(late.event.delayedEvent).toBe(true);
		expect(current.event.delayedEvent).toBe(false);
	});

	it('over the whole run: no event id started more than one execution, and none failed', async () => {
		const all = await webhookExecutions();
		const perId = new Map<string, number>();
		for (const s of all) perId.set(String(s.event.id), (perId.get(String(s.event.id)) ?? 0) + 1);
		const doubled = [...perId.entries()].filter(([, n]) => n > 1);
		const statuses: Record<string, number> = {};
		for (const s of all) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
		book.set('webhookExecutionsTotal', all.length);
		book.set('webhookDistinctEventIds', perId.size);
		book.set('webhookExecutionStatuses', statuses);
		book.check(
			'executions = distinct event ids (exactly one per event id)',
			`${all.length} executions / ${perId.size} ids`,
			doubled.length === 0,
		);
		expect(doubled).toEqual([]);
		expect(all.every((s) => s.status === 'success')).toBe(true);
	});
});

describe('F4: the feed trigger in a real n8n across cursor expiry and a sandbox reset', () => {
	interface FeedRun {
		id: string;
		status: string;
		startedAt: string;
		items: Array<Record<string, Json>>;
		/** The error of a failed poll: n8n's message and description, as the execution stores them. */
		error: string;
	}
	const feedSeen = new Map<string, FeedRun>();
	async function feedRuns(): Promise<FeedRun[]> {
		for (const e of await env.n8n.listExecutions(feed.workflowId)) {
			if (feedSeen.has(e.id) || !(e.finished || e.stoppedAt)) continue;
			const detail = await env.n8n.getExecution(e.id);
			// A poll that failed has no startedAt (n8n records only when it stopped).
			feedSeen.set(e.id, {
				id: e.id,
				status: e.status,
				startedAt: e.startedAt ?? e.stoppedAt ?? '',
				items: nodeOutput(detail.data, 'Feed'),
				error: [
					detail.data.resultData.error?.message,
					detail.data.resultData.error?.description,
					...Object.values(detail.data.resultData.runData).flatMap((runs) =>
						runs.map((r) => r.error?.message ?? ''),
					),
				]
					.filter(Boolean)
					.join(' · '),
			});
		}
		return [...feedSeen.values()].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
	}
	async function waitFeed(
		predicate: (r: FeedRun) => boolean,
		what: string,
		timeoutMs = 150_000,
	): Promise<FeedRun> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			const hit = (await feedRuns()).find(predicate);
			if (hit) return hit;
			if (Date.now() > until)
				throw new Error(`feed: ${what} not seen within ${timeoutMs} ms\n${env.n8n.logTail(30)}`);
			await delay(2000);
		}
	}

	it('the feed delivers the events published after activation', async () => {
		const marker = await analyze('completed', 'Feed Marker');
		await waitStatus(marker.reportId, marker.attemptId);
		const run = await waitFeed(
			(r) =>
				r.items.some(
					(i) => (i.data as { reportId?: string } | undefined)?.reportId === marker.reportId,
				),
			'the marker report events',
		);
		book.set('feed.firstRunWithMarker', { items: run.items.length, status: run.status });
		expect(run.status).toBe('success');
	}, 200_000);

	it('cursor expiry: unread events pushed past the 30-day retention give a gap notice, then the feed continues', async () => {
		const runsBefore = (await feedRuns()).length;
		// Unread events, then the clock moves 31 days: they leave retention before the next poll reads them.
		const missed = await analyze('completed', 'Missed While Down');
		await waitStatus(missed.reportId, missed.attemptId);
		await env.sandbox.control.call('POST', '/_sandbox/clock/advance', { ms: 31 * DAY });
		const gapRun = await waitFeed(
			(r) => r.items.some((i) => i.notice === 'EVENT_CURSOR_EXPIRED'),
			'the EVENT_CURSOR_EXPIRED notice',
		);
		const notice = gapRun.items.find((i) => i.notice === 'EVENT_CURSOR_EXPIRED')!;
		// After the notice, new events still arrive.
		const after = await analyze('completed', 'After Gap');
		await waitStatus(after.reportId, after.attemptId);
		const next = await waitFeed(
			(r) =>
				r.items.some(
					(i) => (i.data as { reportId?: string } | undefined)?.reportId === after.reportId,
				),
			'events after the gap',
		);
		const runs = await feedRuns();
		book.set('gap.notice', {
			notice: String(notice.notice),
			eventsMayBeMissedSince: String(notice.eventsMayBeMissedSince),
			resumedFrom: String(notice.resumedFrom),
			message: String(notice.message),
		});
		book.set(
			'gap.missedReportEventsDelivered',
			runs.some((r) =>
				r.items.some(
					(i) => (i.data as { reportId?: string } | undefined)?.reportId === missed.reportId,
				),
			),
		);
		book.set('gap.runsBetween', runs.length - runsBefore);
		book.check(
			'cursor expiry reported as a gap notice (EVENT_CURSOR_EXPIRED) in a successful execution',
			gapRun.status,
			gapRun.status === 'success',
		);
		book.check('feed continues after the gap', next.status, next.status === 'success');
		expect(gapRun.status).toBe('success');
		expect(String(notice.message)).toMatch(/missed/);
		expect(next.status).toBe('success');
	}, 400_000);

	it('sandbox reset: a poll meets the revoked key, the key is replaced in the credential, the feed recovers; no crash loop', async () => {
		const reset = await env.sandbox.control.call<{ apiKey: string }>(
			'POST',
			`/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/reset`,
		);
		const revokedAt = Date.now();
		// The reset revoked the key n8n holds: let a poll run with it (as after a real reset), then rotate. Awaited
		// (bounded) as the poll's failed execution; when none comes, the claims below say so.
		await waitFeed(
			(r) => Date.parse(r.startedAt) >= revokedAt && r.status !== 'success',
			'a poll with the revoked key',
			60_000,
		).catch(() => undefined);
		const duringRevoked = (await feedRuns()).filter((r) => Date.parse(r.startedAt) >= revokedAt);
		const logLines = env.n8n.logTail(2000).split('\n');
		const revokedLogLines = logLines.filter((l) =>
			/invalid, expired or revoked|401 UNAUTHORIZED/.test(l),
		);
		// The precondition of everything below: a poll did meet the revoked key (its execution failed on the 401).
		const metRevokedKey = duringRevoked.filter(
			(r) =>
				r.status !== 'success' && /invalid, expired or revoked|401|UNAUTHORIZED/i.test(r.error),
		);
		const wfAfterRevoked = await env.n8n.getWorkflow(feed.workflowId);
		apiKey = reset.apiKey;
		const rotatedAt = Date.now();
		const cred = env.credentials.recruitingAnalysisApi;
		await env.n8n.request('PATCH', `/rest/credentials/${cred.id}`, {
			name: cred.name,
			type: 'recruitingAnalysisApi',
			data: { environment: 'sandbox', baseUrl: env.sandbox.baseUrl, apiKey },
		});
		const fresh = await analyze('completed', 'After Reset');
		await waitStatus(fresh.reportId, fresh.attemptId);
		const recovered = await waitFeed(
			(r) =>
				r.items.some(
					(i) => (i.data as { reportId?: string } | undefined)?.reportId === fresh.reportId,
				),
			'events after the reset',
		);
		const runs = await feedRuns();
		const minutes = (Date.now() - feed.activatedAt) / 60_000;
		const scheduledPolls = Math.ceil(minutes * POLLS_PER_MINUTE);
		const errors = runs.filter((r) => r.status !== 'success');
		const errorsOutsideRevokedWindow = errors.filter(
			(r) => Date.parse(r.startedAt) < revokedAt || Date.parse(r.startedAt) > rotatedAt,
		);
		const wfState = await env.n8n.getWorkflow(feed.workflowId);
		book.set(
			'reset.executionsWhileKeyRevoked',
			duringRevoked.map((r) => ({
				status: r.status,
				items: r.items.length,
				error: r.error.slice(0, 200),
			})),
		);
		book.set('reset.n8nLogLinesAboutTheRevokedKey', revokedLogLines.length);
		book.set('reset.sampleLogLine', (revokedLogLines[0] ?? '').slice(0, 300));
		book.set('reset.workflowActiveWhileKeyRevoked', wfAfterRevoked.active);
		book.set('reset.recoveredRunStatus', recovered.status);
		book.set('feed.executions', runs.length);
		book.set('feed.errorExecutions', errors.length);
		book.set('feed.minutesActive', Math.round(minutes * 10) / 10);
		book.set('feed.workflowStillActive', wfState.active);
		book.set(
			'feed.runs',
			runs.map((r) => ({
				startedAt: r.startedAt,
				status: r.status,
				items: r.items.length,
				notices: r.items.filter((i) => i.notice).length,
			})),
		);
		book.check(
			'a poll met the revoked key: its execution failed with the 401 of the revoked key',
			`${metRevokedKey.length} of ${duringRevoked.length} poll(s) after the reset${metRevokedKey[0] ? `: ${metRevokedKey[0].error.slice(0, 160)}` : ''}`,
			metRevokedKey.length >= 1,
		);
		book.check(
			'the workflow stays active while the key is revoked (no deactivation, no tight retry loop)',
			`active=${String(wfAfterRevoked.active)}, runs while revoked: ${duringRevoked.length}`,
			wfAfterRevoked.active === true && duringRevoked.length <= 2,
		);
		book.check(
			'feed recovers after the sandbox reset (new key) and delivers new events',
			recovered.status,
			recovered.status === 'success',
		);
		book.check(
			`no crash loop: executions ≤ scheduled polls (${POLLS_PER_MINUTE} a minute) + 1, errors only while the key was revoked`,
			`${runs.length} runs in ${minutes.toFixed(1)} min, ${errors.length} error(s), ${errorsOutsideRevokedWindow.length} outside the revoked window`,
			runs.length <= scheduledPolls + 1 &&
				errorsOutsideRevokedWindow.length === 0 &&
				errors.length <= 2,
		);
		expect(metRevokedKey.length).toBeGreaterThanOrEqual(1);
		expect(wfAfterRevoked.active).toBe(true);
		expect(duringRevoked.length).toBeLessThanOrEqual(2);
		expect(recovered.status).toBe('success');
		expect(runs.length).toBeLessThanOrEqual(scheduledPolls + 1);
		expect(errorsOutsideRevokedWindow).toEqual([]);
		expect(errors.length).toBeLessThanOrEqual(2);
		expect(wfState.active).toBe(true);
	}, 400_000);
});
