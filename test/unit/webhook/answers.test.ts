/**
 * How the webhook trigger answers a delivery (nodes/RecruitingAnalysis/webhook/answers.ts), read by a sender over
 * real HTTP: the status, the headers and the body it gets, and when a delivery's id is recorded as seen.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	abandonUnlessAcknowledged,
	acknowledgeWhenStored,
	answer,
	inFlight,
	notReady,
	parseBody,
	RECHECKED_FAILURES,
	SEEN_IDS,
	SEEN_ORDER,
	refuse,
	storedSeen,
	type WebhookResponse,
} from '../../../nodes/RecruitingAnalysis/webhook/answers';
import type { SeenList } from '../../../nodes/RecruitingAnalysis/webhook/dedupe';

/** n8n hands the node an Express response: node's own with the three methods the trigger calls. */
function expressShaped(res: ServerResponse): WebhookResponse {
	const r = res as unknown as Record<string, unknown>;
	r.set = (name: string, value: string) => {
		res.setHeader(name, value);
		return r;
	};
	r.status = (code: number) => {
		res.statusCode = code;
		return r;
	};
	r.json = (body: unknown) => {
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify(body));
		return r;
	};
	return r as unknown as WebhookResponse;
}

let server: Server;
let handle: (req: IncomingMessage, res: WebhookResponse) => void;
let url: string;
beforeAll(async () => {
	server = createServer((req, res) => handle(req, expressShaped(res)));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function deliver(
	respond: (res: WebhookResponse) => unknown,
): Promise<{ status: number; cacheControl: string | null; body: unknown; returned: unknown }> {
	let returned: unknown;
	handle = (_req, res) => {
		returned = respond(res);
	};
	const response = await fetch(url, { method: 'POST', body: '{}' });
	return {
		status: response.status,
		cacheControl: response.headers.get('cache-control'),
		body: await response.json(),
		returned,
	};
}

describe('answers the sender reads', () => {
	it('an answer carries its status and JSON body, is never cached, and tells n8n the node answered', async () => {
		expect(await deliver((res) => answer(res, 401, { error: { code: 'UNAUTHORIZED' } }))).toEqual({
			status: 401,
			cacheControl: 'no-store',
			body: { error: { code: 'UNAUTHORIZED' } },
			returned: { noWebhookResponse: true },
		});
	});

	it('a failure on this side is 503 SERVICE_UNAVAILABLE with its reason and message, so the service retries', async () => {
		const { status, body } = await deliver((res) =>
			refuse(res, 503, 'BODY_NOT_RAW', 'The raw body is missing'),
		);
		expect(status).toBe(503);
		expect(body).toEqual({
			error: {
				code: 'SERVICE_UNAVAILABLE',
				reason: 'BODY_NOT_RAW',
				message: 'The raw body is missing',
			},
		});
	});

	it.each([
		[400, 'BAD_REQUEST', 'BODY_NOT_JSON', 'The signed body is not a JSON object'],
		[401, 'UNAUTHORIZED', 'SIGNATURE_MISMATCH', 'No signature matches'],
	] as const)(
		'a delivery refused with %i names the code %s beside its reason and message',
		async (status, code, reason, message) => {
			const answered = await deliver((res) => refuse(res, status, reason, message));
			expect(answered.status).toBe(status);
			expect(answered.body).toEqual({ error: { code, reason, message } });
		},
	);

	it('a receiver that cannot verify answers 503 RECEIVER_NOT_READY and logs why for the n8n admin', async () => {
		const warnings: string[] = [];
		const ctx = {
			logger: { warn: (m: string) => warnings.push(m) },
		} as unknown as IWebhookFunctions;
		const { status, body } = await deliver((res) =>
			notReady(ctx, res, new Error('credential not found')),
		);
		expect(status).toBe(503);
		expect(body).toEqual({
			error: {
				code: 'SERVICE_UNAVAILABLE',
				reason: 'RECEIVER_NOT_READY',
				message: 'The receiver cannot verify deliveries right now; retry later',
			},
		});
		expect(warnings).toEqual([
			'Recruiting Analysis Trigger cannot verify deliveries: credential not found',
		]);
	});

	it('a copy of an event whose first delivery is still being started is answered 503 DELIVERY_IN_PROGRESS', async () => {
		const { status, body } = await deliver((res) => inFlight(res));
		expect(status).toBe(503);
		expect(body).toEqual({
			error: {
				code: 'SERVICE_UNAVAILABLE',
				reason: 'DELIVERY_IN_PROGRESS',
				message: 'Another delivery of this event is being started; retry later',
			},
		});
	});

	it('only failures a newer read of the secrets could turn into a success are rechecked', () => {
		expect([...RECHECKED_FAILURES].sort()).toEqual([
			'INVALID_SECRET',
			'NO_SECRET',
			'SIGNATURE_MISMATCH',
		]);
	});
});

describe('the signed body as the workflow gets it', () => {
	it('parses the JSON body', () => {
		expect(parseBody(Buffer.from('{"id":"evt_1","data":{"a":1}}'))).toEqual({
			id: 'evt_1',
			data: { a: 1 },
		});
	});

	it('a leading UTF-8 byte order mark is skipped; a lone first byte of one is not', () => {
		const json = Buffer.from('{"id":"evt_1"}');
		expect(parseBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]))).toEqual({
			id: 'evt_1',
		});
		expect(parseBody(Buffer.concat([Buffer.from([0xef]), json]))).toBeUndefined();
	});

	it('a body whose later bytes happen to match the mark is read whole', () => {
		expect(parseBody(Buffer.from([0x22, 0xbb, 0x22]))).toBe('\ufffd');
	});

	it('a body that is not JSON is undefined, not an error', () => {
		expect(parseBody(Buffer.from('not json'))).toBeUndefined();
	});

	it('reads only the bytes of the given view, not the rest of the buffer it lives in', () => {
		const whole = Buffer.from('xx{"id":"evt_2"}yy');
		expect(parseBody(whole.subarray(2, whole.length - 2))).toEqual({ id: 'evt_2' });
	});
});

