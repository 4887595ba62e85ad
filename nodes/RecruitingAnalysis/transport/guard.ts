import { jsonParse } from 'n8n-workflow';

export const MAX_API_RESPONSE_BYTES = 16 * 1024 * 1024;
export const MAX_STORAGE_RESPONSE_BYTES = 64 * 1024;
export const MAX_SAME_ORIGIN_REDIRECTS = 5;

export const isRedirectStatus = (status: number): boolean =>
	[301, 302, 303, 307, 308].includes(status);

export function hasControlCharacter(value: string): boolean {
	for (let i = 0; i < value.length; i++) {
		const c = value.charCodeAt(i);
		if (c < 0x20 || c === 0x7f) return true;
	}
	return false;
}

const bareHost = (hostname: string) => hostname.toLowerCase().replace(/^\[|\]$/g, '');

// Node code has no DNS, so any name but `localhost` itself could send the key in clear to another host.
export function isLoopbackHost(hostname: string): boolean {
	const host = bareHost(hostname);
	if (host === 'localhost' || host === '::1') return true;
	return /^127(?:\.\d{1,3}){3}$/.test(host);
}

export function isLocalhostSubdomain(hostname: string): boolean {
	const host = bareHost(hostname).replace(/\.$/, '');
	return host.endsWith('.localhost') || (host === 'localhost' && hostname.endsWith('.'));
}

// The key goes only to the credential's origin; 301/302/303 would turn a write into a GET and silently drop it.
export function decideRedirect(args: {
	status: number;
	location: string | undefined;
	method: string;
	current: URL;
	credentialOrigin: string;
	hops: number;
}): { follow: URL } | { refuse: string; description: string } {
	const { status, method, current, credentialOrigin } = args;
	const what = `${method} ${current.pathname}`;
	const refuse = (refuse: string, description: string) => ({ refuse, description });
	if (!args.location) {
		return refuse(
			`The Recruiting Analysis API answered ${what} with a redirect (${status}) without a target`,
			'The node does not follow redirects without a Location. Check the proxy in front of the API. Nothing was followed.',
		);
	}
	if (!URL.canParse(args.location, current.href)) {
		return refuse(
			`The Recruiting Analysis API answered ${what} with a redirect (${status}) to an address that is not a URL`,
			'Check the proxy in front of the API. Nothing was followed.',
		);
	}
	const target = new URL(args.location, current);
	if (current.protocol === 'https:' && target.protocol !== 'https:') {
		return refuse(
			`Refused a redirect of ${what} from https to ${target.protocol.replace(':', '')} (host ${target.host})`,
			'The API key and the request would travel unencrypted, so the node never follows a redirect away from https. ' +
				'Check the proxy or load balancer in front of the API; the credential should keep its https base URL. Nothing was sent there.',
		);
	}
	if (target.origin !== credentialOrigin) {
		return refuse(
			`Refused a redirect of ${what} to another host: ${target.host}`,
			`The API key is sent only to the credential's base URL (${credentialOrigin}), so the node does not follow redirects to another origin. ` +
				`If the API has moved to ${target.origin}, set the Recruiting Analysis API credential's Environment to Custom Base URL and its Base URL to ${target.origin}; ` +
				'otherwise check the proxy in front of the API. Nothing was sent to that host.',
		);
	}
	const upper = method.toUpperCase();
	if ((status === 301 || status === 302 || status === 303) && upper !== 'GET' && upper !== 'HEAD') {
		return refuse(
			`Refused a ${status} redirect of ${what}: it would turn the write into a GET`,
			"Only 307 and 308 redirects keep a write's method and body. Check the proxy in front of the API. The write was not repeated at the new address.",
		);
	}
	if (args.hops >= MAX_SAME_ORIGIN_REDIRECTS) {
		return refuse(
			`The Recruiting Analysis API redirected ${what} more than ${MAX_SAME_ORIGIN_REDIRECTS} times`,
			'The node stops after a few redirects within the same host. Check the proxy in front of the API.',
		);
	}
	return { follow: target };
}

// Not retried: the same answer would come again.
export class ResponseTooLargeError extends Error {
	constructor(readonly limitBytes: number) {
		super(`The answer was larger than ${limitBytes} bytes`);
	}
}

