/**
 * What the transport refuses and how it bounds what it reads (transport/guard.ts), on its own: redirects that would
 * take the API key elsewhere, header values with line breaks, answers over their limit or past their deadline, and
 * secrets left in an error n8n would store.
 */
import { Readable } from 'node:stream';

import {
	decideRedirect,
	discardBody,
	hasControlCharacter,
	isLocalhostSubdomain,
	isLoopbackHost,
	isRedirectStatus,
	MAX_SAME_ORIGIN_REDIRECTS,
	parseAnswer,
	readBounded,
	redactDeep,
	redactSecrets,
	ResponseDeadlineError,
	ResponseTooLargeError,
	scrubError,
} from '../../../nodes/RecruitingAnalysis/transport/guard';

const origin = 'https://api.example.com';
const redirect = (over: Partial<Parameters<typeof decideRedirect>[0]>) =>
	decideRedirect({
		status: 307,
		location: '/api/v1/reports',
		method: 'POST',
		current: new URL(`${origin}/api/v1/analyses`),
		credentialOrigin: origin,
		hops: 0,
		...over,
	});

describe('redirects of an API request', () => {
	it('a same-origin 307 or 308 is followed, for a write too', () => {
		expect(redirect({})).toEqual({ follow: new URL(`${origin}/api/v1/reports`) });
		expect(redirect({ status: 308 })).toEqual({ follow: new URL(`${origin}/api/v1/reports`) });
		expect(redirect({ status: 301, method: 'get' })).toEqual({
			follow: new URL(`${origin}/api/v1/reports`),
		});
		expect(redirect({ status: 302, method: 'HEAD' })).toMatchObject({ follow: expect.any(URL) });
	});

	it.each([301, 302, 303])(
		'a %i of a write is refused: it would turn the write into a GET',
		(status) => {
			expect(redirect({ status })).toEqual({
				refuse: `Refused a ${status} redirect of POST /api/v1/analyses: it would turn the write into a GET`,
				description:
					"Only 307 and 308 redirects keep a write's method and body. Check the proxy in front of the API. The write was not repeated at the new address.",
			});
		},
	);

	it('to another origin: refused, naming the host and how to point the credential there', () => {
		expect(redirect({ location: 'https://other.example.com/x' })).toEqual({
			refuse: 'Refused a redirect of POST /api/v1/analyses to another host: other.example.com',
			description:
				`The API key is sent only to the credential's base URL (${origin}), so the node does not follow redirects to another origin. ` +
				"If the API has moved to https://other.example.com, set the Recruiting Analysis API credential's Environment to Custom Base URL and its Base URL to https://other.example.com; " +
				'otherwise check the proxy in front of the API. Nothing was sent to that host.',
		});
		expect(redirect({ location: 'https://api.example.com:8443/x' })).toMatchObject({
			refuse: 'Refused a redirect of POST /api/v1/analyses to another host: api.example.com:8443',
		});
	});

	it('from https to http, even on the same host: refused, the key would travel unencrypted', () => {
		expect(redirect({ location: 'http://api.example.com/api/v1/reports' })).toEqual({
			refuse:
				'Refused a redirect of POST /api/v1/analyses from https to http (host api.example.com)',
			description:
				'The API key and the request would travel unencrypted, so the node never follows a redirect away from https. ' +
				'Check the proxy or load balancer in front of the API; the credential should keep its https base URL. Nothing was sent there.',
		});
	});

	it('from plain http on loopback, a same-origin redirect is followed', () => {
		const local = 'http://127.0.0.1:8080';
		expect(
			redirect({ current: new URL(`${local}/a`), credentialOrigin: local, location: '/b' }),
		).toEqual({ follow: new URL(`${local}/b`) });
	});

	it('without a target, or to something that is no URL: refused, saying so', () => {
		expect(redirect({ location: undefined, status: 302 })).toEqual({
			refuse:
				'The Recruiting Analysis API answered POST /api/v1/analyses with a redirect (302) without a target',
			description:
				'The node does not follow redirects without a Location. Check the proxy in front of the API. Nothing was followed.',
		});
		expect(redirect({ location: 'http://[bad' })).toEqual({
			refuse:
				'The Recruiting Analysis API answered POST /api/v1/analyses with a redirect (307) to an address that is not a URL',
			description: 'Check the proxy in front of the API. Nothing was followed.',
		});
	});

	it(`stops after ${MAX_SAME_ORIGIN_REDIRECTS} redirects within the same host`, () => {
		expect(redirect({ hops: MAX_SAME_ORIGIN_REDIRECTS - 1 })).toMatchObject({
			follow: expect.any(URL),
		});
		expect(redirect({ hops: MAX_SAME_ORIGIN_REDIRECTS })).toEqual({
			refuse: `The Recruiting Analysis API redirected POST /api/v1/analyses more than ${MAX_SAME_ORIGIN_REDIRECTS} times`,
			description:
				'The node stops after a few redirects within the same host. Check the proxy in front of the API.',
		});
	});

	it('only 301, 302, 303, 307 and 308 are redirects', () => {
		expect([300, 301, 302, 303, 304, 307, 308, 309].filter(isRedirectStatus)).toEqual([
			301, 302, 303, 307, 308,
		]);
	});
});

