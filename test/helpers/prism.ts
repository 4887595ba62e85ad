/**
 * Stoplight Prism's validating proxy in front of a sandbox: every request the node sends and every answer it gets
 * is validated against openapi/openapi.yaml by a tool we did not write.
 *
 * This is `prism proxy openapi/openapi.yaml <sandbox> --errors` (same packages, same configuration as the CLI's
 * proxy command: validateRequest, validateResponse, checkSecurity, errors), run inside the Jest worker so the
 * document is parsed once per worker (test/helpers/prism-environment.js) and each test sandbox gets its own proxy at
 * no start-up cost. With `errors`,
 * a response off the contract becomes Prism's 500 VIOLATIONS and a request off it Prism's 422; every violation and
 * every warning Prism's validators give is also collected here, and fails the run wherever it happened: in a test
 * (`test/helpers/prism-setup.ts` fails that test), in a before or after hook (the file's after-all check), or after
 * the file's last hook (closing the proxy throws what was never reported). A test that provokes violations on
 * purpose takes them with `takeUnreportedFindings`.
 *
 * Storage is not proxied: the signed URL points at the sandbox itself, as a real one points at storage.
 */
import { Writable } from 'node:stream';
import type { createLogger } from '@stoplight/prism-core';
import type { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import type { createServer } from '@stoplight/prism-http-server';
import type { validateInput, validateOutput } from '@stoplight/prism-http/dist/validator';
import { OPENAPI_FILE } from './contract';

/** Prism's functions this file calls, and the contract's operations. */
interface PrismPackages {
	createLogger: typeof createLogger;
	createServer: typeof createServer;
	validateInput: typeof validateInput;
	validateOutput: typeof validateOutput;
	operations(file: string): ReturnType<typeof getHttpOperationsFromSpec>;
}

/**
 * Prism's packages: those the Prism project's environment loaded once for its jest worker
 * (test/helpers/prism-environment.js), or, in any other jest project, the same loader's run in this file's registry.
 */
function prismPackages(): PrismPackages {
	const fromWorker = (globalThis as { __raPrism?: PrismPackages }).__raPrism;
	if (fromWorker) return fromWorker;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const environment = require('./prism-environment.js') as { prismPackages(): PrismPackages };
	return environment.prismPackages();
}

export interface PrismProxy {
	/** The proxy's base URL: give it to the node's credential instead of the sandbox's. */
	url: string;
	/** Violations and refusals Prism reported, as `METHOD path: message`, in order. */
	violations: string[];
	close(): Promise<void>;
}

/** Every proxy of this worker, for the after-each check. */
export const activeProxies = new Set<PrismProxy>();

/** Every violation and warning of every proxy of this test file, in order; `reported` of them were reported. */
const findings: string[] = [];
let reported = 0;

/** The findings not reported yet (and marks them reported): the caller fails with them, or expected them. */
export function takeUnreportedFindings(): string[] {
	const found = findings.slice(reported);
	reported = findings.length;
	return found;
}

/** Proxies started and requests they received in this worker (proof that the traffic went through Prism). */
export const prismTraffic = { proxies: 0, requests: 0 };

interface LogLine {
	msg?: string;
	name?: string;
	input?: { method?: string; url?: { path?: string } };
}

export async function startPrismProxy(upstream: string): Promise<PrismProxy> {
	const { createLogger, createServer, validateInput, validateOutput, operations } = prismPackages();
	const ops = await operations(OPENAPI_FILE);

	const violations: string[] = [];
	const record = (text: string) => {
		violations.push(text);
		findings.push(text);
	};
	let lastRequest = '';
	const sink = new Writable({
		write(chunk: Buffer, _encoding, done) {
			for (const line of chunk.toString('utf8').split('\n')) {
				if (!line.trim()) continue;
				let entry: LogLine;
				try {
					entry = JSON.parse(line) as LogLine;
				} catch {
					continue;
				}
				const msg = entry.msg ?? '';
				if (entry.input?.method)
					lastRequest = `${entry.input.method.toUpperCase()} ${entry.input.url?.path ?? '?'}`;
				if (msg === 'Request received') prismTraffic.requests += 1;
				// Violation: a request or response off the contract. VIOLATIONS / UNPROCESSABLE_ENTITY: Prism refused it
				// (--errors). An upstream network failure is not the contract's business and is not counted.
				if (
					msg.startsWith('Violation:') ||
					/errors#(VIOLATIONS|UNPROCESSABLE_ENTITY|NO_PATH_MATCHED_ERROR|NO_METHOD_MATCHED_ERROR)/.test(
						msg,
					)
				) {
					record(`${lastRequest}: ${msg}`);
				}
			}
			done();
		},
	});
	const logger = createLogger('TEST', { level: 'info' }, sink);
	// Prism's own validators, unchanged; each error they find is also written down with its detail (with --errors
	// Prism answers a response violation as 500 VIOLATIONS without logging what it was).
	type Diagnostics = {
		left?: { message?: string; path?: (string | number)[]; severity?: number | string }[];
	};
	const note = (
		side: string,
		resource: { method?: string; path?: string },
		result: Diagnostics,
	) => {
		// Errors and warnings (severity 0 and 1) both count: a warning is a deviation from the contract too.
		for (const d of result.left ?? []) {
			const level =
				d.severity === 0 || d.severity === 'Error'
					? 'error'
					: d.severity === 1 || d.severity === 'Warning'
						? 'warning'
						: undefined;
			if (level)
				record(
					`${(resource.method ?? '?').toUpperCase()} ${resource.path ?? '?'}: ${side} ${level} ${(d.path ?? []).join('.')} ${d.message ?? ''}`,
				);
		}
	};
	const checkedOutput: typeof validateOutput = (args) => {
		const result = validateOutput(args);
		note('response', args.resource, result as Diagnostics);
		return result;
	};
	const checkedInput: typeof validateInput = (args) => {
		const result = validateInput(args);
		note('request', args.resource, result as Diagnostics);
		return result;
	};
	const server = createServer(ops, {
		cors: false,
		config: {
			isProxy: true,
			upstream: new URL(upstream),
			upstreamProxy: undefined,
			validateRequest: true,
			validateResponse: true,
			checkSecurity: true,
			errors: true,
			mock: { dynamic: false },
		},
		components: {
			logger: logger.child({ name: 'HTTP SERVER' }),
			validateOutput: checkedOutput,
			validateInput: checkedInput,
		},
	});
	const address = await server.listen(0, '127.0.0.1');
	const proxy: PrismProxy = {
		url: address.replace(/\/$/, ''),
		violations,
		close: async () => {
			activeProxies.delete(proxy);
			await server.close();
			// Whatever this file's proxies found after its last check (an after-all hook, a request still in flight).
			const left = takeUnreportedFindings();
			if (left.length > 0)
				throw new Error(
					`Prism found ${left.length} contract violation(s) or warning(s) that no test reported:\n  - ${left.join('\n  - ')}`,
				);
		},
	};
	activeProxies.add(proxy);
	prismTraffic.proxies += 1;
	return proxy;
}
