import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

import {
	decodeSigningSecret,
	isWellFormedSigningSecret,
	RECEIVER_SIDE_FAILURES,
	verifyWebhook,
	type HeaderBag,
	type VerifyInput,
} from '../../../nodes/RecruitingAnalysis/webhook/verify';
import { signWebhook } from '../../helpers/sign-webhook';

// The test vector published with the Standard Webhooks specification.
const VECTOR = {
	secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
	id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
	timestamp: 1614265330,
	body: '{"test": 2432232314}',
	signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

function signed(secret: string, body: string, at: number, id = `msg_${randomUUID()}`) {
	const rawBody = Buffer.from(body, 'utf8');
	return {
		rawBody,
		headers: {
			'webhook-id': id,
			'webhook-timestamp': String(at),
			'webhook-signature': signWebhook({ secret, webhookId: id, timestamp: at, rawBody }),
		} as HeaderBag,
	};
}

describe('Standard Webhooks test vector', () => {
	it('signs the vector to the published signature', () => {
		expect(
			signWebhook({
				secret: VECTOR.secret,
				webhookId: VECTOR.id,
				timestamp: VECTOR.timestamp,
				rawBody: Buffer.from(VECTOR.body),
			}),
		).toBe(VECTOR.signature);
	});

	it('verifies the vector at its own timestamp', () => {
		const result = verifyWebhook({
			rawBody: Buffer.from(VECTOR.body),
			headers: {
				'webhook-id': VECTOR.id,
				'webhook-timestamp': String(VECTOR.timestamp),
				'webhook-signature': VECTOR.signature,
			},
			secrets: [VECTOR.secret],
			now: VECTOR.timestamp * 1000,
		});
		expect(result).toEqual({
			ok: true,
			webhookId: VECTOR.id,
			timestamp: VECTOR.timestamp,
			secretIndex: 0,
		});
	});

	it('rejects the vector today: it is years older than five minutes', () => {
		const result = verifyWebhook({
			rawBody: Buffer.from(VECTOR.body),
			headers: {
				'webhook-id': VECTOR.id,
				'webhook-timestamp': String(VECTOR.timestamp),
				'webhook-signature': VECTOR.signature,
			},
			secrets: [VECTOR.secret],
			now: Date.now(),
		});
		expect(result).toMatchObject({ ok: false, reason: 'TIMESTAMP_TOO_OLD' });
	});
});

describe('cross-check with the standardwebhooks package', () => {
	const bodies = [
		'{"id":"5b0f0a4e-1111-4222-8333-944455556666","type":"report.completed","schemaVersion":1,"data":{}}',
		'{"name":"Zoë Ångström — 履歴書","emoji":"🚀"}',
		'  {"spaced" : true }\n',
		'',
	];

	it.each(bodies)('their signature verifies with ours (%#)', (body) => {
		const secret = newSecret();
		const id = `msg_${randomUUID()}`;
		const now = Date.now();
		const at = Math.floor(now / 1000);
		const theirs = new Webhook(secret).sign(id, new Date(at * 1000), body);
		const result = verifyWebhook({
			rawBody: Buffer.from(body, 'utf8'),
			headers: { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': theirs },
			secrets: [secret],
			now,
		});
		expect(result.ok).toBe(true);
	});

	it.each(bodies)('our signature verifies with theirs (%#)', (body) => {
		const secret = newSecret();
		const at = Math.floor(Date.now() / 1000);
		const { headers } = signed(secret, body, at);
		expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
	});

	it('both reject the same tampered body', () => {
		const secret = newSecret();
		const at = Math.floor(Date.now() / 1000);
		const { headers } = signed(secret, '{"a":1}', at);
		expect(() =>
			new Webhook(secret).verify('{"a":2}', headers as Record<string, string>),
		).toThrow();
		expect(
			verifyWebhook({
				rawBody: Buffer.from('{"a":2}'),
				headers,
				secrets: [secret],
				now: at * 1000,
			}),
		).toMatchObject({ ok: false, reason: 'SIGNATURE_MISMATCH' });
	});
});

describe('bad deliveries are refused with a reason', () => {
	const secret = newSecret();
	const now = Date.now();
	const at = Math.floor(now / 1000);
	const body =
		'{"id":"0b7e7b8e-7c57-4d0e-9d2f-2a3c4b5d6e7f","type":"report.completed","data":{"b":1,"a":2}}';

	function base(): VerifyInput {
		const s = signed(secret, body, at);
		return { rawBody: s.rawBody, headers: { ...s.headers }, secrets: [secret], now };
	}
	function without(name: string): VerifyInput {
		const input = base();
		delete input.headers[name];
		return input;
	}
	function withHeader(name: string, value: string | string[]): VerifyInput {
		const input = base();
		input.headers[name] = value;
		return input;
	}
	function resignedAt(timestamp: string): VerifyInput {
		const input = base();
		input.headers['webhook-timestamp'] = timestamp;
		if (/^\d+$/.test(timestamp)) {
			input.headers['webhook-signature'] = signWebhook({
				secret,
				webhookId: String(input.headers['webhook-id']),
				timestamp: Number(timestamp),
				rawBody: input.rawBody,
			});
		}
		return input;
	}

	const cases: Array<[string, () => VerifyInput, string]> = [
		['webhook-id missing', () => without('webhook-id'), 'MISSING_ID'],
		['webhook-timestamp missing', () => without('webhook-timestamp'), 'MISSING_TIMESTAMP'],
		['webhook-signature missing', () => without('webhook-signature'), 'MISSING_SIGNATURE'],
		[
			'signature is not base64',
			() => withHeader('webhook-signature', 'v1,@@not*base64@@'),
			'MALFORMED_SIGNATURE',
		],
		[
			'signature base64 of the wrong length',
			() => withHeader('webhook-signature', 'v1,AAAA'),
			'MALFORMED_SIGNATURE',
		],
		['wrong secret', () => ({ ...base(), secrets: [newSecret()] }), 'SIGNATURE_MISMATCH'],
		[
			'tampered body',
			() => ({ ...base(), rawBody: Buffer.from(body.replace('"b":1', '"b":9')) }),
			'SIGNATURE_MISMATCH',
		],
		[
			're-serialised JSON body',
			() => ({ ...base(), rawBody: Buffer.from(JSON.stringify(JSON.parse(body), null, 1)) }),
			'SIGNATURE_MISMATCH',
		],
		[
			'timestamp five minutes and one second old',
			() => resignedAt(String(at - 301)),
			'TIMESTAMP_TOO_OLD',
		],
		[
			'timestamp five minutes and one second ahead',
			() => resignedAt(String(at + 301)),
			'TIMESTAMP_TOO_NEW',
		],
		['non-numeric timestamp', () => resignedAt('16142653a0'), 'INVALID_TIMESTAMP'],
		['fractional timestamp', () => resignedAt(`${at}.5`), 'INVALID_TIMESTAMP'],
		[
			'only unknown versions (v2,)',
			() => withHeader('webhook-signature', 'v2,'),
			'NO_V1_SIGNATURE',
		],
		[
			'only unknown versions (v2 with a valid-looking value)',
			() => {
				const input = base();
				input.headers['webhook-signature'] = String(input.headers['webhook-signature']).replace(
					'v1,',
					'v2,',
				);
				return input;
			},
			'NO_V1_SIGNATURE',
		],
		['empty signature list', () => withHeader('webhook-signature', ''), 'NO_V1_SIGNATURE'],
		[
			'array-valued webhook-id',
			() => withHeader('webhook-id', ['msg_a', 'msg_b']),
			'REPEATED_HEADER',
		],
		[
			'array-valued webhook-signature',
			() => {
				const input = base();
				const good = String(input.headers['webhook-signature']);
				input.headers['webhook-signature'] = [good, good];
				return input;
			},
			'REPEATED_HEADER',
		],
		['no secret configured', () => ({ ...base(), secrets: [] }), 'NO_SECRET'],
		['only blank secrets configured', () => ({ ...base(), secrets: ['', '  '] }), 'NO_SECRET'],
		['malformed secret', () => ({ ...base(), secrets: ['whsec_***'] }), 'INVALID_SECRET'],
		[
			'body given as a string',
			() => ({ ...base(), rawBody: body as unknown as Uint8Array }),
			'BODY_NOT_RAW',
		],
	];

	// The words the sender reads in the 401 or 503 answer, one per reason.
	const messages: Record<string, string> = {
		MISSING_ID: 'Missing webhook-id header',
		MISSING_TIMESTAMP: 'Missing webhook-timestamp header',
		MISSING_SIGNATURE: 'Missing webhook-signature header',
		MALFORMED_SIGNATURE: 'No v1 signature is valid base64 of a SHA-256 digest',
		SIGNATURE_MISMATCH:
			'No v1 signature matches. Check the signing secret, and that the raw request body was verified (a re-serialised JSON body does not match)',
		TIMESTAMP_TOO_OLD: 'webhook-timestamp is more than 300 s in the past',
		TIMESTAMP_TOO_NEW: 'webhook-timestamp is more than 300 s in the future',
		INVALID_TIMESTAMP: 'webhook-timestamp is not an integer number of seconds',
		NO_V1_SIGNATURE: 'webhook-signature carries no v1 signature',
		REPEATED_HEADER: 'A webhook-* header was sent more than once',
		NO_SECRET: 'No signing secret is configured; refusing to accept any delivery',
		INVALID_SECRET:
			'No configured signing secret is whsec_ followed by base64 of at least 16 bytes',
		BODY_NOT_RAW:
			'The body must be the raw bytes as received; a parsed or re-serialised body cannot be verified',
	};

	it.each(cases)(
		'%s: refused with its reason and the message the sender reads',
		(_name, make, reason) => {
			expect(verifyWebhook(make())).toEqual({ ok: false, reason, message: messages[reason] });
		},
	);

	it('a v1 entry without a comma is no v1 signature, not a malformed one', () => {
		expect(verifyWebhook(withHeader('webhook-signature', 'v1a'))).toMatchObject({
			reason: 'NO_V1_SIGNATURE',
		});
	});

	it('the unmodified delivery passes (the table starts from a valid one)', () => {
		expect(verifyWebhook(base()).ok).toBe(true);
	});

	it('accepts exactly five minutes in the past and in the future', () => {
		expect(verifyWebhook(resignedAt(String(at - 300))).ok).toBe(true);
		expect(verifyWebhook(resignedAt(String(at + 300))).ok).toBe(true);
	});

	it('a re-serialised body fails even though it parses to the same JSON', () => {
		const input = base();
		const reserialised = Buffer.from(JSON.stringify(JSON.parse(body)) + ' ');
		expect(JSON.parse(reserialised.toString())).toEqual(JSON.parse(body));
		expect(verifyWebhook({ ...input, rawBody: reserialised }).ok).toBe(false);
	});

	it('refuses a non-positive tolerance instead of skipping the check', () => {
		expect(() => verifyWebhook({ ...base(), toleranceSeconds: 0 })).toThrow(
			new RangeError('verifyWebhook: toleranceSeconds must be positive'),
		);
	});

	it('a shorter tolerance is the one the message names', () => {
		expect(verifyWebhook({ ...resignedAt(String(at - 61)), toleranceSeconds: 60 })).toEqual({
			ok: false,
			reason: 'TIMESTAMP_TOO_OLD',
			message: 'webhook-timestamp is more than 60 s in the past',
		});
	});
});

describe('rotation and header forms', () => {
	const current = newSecret();
	const previous = newSecret();
	const now = Date.now();
	const at = Math.floor(now / 1000);
	const body = '{"type":"webhook.test","data":{"test":true}}';
	const rawBody = Buffer.from(body);
	const id = 'msg_rotation';
	const sigCurrent = signWebhook({ secret: current, webhookId: id, timestamp: at, rawBody });
	const sigPrevious = signWebhook({ secret: previous, webhookId: id, timestamp: at, rawBody });

	it('accepts two space-separated signatures with only the current secret configured', () => {
		const r = verifyWebhook({
			rawBody,
			headers: {
				'webhook-id': id,
				'webhook-timestamp': String(at),
				'webhook-signature': `${sigPrevious} ${sigCurrent}`,
			},
			secrets: [current],
			now,
		});
		expect(r).toMatchObject({ ok: true, secretIndex: 0 });
	});

	it('accepts a delivery signed only with the previous secret when it is configured', () => {
		const headers = {
			'webhook-id': id,
			'webhook-timestamp': String(at),
			'webhook-signature': sigPrevious,
		};
		expect(verifyWebhook({ rawBody, headers, secrets: [current], now })).toMatchObject({
			ok: false,
		});
		expect(verifyWebhook({ rawBody, headers, secrets: [current, previous], now })).toMatchObject({
			ok: true,
			secretIndex: 1,
		});
	});

	it('skips unknown versions and malformed entries when a valid v1 entry follows', () => {
		const r = verifyWebhook({
			rawBody,
			headers: {
				'webhook-id': id,
				'webhook-timestamp': String(at),
				'webhook-signature': `v2,abc v1,!!! v1a,x ${sigCurrent}`,
			},
			secrets: [current],
			now,
		});
		expect(r.ok).toBe(true);
	});

	it('reads header names case-insensitively and one-element arrays as values', () => {
		const r = verifyWebhook({
			rawBody,
			headers: {
				'Webhook-Id': [id],
				'WEBHOOK-TIMESTAMP': String(at),
				'Webhook-Signature': sigCurrent,
			},
			secrets: [current],
			now,
		});
		expect(r.ok).toBe(true);
	});

	it('refuses the same header sent under two spellings', () => {
		const r = verifyWebhook({
			rawBody,
			headers: {
				'webhook-id': id,
				'Webhook-Id': 'msg_other',
				'webhook-timestamp': String(at),
				'webhook-signature': sigCurrent,
			},
			secrets: [current],
			now,
		});
		expect(r).toMatchObject({ ok: false, reason: 'REPEATED_HEADER' });
	});
});

describe('signing secrets', () => {
	it('decodes whsec_ secrets and bare base64 alike', () => {
		expect(decodeSigningSecret('whsec_AAECAw==')).toEqual(Buffer.from([0, 1, 2, 3]));
		expect(decodeSigningSecret('AAECAw==')).toEqual(Buffer.from([0, 1, 2, 3]));
	});
	it.each(['', 'whsec_', 'whsec_not base64', 'whsec_abc', 'svc_test_abc'])(
		'rejects %p as a signing secret',
		(s) => {
			expect(isWellFormedSigningSecret(s)).toBe(false);
		},
	);
	it('accepts the documented form', () => {
		expect(isWellFormedSigningSecret(VECTOR.secret)).toBe(true);
	});
	it('an empty secret, with or without whsec_, decodes to no key', () => {
		expect(decodeSigningSecret('whsec_')).toBeUndefined();
		expect(decodeSigningSecret('')).toBeUndefined();
	});
	it('bare base64 decodes but is not the documented form', () => {
		const bare = randomBytes(24).toString('base64');
		expect(decodeSigningSecret(bare)).toHaveLength(24);
		expect(isWellFormedSigningSecret(bare)).toBe(false);
	});
	it.each([
		['a character outside base64 inside it', (b: string) => `${b.slice(0, 8)}*${b.slice(8)}`],
		['characters before it', (b: string) => `!!${b}`],
		['characters after it', (b: string) => `${b}!!`],
		['its last character missing', (b: string) => b.slice(0, -1)],
	])('a secret with %s is not a signing secret and verifies nothing', (_name, spoil) => {
		const secret = `whsec_${spoil(randomBytes(24).toString('base64'))}`;
		expect(decodeSigningSecret(secret)).toBeUndefined();
		expect(isWellFormedSigningSecret(secret)).toBe(false);
	});
	it('signing with a secret that is not whsec_<base64> is refused, naming the form', () => {
		expect(() =>
			signWebhook({
				secret: 'whsec_***',
				webhookId: 'msg',
				timestamp: 1,
				rawBody: Buffer.from(''),
			}),
		).toThrow(new TypeError('signWebhook: the secret is not whsec_<base64>'));
	});
});

describe('secrets that cannot be used are a receiver-side failure, not a forgery', () => {
	const now = 1_700_000_000_000;
	const at = Math.floor(now / 1000);

	it('a delivery signed with the usable secret is accepted beside a garbled one, in either slot', () => {
		const good = newSecret();
		const { rawBody, headers } = signed(good, '{"id":"evt"}', at);
		expect(verifyWebhook({ rawBody, headers, secrets: [good, 'whsec_***'], now })).toMatchObject({
			ok: true,
			secretIndex: 0,
		});
		expect(verifyWebhook({ rawBody, headers, secrets: ['whsec_***', good], now })).toMatchObject({
			ok: true,
			secretIndex: 1,
		});
	});

	it('no match while a configured secret is unusable: INVALID_SECRET (answered 503), all usable: SIGNATURE_MISMATCH', () => {
		const { rawBody, headers } = signed(newSecret(), '{"id":"evt"}', at);
		expect(
			verifyWebhook({ rawBody, headers, secrets: [newSecret(), 'whsec_***'], now }),
		).toMatchObject({ reason: 'INVALID_SECRET' });
		expect(
			verifyWebhook({ rawBody, headers, secrets: [newSecret(), newSecret()], now }),
		).toMatchObject({ reason: 'SIGNATURE_MISMATCH' });
		expect(RECEIVER_SIDE_FAILURES.has('INVALID_SECRET')).toBe(true);
		expect(RECEIVER_SIDE_FAILURES.has('SIGNATURE_MISMATCH')).toBe(false);
	});

	it('a secret of exactly 16 bytes verifies; one with blanks around it too', () => {
		const sixteen = `whsec_${randomBytes(16).toString('base64')}`;
		const { rawBody, headers } = signed(sixteen, '{"id":"evt"}', at);
		expect(verifyWebhook({ rawBody, headers, secrets: [sixteen], now })).toMatchObject({
			ok: true,
		});
		expect(verifyWebhook({ rawBody, headers, secrets: [`  ${sixteen}\n`], now })).toMatchObject({
			ok: true,
		});
	});

	it('no match while a configured secret is unusable: the message says a secret is unusable', () => {
		const { rawBody, headers } = signed(newSecret(), '{"id":"evt"}', at);
		expect(verifyWebhook({ rawBody, headers, secrets: [newSecret(), 'whsec_***'], now })).toEqual({
			ok: false,
			reason: 'INVALID_SECRET',
			message:
				'No v1 signature matches a usable secret, and a configured signing secret is unusable',
		});
	});

	it('a secret with a character outside base64 does not verify a delivery signed with its readable part', () => {
		const key = randomBytes(24).toString('base64');
		const readable = `whsec_${key}`;
		const spoiled = `whsec_${key.slice(0, 8)}*${key.slice(8)}`;
		const { rawBody, headers } = signed(readable, '{"id":"evt"}', at);
		expect(verifyWebhook({ rawBody, headers, secrets: [spoiled], now })).toMatchObject({
			ok: false,
			reason: 'INVALID_SECRET',
		});
	});

	it('a secret shorter than 16 bytes is not well formed and does not verify', () => {
		const short = `whsec_${randomBytes(15).toString('base64')}`;
		expect(isWellFormedSigningSecret(short)).toBe(false);
		expect(isWellFormedSigningSecret(`whsec_${randomBytes(16).toString('base64')}`)).toBe(true);
		const { rawBody, headers } = signed(short, '{"id":"evt"}', at);
		expect(verifyWebhook({ rawBody, headers, secrets: [short], now })).toMatchObject({
			ok: false,
			reason: 'INVALID_SECRET',
		});
	});
});