describe('hosts and header values', () => {
	it('a control character (below space, or DEL) is found; printable text is not', () => {
		expect(hasControlCharacter('a\nb')).toBe(true);
		expect(hasControlCharacter('a\u001fb')).toBe(true);
		expect(hasControlCharacter('a\u007fb')).toBe(true);
		expect(hasControlCharacter('a b~')).toBe(false);
		expect(hasControlCharacter('')).toBe(false);
	});

	it('loopback is a 127.x.x.x address, ::1 or the name localhost itself', () => {
		expect(
			['127.0.0.1', '127.1.2.3', '[::1]', 'LOCALHOST', 'localhost'].map(isLoopbackHost),
		).toEqual([true, true, true, true, true]);
		expect(
			['128.0.0.1', '127.0.0', '127.0.0.1.example.com', 'x127.0.0.1', 'api.localhost'].map(
				isLoopbackHost,
			),
		).toEqual([false, false, false, false, false]);
	});

	it('a name under .localhost (or localhost. itself) is only loopback by convention', () => {
		expect(isLocalhostSubdomain('api.localhost')).toBe(true);
		expect(isLocalhostSubdomain('api.localhost.')).toBe(true);
		expect(isLocalhostSubdomain('localhost.')).toBe(true);
		expect(isLocalhostSubdomain('localhost')).toBe(false);
		expect(isLocalhostSubdomain('notlocalhost')).toBe(false);
	});
});

describe('reading an answer within its bounds', () => {
	const far = () => Date.now() + 60_000;

	it('reads a stream to its end, strings and bytes alike', async () => {
		const read = await readBounded(Readable.from(['{"a":', Buffer.from('1}')]), 100, far(), 1000);
		expect(Buffer.from(read as Uint8Array).toString()).toBe('{"a":1}');
	});

	it('an answer that is not a stream is returned as it is', async () => {
		const parsed = { a: 1 };
		expect(await readBounded(parsed, 1, far(), 1000)).toBe(parsed);
		expect(await readBounded(null, 1, far(), 1000)).toBeNull();
	});

	it('an answer of exactly the limit is read; one byte more is refused and the stream let go', async () => {
		expect(await readBounded(Readable.from([Buffer.alloc(10)]), 10, far(), 1000)).toHaveLength(10);
		const stream = Readable.from([Buffer.alloc(6), Buffer.alloc(5)]);
		const error = await readBounded(stream, 10, far(), 1000).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ResponseTooLargeError);
		expect(error).toMatchObject({ message: 'The answer was larger than 10 bytes', limitBytes: 10 });
		expect(stream.destroyed).toBe(true);
	});

	it('a stream that goes silent past the deadline fails as a timeout the retry policy knows', async () => {
		const silent = new Readable({ read: () => undefined });
		const started = Date.now();
		const error = await readBounded(silent, 100, Date.now() + 200, 200).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ResponseDeadlineError);
		expect(error).toMatchObject({
			code: 'ETIMEDOUT',
			message: 'The answer did not complete within 200 ms',
		});
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(silent.destroyed).toBe(true);
	});

	it('a chunk that arrives after the deadline is not taken', async () => {
		const late = Readable.from(
			(async function* () {
				yield Buffer.from('a');
				await new Promise((resolve) => setTimeout(resolve, 60));
				yield Buffer.from('b');
			})(),
		);
		await expect(readBounded(late, 100, Date.now() + 30, 30)).rejects.toBeInstanceOf(
			ResponseDeadlineError,
		);
	});

	it('a body not read is destroyed; anything else is left alone', () => {
		const stream = Readable.from(['x']);
		discardBody(stream);
		expect(stream.destroyed).toBe(true);
		expect(() => discardBody({ text: 'x' })).not.toThrow();
	});

	it('parses the bytes read as JSON, else text; nothing read is undefined', () => {
		expect(parseAnswer(new TextEncoder().encode('{"a":1}'))).toEqual({ a: 1 });
		expect(parseAnswer(new TextEncoder().encode('plain'))).toBe('plain');
		expect(parseAnswer(new Uint8Array())).toBeUndefined();
		expect(parseAnswer('already')).toBe('already');
	});
});

