/**
 * Webhook delivery to a local receiver (a node http server started here), verified with the
 * standardwebhooks package: signing, subscriptions, retries, Retry-After, timeouts, redirects, the
 * inbox and its receiver modes, replay, secret rotation and webhook.test.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
	startTestSandbox,
	useTestSandbox,
	waitFor,
	type DeliveryView,
	type TestSandbox,
} from '../helpers/sandbox';
import { completedReport, newWs, type Ws } from './setup';

interface Received {
	headers: IncomingMessage['headers'];
	body: string;
	at: number;
}
type Behaviour = (
	n: number,
	req: IncomingMessage,
) => { status: number; headers?: Record<string, string>; delayMs?: number };

class Receiver {
	server!: Server;
	received: Received[] = [];
	behaviour: Behaviour = () => ({ status: 200 });
	url = '';
	async start(): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				this.received.push({
					headers: req.headers,
					body: Buffer.concat(chunks).toString('utf8'),
					at: Date.now(),
				});
				const b = this.behaviour(this.received.length, req);
				setTimeout(() => {
					if (res.destroyed) return;
					res.writeHead(b.status, b.headers ?? {});
					res.end('ignored body');
				}, b.delayMs ?? 0);
			});
		});
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
		return this;
	}
	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((r) => this.server.close(r));
	}
}

let sb: TestSandbox;
const receivers: Receiver[] = [];
// Registered first, so it runs before the afterAll that closes the sandbox.
afterAll(async () => {
	for (const r of receivers) await r.stop();
});
useTestSandbox((started) => (sb = started), {
	// A deadline a receiver in this process meets even on a loaded machine (the first test counts one attempt per
	// delivery), and that the timeout tests still pass quickly.
	sandbox: { webhookTimeScale: 0.000001, webhookDeadlineMs: 1500 },
});

async function receiver(): Promise<Receiver> {
	const r = await new Receiver().start();
	receivers.push(r);
	return r;
}

function headersOf(r: Received): Record<string, string> {
	return {
		'webhook-id': String(r.headers['webhook-id']),
		'webhook-timestamp': String(r.headers['webhook-timestamp']),
		'webhook-signature': String(r.headers['webhook-signature']),
	};
}

async function deliveriesSettled(endpointId: string, count: number): Promise<DeliveryView[]> {
	return waitFor(async () => {
		const items = (await sb.control.deliveries(endpointId)).items;
		return items.length >= count && items.every((d) => d.state !== 'pending') ? items : undefined;
	}, 8000);
}

async function setup(
	eventTypes?: string[],
): Promise<{ w: Ws; rx: Receiver; endpointId: string; secret: string }> {
	const w = await newWs(sb);
	const rx = await receiver();
	const ep = await sb.control.addWebhookEndpoint(w.workspaceId, {
		url: rx.url,
		...(eventTypes ? { eventTypes } : {}),
	});
	return { w, rx, endpointId: ep.id, secret: ep.secret };
}

test('events are delivered to the receiver, signed in the Standard Webhooks format, with the feed body', async () => {
	const { w, rx, endpointId, secret } = await setup();
	expect(secret).toBe(w.webhookSecret);
	expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
	const reportId = await completedReport(w);
	const [first, second] = await waitFor(async () =>
		rx.received.length >= 2 ? rx.received : undefined,
	);
	const feed = (await w.call('GET', '/api/v1/events')).body.data.items;
	for (const [i, r] of [first, second].entries()) {
		const verified = new Webhook(secret).verify(r.body, headersOf(r)) as { id: string };
		expect(verified).toEqual(feed[i]);
		expect(r.headers['webhook-id']).toBe(feed[i].id);
		expect(r.headers['content-type']).toBe('application/json');
		expect(r.headers.authorization).toBeUndefined();
		expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
	}
	expect(JSON.parse(first.body).data.reportId).toBe(reportId);
	const deliveries = await deliveriesSettled(endpointId, 2);
	expect(deliveries.map((d) => [d.eventType, d.state, d.attemptCount])).toEqual([
		['report.completed', 'succeeded', 1],
		['report.result_ready', 'succeeded', 1],
	]);
	expect(deliveries[0].attempts[0]).toMatchObject({ status: 200, error: null });
	const filtered = await fetch(
		`${sb.baseUrl}/_sandbox/webhook-endpoints/${endpointId}/deliveries?reportId=${reportId}&eventId=${feed[1].id}`,
	);
	expect(
		((await filtered.json()) as { items: DeliveryView[] }).items.map((d) => d.eventType),
	).toEqual(['report.result_ready']);
	// a wrong secret does not verify
	expect(() =>
		new Webhook(`whsec_${Buffer.from('wrong-secret-wrong-secret').toString('base64')}`).verify(
			first.body,
			headersOf(first),
		),
	).toThrow();
});

test('only subscribed event types are delivered', async () => {
	const { w, rx, endpointId } = await setup(['report.result_ready']);
	await completedReport(w);
	await deliveriesSettled(endpointId, 1);
	expect(rx.received.map((r) => JSON.parse(r.body).type)).toEqual(['report.result_ready']);
});

test('5xx, 408 and 429 are retried with a fresh signature each time; any 2xx acknowledges', async () => {
	const { endpointId, rx, secret } = await setup();
	const statuses = [503, 408, 429, 204];
	rx.behaviour = (n) => ({ status: statuses[n - 1] ?? 200 });
	await sb.control.sendTest(endpointId);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ eventType: 'webhook.test', state: 'succeeded', attemptCount: 4 });
	expect(d.attempts.map((a) => a.status)).toEqual([503, 408, 429, 204]);
	const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
	expect(ids.size).toBe(1);
	for (const r of rx.received)
		expect(new Webhook(secret).verify(r.body, headersOf(r))).toMatchObject({
			type: 'webhook.test',
			data: { test: true },
		});
});

test('at most seven attempts, then the delivery fails', async () => {
	const { endpointId, rx } = await setup();
	rx.behaviour = () => ({ status: 500 });
	await sb.control.sendTest(endpointId);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ state: 'failed', outcome: 'ATTEMPTS_EXHAUSTED', attemptCount: 7 });
	expect(rx.received).toHaveLength(7);
});

test('other 4xx end the delivery without retry', async () => {
	const { endpointId, rx } = await setup();
	rx.behaviour = () => ({ status: 400 });
	await sb.control.sendTest(endpointId);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ state: 'failed', outcome: 'HTTP_400', attemptCount: 1 });
});

test('a redirect ends the delivery and is not followed', async () => {
	const { endpointId, rx } = await setup();
	const target = await receiver();
	rx.behaviour = () => ({ status: 302, headers: { location: target.url } });
	await sb.control.sendTest(endpointId);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ state: 'failed', outcome: 'REDIRECT_NOT_FOLLOWED', attemptCount: 1 });
	expect(target.received).toHaveLength(0);
});

test('a receiver slower than the sender deadline counts as a timeout and is retried', async () => {
	const { endpointId, rx } = await setup();
	rx.behaviour = (n) => ({ status: 200, delayMs: n === 1 ? 4000 : 0 });
	await sb.control.sendTest(endpointId);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d.state).toBe('succeeded');
	expect(d.attempts[0]).toMatchObject({ status: null, error: 'TIMEOUT' });
	expect(d.attempts[0].durationMs).toBeLessThan(4000);
	expect(d.attempts[1]).toMatchObject({ status: 200, error: null });
});

test('a network failure is retried', async () => {
	const w = await newWs(sb);
	const rx = await receiver();
	const url = rx.url;
	await rx.stop();
	receivers.splice(receivers.indexOf(rx), 1);
	const ep = await sb.control.addWebhookEndpoint(w.workspaceId, { url });
	await sb.control.sendTest(ep.id);
	const [d] = await deliveriesSettled(ep.id, 1);
	expect(d).toMatchObject({ state: 'failed', attemptCount: 7 });
	expect(d.attempts.every((a) => a.error === 'NETWORK_ERROR')).toBe(true);
});

test('replay sends the same event id and body with a fresh retry budget', async () => {
	const { endpointId, rx, secret } = await setup();
	rx.behaviour = () => ({ status: 500 });
	await sb.control.sendTest(endpointId);
	const [failed] = await deliveriesSettled(endpointId, 1);
	expect(failed.state).toBe('failed');
	rx.behaviour = () => ({ status: 200 });
	const replay = await sb.control.replay(failed.deliveryId);
	expect(replay.deliveryId).not.toBe(failed.deliveryId);
	expect(replay.eventId).toBe(failed.eventId);
	const all = await deliveriesSettled(endpointId, 2);
	expect(all.find((d) => d.deliveryId === replay.deliveryId)).toMatchObject({
		state: 'succeeded',
		attemptCount: 1,
	});
	const last = rx.received[rx.received.length - 1];
	expect(last.headers['webhook-id']).toBe(failed.eventId);
	expect(last.body).toBe(rx.received[0].body);
	expect(new Webhook(secret).verify(last.body, headersOf(last))).toMatchObject({
		id: failed.eventId,
	});
});

test('during rotation two v1 signatures are sent; each secret verifies', async () => {
	const { endpointId, rx } = await setup();
	const { secret, previousSecret } = await sb.control.rotateSecret(endpointId);
	expect(secret).not.toBe(previousSecret);
	await sb.control.sendTest(endpointId);
	await deliveriesSettled(endpointId, 1);
	const r = rx.received[0];
	const sigs = String(r.headers['webhook-signature']).split(' ');
	expect(sigs).toHaveLength(2);
	for (const s of sigs) expect(s).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
	expect(new Webhook(secret).verify(r.body, headersOf(r))).toMatchObject({ type: 'webhook.test' });
	expect(new Webhook(previousSecret).verify(r.body, headersOf(r))).toMatchObject({
		type: 'webhook.test',
	});
});

test('a paused endpoint holds deliveries until resumed', async () => {
	const { endpointId, rx } = await setup();
	await sb.control.patchWebhookEndpoint(endpointId, { paused: true });
	await sb.control.sendTest(endpointId);
	await new Promise((r) => setTimeout(r, 100));
	expect(rx.received).toHaveLength(0);
	await sb.control.patchWebhookEndpoint(endpointId, { paused: false });
	await deliveriesSettled(endpointId, 1);
	expect(rx.received).toHaveLength(1);
});

describe('the private inbox and its receiver modes', () => {
	async function inboxEndpoint() {
		const w = await newWs(sb);
		const ep = await sb.control.addWebhookEndpoint(w.workspaceId, {
			url: sb.control.inboxUrl(w.workspaceId),
		});
		return { w, ep };
	}
	test('success mode: exact body, signature headers and the verification result are recorded', async () => {
		const { w, ep } = await inboxEndpoint();
		await sb.control.sendTest(ep.id);
		const [d] = await deliveriesSettled(ep.id, 1);
		expect(d.state).toBe('succeeded');
		const [entry] = (await sb.control.inbox(w.workspaceId)).items;
		expect(entry.verified).toBe(true);
		expect(entry.reason).toBeNull();
		expect(new Webhook(ep.secret).verify(entry.body, entry.headers)).toMatchObject({
			type: 'webhook.test',
			data: { test: true },
		});
		expect(entry.headers.authorization).toBeUndefined();
		expect((await w.counters()).webhookAuthorizationHeaders).toBe(0);
	});
	test('retry mode answers 503 so the sender retries to the last attempt', async () => {
		const { w, ep } = await inboxEndpoint();
		await sb.control.patchWebhookEndpoint(ep.id, { mode: 'retry' });
		await sb.control.sendTest(ep.id);
		const [d] = await deliveriesSettled(ep.id, 1);
		expect(d).toMatchObject({ state: 'failed', attemptCount: 7 });
		expect(d.attempts.every((a) => a.status === 503)).toBe(true);
		expect((await sb.control.inbox(w.workspaceId)).items.every((i) => i.verified)).toBe(true);
	});
	test('timeout mode answers after the sender deadline', async () => {
		const { ep } = await inboxEndpoint();
		await sb.control.patchWebhookEndpoint(ep.id, { mode: 'timeout' });
		await sb.control.sendTest(ep.id);
		const d = await waitFor(async () =>
			(await sb.control.deliveries(ep.id)).items.find((x) => x.attempts.length >= 1),
		);
		expect(d.attempts[0]).toMatchObject({ status: null, error: 'TIMEOUT' });
		await sb.control.patchWebhookEndpoint(ep.id, { mode: 'success' });
		const [done] = await deliveriesSettled(ep.id, 1);
		expect(done.state).toBe('succeeded');
	});
	test('a timestamp more than five minutes old is recorded as not verified', async () => {
		const w = await newWs(sb);
		const body = JSON.stringify({ id: 'y', type: 'webhook.test' });
		const ts = new Date(Date.now() - 6 * 60_000);
		const sig = new Webhook(w.webhookSecret).sign('msg_2', ts, body);
		await fetch(sb.control.inboxUrl(w.workspaceId), {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': 'msg_2',
				'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
				'webhook-signature': sig,
			},
			body,
		});
		const [entry] = (await sb.control.inbox(w.workspaceId)).items;
		expect(entry).toMatchObject({ verified: false, reason: expect.stringMatching(/timestamp/i) });
	});
	test('a signature made with another secret is recorded as not verified', async () => {
		const w = await newWs(sb);
		const body = JSON.stringify({ id: 'x', type: 'webhook.test' });
		const ts = new Date();
		const sig = new Webhook(
			`whsec_${Buffer.from('some-other-secret-32-bytes-long!').toString('base64')}`,
		).sign('msg_1', ts, body);
		const res = await fetch(sb.control.inboxUrl(w.workspaceId), {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': 'msg_1',
				'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
				'webhook-signature': sig,
			},
			body,
		});
		expect(res.status).toBe(200);
		const [entry] = (await sb.control.inbox(w.workspaceId)).items;
		expect(entry).toMatchObject({ body, verified: false, reason: expect.any(String) });
	});
});

test('Retry-After on a retryable response extends the wait', async () => {
	const slow = await startTestSandbox({ webhookTimeScale: 0.0001 });
	try {
		const w = await newWs(slow);
		const rx = await receiver();
		rx.behaviour = (n) =>
			n === 1 ? { status: 429, headers: { 'retry-after': '7200' } } : { status: 200 };
		const ep = await slow.control.addWebhookEndpoint(w.workspaceId, { url: rx.url });
		await slow.control.sendTest(ep.id);
		await waitFor(async () => (rx.received.length >= 2 ? true : undefined), 5000);
		// scheduled wait ~1 minute (6 ms scaled); Retry-After 2 hours (720 ms scaled)
		expect(rx.received[1].at - rx.received[0].at).toBeGreaterThanOrEqual(600);
	} finally {
		await slow.close();
	}
});

test('delivery stops when the 30-day retention window ends', async () => {
	const { endpointId, rx } = await setup();
	await sb.control.patchWebhookEndpoint(endpointId, { paused: true });
	await sb.control.sendTest(endpointId);
	await sb.control.advanceClock(30 * 24 * 3600_000 + 1000);
	await sb.control.patchWebhookEndpoint(endpointId, { paused: false });
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ state: 'failed', outcome: 'RETENTION_ENDED', attemptCount: 0 });
	expect(rx.received).toHaveLength(0);
});

test('a changed URL cancels unsent deliveries to the old destination', async () => {
	const { endpointId, rx } = await setup();
	const next = await receiver();
	await sb.control.patchWebhookEndpoint(endpointId, { paused: true });
	await sb.control.sendTest(endpointId);
	await sb.control.patchWebhookEndpoint(endpointId, { url: next.url, paused: false });
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(d).toMatchObject({ state: 'cancelled', outcome: 'DESTINATION_CHANGED' });
	await sb.control.sendTest(endpointId);
	await deliveriesSettled(endpointId, 2);
	expect(rx.received).toHaveLength(0);
	expect(next.received).toHaveLength(1);
});

test('after a report is deleted, a replay of its delivery sends the tombstone', async () => {
	const { w, rx, endpointId } = await setup(['report.completed']);
	const reportId = await completedReport(w);
	const [d] = await deliveriesSettled(endpointId, 1);
	expect(JSON.parse(rx.received[0].body).data.reportId).toBe(reportId);
	await sb.control.deleteReport(reportId);
	await sb.control.replay(d.deliveryId);
	await deliveriesSettled(endpointId, 2);
	const replayed = JSON.parse(rx.received[rx.received.length - 1].body);
	expect(replayed).toEqual({
		id: d.eventId,
		type: 'report.completed',
		schemaVersion: 1,
		occurredAt: expect.any(String),
	});
});

test('catch-up preview: retained events of a window, no duplicates of existing deliveries, expires after ten minutes', async () => {
	const w = await newWs(sb);
	const from = (await sb.control.clock()).now;
	const r1 = await completedReport(w); // two events before the endpoint exists
	const rx = await receiver();
	const ep = await sb.control.addWebhookEndpoint(w.workspaceId, { url: rx.url });
	await completedReport(w); // two events delivered normally
	await deliveriesSettled(ep.id, 2);
	await sb.control.advanceClock(1000);
	const to = (await sb.control.clock()).now;
	const preview = await sb.control.catchUpPreview(ep.id, from, to);
	expect(preview).toMatchObject({ eventCount: 2, limit: 500 });
	const stale = await sb.control.catchUpPreview(ep.id, from, to);
	const sent = await sb.control.catchUpSend(preview.previewId);
	expect(sent.deliveries).toBe(2);
	const all = await deliveriesSettled(ep.id, 4);
	expect(
		all
			.filter((d) => d.reportId === r1)
			.map((d) => d.eventType)
			.sort(),
	).toEqual(['report.completed', 'report.result_ready']);
	expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(4);
	expect((await sb.control.catchUpSend(stale.previewId)).deliveries).toBe(0); // nothing duplicated
	const late = await sb.control.catchUpPreview(ep.id, from, to);
	await sb.control.advanceClock(10 * 60_000 + 1000);
	await expect(sb.control.catchUpSend(late.previewId)).rejects.toThrow(/409/);
});