describe('an event id is recorded as seen when n8n reads the answer', () => {
	const acknowledging = () => {
		const calls: SeenList[] = [];
		const acknowledge = (stored: SeenList): SeenList => {
			calls.push(stored);
			return { ids: [...stored.ids, 'evt_new'], order: [...stored.order, 9] };
		};
		return { calls, acknowledge };
	};

	it('not before n8n reads the answer, then once, into the static data n8n saves', () => {
		const staticData: IDataObject = { [SEEN_IDS]: ['evt_old'], [SEEN_ORDER]: [8] };
		const { calls, acknowledge } = acknowledging();
		const result = acknowledgeWhenStored(staticData, acknowledge, [[{ json: { id: 'evt_new' } }]]);
		expect(result.workflowData).toEqual([[{ json: { id: 'evt_new' } }]]);
		expect(calls).toHaveLength(0);
		expect(Object.keys(result)).toContain('webhookResponse');
		expect(result.webhookResponse).toEqual({ received: true, started: true });
		expect(calls).toEqual([{ ids: ['evt_old'], order: [8] }]);
		expect(staticData).toEqual({ [SEEN_IDS]: ['evt_old', 'evt_new'], [SEEN_ORDER]: [8, 9] });
		expect(result.webhookResponse).toEqual({ received: true, started: true });
		expect(calls).toHaveLength(1);
	});

	it('under the static-data fields earlier runs saved them in, so a restart still finds them', () => {
		const staticData: IDataObject = { seenEventIds: ['evt_old'], seenEventOrder: [8] };
		const { acknowledge } = acknowledging();
		expect(storedSeen(staticData)).toEqual({ ids: ['evt_old'], order: [8] });
		void acknowledgeWhenStored(staticData, acknowledge, []).webhookResponse;
		expect(staticData).toEqual({ seenEventIds: ['evt_old', 'evt_new'], seenEventOrder: [8, 9] });
	});

	it('without an id to record, the answer is the same and the static data untouched', () => {
		const staticData: IDataObject = {};
		const result = acknowledgeWhenStored(staticData, undefined, [[{ json: {} }]]);
		expect(result.webhookResponse).toEqual({ received: true, started: true });
		expect(staticData).toEqual({});
	});

	it('the stored ids are read with their places', () => {
		expect(storedSeen({ [SEEN_IDS]: ['a', 'b'], [SEEN_ORDER]: [3, 5] })).toEqual({
			ids: ['a', 'b'],
			order: [3, 5],
		});
	});
});

describe('an event n8n did not start', () => {
	it('is forgotten when n8n answered the request, so the sender retry starts it', async () => {
		let abandoned = 0;
		const closed = new Promise<void>((resolve) => {
			handle = (_req, res) => {
				abandonUnlessAcknowledged(res, () => abandoned++);
				(res as unknown as ServerResponse).on('close', () => setImmediate(resolve));
				answer(res, 500, { code: 0, message: 'There was a problem executing the workflow' });
			};
		});
		const response = await fetch(url, { method: 'POST', body: '{}' });
		expect(response.status).toBe(500);
		await response.text();
		await closed;
		expect(abandoned).toBe(1);
	});

	it('stays in flight when the sender left before any answer: n8n may still create the execution', async () => {
		let abandoned = 0;
		const closed = new Promise<void>((resolve) => {
			handle = (_req, res) => {
				abandonUnlessAcknowledged(res, () => abandoned++);
				(res as unknown as ServerResponse).on('close', () => setImmediate(resolve));
			};
		});
		const controller = new AbortController();
		const sent = fetch(url, { method: 'POST', body: '{}', signal: controller.signal }).catch(
			(e: unknown) => e,
		);
		await new Promise((resolve) => setTimeout(resolve, 100));
		controller.abort();
		expect(await sent).toMatchObject({ name: 'AbortError' });
		await closed;
		expect(abandoned).toBe(0);
	});

	it('a response without events (no close to wait for) is left alone', () => {
		expect(() =>
			abandonUnlessAcknowledged({} as WebhookResponse, () => {
				throw new Error('abandoned');
			}),
		).not.toThrow();
	});
});