describe('secrets left in what n8n stores', () => {
	const key = 'svc_live_secretvalue';

	it('every occurrence of a secret longer than 3 characters is masked', () => {
		expect(redactSecrets(`a ${key} b ${key}`, [key, undefined])).toBe('a [redacted] b [redacted]');
		expect(redactSecrets('abc abcd', ['abc'])).toBe('abc abcd');
		expect(redactSecrets('abcd', ['abcd'])).toBe('[redacted]');
	});

	it('in a JSON-like value, keys and bytes included; cycles are cut', () => {
		const cyclic: Record<string, unknown> = {
			[key]: [key, 1, null],
			bytes: new TextEncoder().encode(key),
		};
		cyclic.self = cyclic;
		expect(redactDeep(cyclic, [key])).toEqual({
			'[redacted]': ['[redacted]', 1, null],
			bytes: '[redacted]',
			self: '[circular]',
		});
	});

	it("an error's fields that hold a secret are masked, its cause kept by name and masked message; others untouched", () => {
		const untouched = { path: '/api/v1/reports' };
		const error = Object.assign(new Error(`failed with ${key}`), {
			description: `key ${key}`,
			context: untouched,
			cause: new TypeError(`cause ${key}`),
			headers: { authorization: `Bearer ${key}` },
		});
		expect(scrubError(error, [key, 'x'])).toBe(error);
		expect(error.message).toBe('failed with [redacted]');
		expect(error.stack).not.toContain(key);
		expect(error.description).toBe('key [redacted]');
		expect(error.context).toBe(untouched);
		expect(error.cause).toEqual({ name: 'TypeError', message: 'cause [redacted]' });
		expect(error.headers).toEqual({ authorization: 'Bearer [redacted]' });
	});

	it('an error without a usable secret, or that is no object, is returned as it is', () => {
		const error = new Error('failed with abc');
		expect(scrubError(error, ['abc', ''])).toBe(error);
		expect(error.message).toBe('failed with abc');
		expect(scrubError('text', [key])).toBe('text');
		const cyclic: Record<string, unknown> = { note: key };
		cyclic.self = cyclic;
		expect(scrubError(cyclic, [key])).toMatchObject({ note: '[redacted]' });
	});
});

describe('what else a stored error may carry', () => {
	const key = 'svc_live_secretvalue';

	it("a cause given to Error's constructor (not enumerable) is masked too, and one whose stack alone holds the secret", () => {
		const error = new Error('failed', { cause: new TypeError(`cause ${key}`) });
		scrubError(error, [key]);
		expect(error.cause).toEqual({ name: 'TypeError', message: 'cause [redacted]' });

		const quiet = new Error('plain');
		quiet.stack = `Error: plain\n    at ${key}`;
		const outer = Object.assign(new Error('outer'), { cause: quiet });
		scrubError(outer, [key]);
		expect(outer.cause).toEqual({ name: 'Error', message: 'plain' });
	});

	it('a field is masked when it holds any one of the secrets; a cause without one stays as it is', () => {
		const cause = new TypeError('cause abc');
		const error = Object.assign(new Error(`failed with ${key}`), { cause });
		scrubError(error, ['other_secret_value', key, '', 'abc']);
		expect(error.message).toBe('failed with [redacted]');
		expect(error.cause).toBe(cause);
	});

	it('a stack read before the error reached the node is masked too', () => {
		const error = new Error(`failed with ${key}`);
		expect(error.stack).toContain(key);
		scrubError(error, [key]);
		expect(error.stack).not.toContain(key);
	});

	it('nothing, null or undefined is returned as it is', () => {
		expect(scrubError(null, [key])).toBeNull();
		expect(scrubError(undefined, [key])).toBeUndefined();
		const empty = Object.assign(new Error('x'), { missing: undefined, none: null });
		expect(scrubError(empty, [key])).toMatchObject({ missing: undefined, none: null });
	});
});

describe('hosts by convention', () => {
	it('only localhost may end in a dot and still count; another name ending in a dot does not', () => {
		expect(isLocalhostSubdomain('example.com.')).toBe(false);
	});
});

describe('a read that ends before its deadline', () => {
	it('leaves no failure behind when the deadline passes later', async () => {
		const unhandled: unknown[] = [];
		const record = (reason: unknown) => unhandled.push(reason);
		process.on('unhandledRejection', record);
		try {
			const read = await readBounded(Readable.from(['{}']), 100, Date.now() + 30, 30);
			expect(Buffer.from(read as Uint8Array).toString()).toBe('{}');
			await new Promise((resolve) => setTimeout(resolve, 120));
			expect(unhandled).toEqual([]);
		} finally {
			process.off('unhandledRejection', record);
		}
	});

	it('a stream that never pauses is still stopped at the deadline', async () => {
		const started = Date.now();
		const byte = new Uint8Array(1);
		// Chunks that are always ready: no timer runs between them, so only the clock check can stop the read.
		const endless = {
			[Symbol.asyncIterator]: () => ({
				next: async () => ({ done: Date.now() - started > 1_000, value: byte }),
			}),
		};
		// Without the check the read would end with the stream, after a second, and succeed.
		await expect(readBounded(endless, 1e9, started + 50, 50)).rejects.toBeInstanceOf(
			ResponseDeadlineError,
		);
	});
});