export class ResponseDeadlineError extends Error {
	readonly code = 'ETIMEDOUT';

	constructor(readonly timeoutMs: number) {
		super(`The answer did not complete within ${timeoutMs} ms`);
	}
}

type ReadableLike = AsyncIterable<unknown> & { destroy?: () => void };

const isReadable = (value: unknown): value is ReadableLike =>
	typeof (value as ReadableLike | undefined)?.[Symbol.asyncIterator] === 'function';

export function discardBody(body: unknown): void {
	if (isReadable(body) && typeof body.destroy === 'function') body.destroy();
}

// n8n's timeout is idle time, which does not end a streamed body, and n8n sets abortSignal itself: the deadline does.
export async function readBounded(
	body: unknown,
	limitBytes: number,
	deadline: number,
	timeoutMs: number,
): Promise<unknown> {
	if (!isReadable(body)) return body;
	const chunks: Uint8Array[] = [];
	let total = 0;
	// The wait for the next chunk races the deadline: a stream whose destroy() never settles (n8n hands back a
	// wrapper around the socket) cannot hold the read. AbortSignal.timeout's timer does not keep the process alive.
	const watchdog = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
	let onDeadline = () => undefined as void;
	const expired = new Promise<never>((_resolve, reject) => {
		onDeadline = () => reject(new ResponseDeadlineError(timeoutMs));
		watchdog.addEventListener('abort', onDeadline, { once: true });
	});
	const iterator = body[Symbol.asyncIterator]();
	let complete = false;
	try {
		for (;;) {
			const step = await Promise.race([iterator.next(), expired]);
			if (step.done) break;
			const bytes =
				typeof step.value === 'string' ? Buffer.from(step.value) : (step.value as Uint8Array);
			total += bytes.length;
			if (total > limitBytes) throw new ResponseTooLargeError(limitBytes);
			if (Date.now() > deadline) throw new ResponseDeadlineError(timeoutMs);
			chunks.push(bytes);
		}
		complete = true;
	} finally {
		watchdog.removeEventListener('abort', onDeadline);
		// An answer not read to its end is let go rather than drained.
		if (!complete) discardBody(body);
	}
	return Buffer.concat(chunks, total);
}

export function parseAnswer(raw: unknown): unknown {
	if (!(raw instanceof Uint8Array)) return raw;
	if (raw.length === 0) return undefined;
	const text = new TextDecoder().decode(raw);
	return jsonParse(text, { fallbackValue: text });
}

export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
	let out = text;
	for (const secret of secrets) {
		if (secret && secret.length > 3) out = out.split(secret).join('[redacted]');
	}
	return out;
}

export function redactDeep(
	value: unknown,
	secrets: string[],
	seen = new WeakSet<object>(),
): unknown {
	if (typeof value === 'string') return redactSecrets(value, secrets);
	if (!value || typeof value !== 'object') return value;
	if (seen.has(value)) return '[circular]';
	seen.add(value);
	if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, secrets, seen));
	if (value instanceof Uint8Array) return redactSecrets(new TextDecoder().decode(value), secrets);
	const out: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value))
		out[redactSecrets(key, secrets)] = redactDeep(entry, secrets, seen);
	return out;
}

// n8n stores `{...error, message, stack}` and toJSON() adds `cause`: every own field is masked.
export function scrubError<E>(error: E, secrets: string[]): E {
	const usable = secrets.filter((s) => s && s.length > 3);
	if (!error || typeof error !== 'object') return error;
	const target = error as Record<string, unknown>;
	const contains = (value: unknown): boolean => {
		let text: string;
		try {
			text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
		} catch {
			text = String(value);
		}
		if (value instanceof Error) text += ` ${value.message} ${value.stack ?? ''}`;
		return usable.some((s) => text.includes(s));
	};
	for (const key of [...Object.keys(target), 'message', 'stack', 'description', 'cause']) {
		const value = target[key];
		if (!contains(value)) continue;
		if (key === 'cause' && value instanceof Error) {
			target[key] = { name: value.name, message: redactSecrets(value.message, usable) };
			continue;
		}
		target[key] = redactDeep(value, usable);
	}
	return error;
}
