/**
 * The security layer's tools: hostile HTTP(S) servers on this machine that record every request they receive
 * (method, path, headers, body), a self-signed certificate made with openssl for the https cases, a probe node that
 * calls the transport inside n8n's engine and keeps every error it throws as thrown, and the text of everything
 * n8n keeps of a run (the task data and saved execution hold `{...error}`: every own field of the error).
 */
import { execFileSync } from 'node:child_process';
import {
	createServer as createHttpServer,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Container } from '@n8n/di';
import { Logger } from '@n8n/backend-common';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { RecruitingAnalysisApi } from '../../credentials/RecruitingAnalysisApi.credentials';
import { apiRequest, type ApiRequestOptions } from '../../nodes/RecruitingAnalysis/transport';
import {
	putResumeToStorage,
	type UploadTarget,
} from '../../nodes/RecruitingAnalysis/actions/upload/resumeUpload';
import {
	executeNode,
	type ExecuteNodeOptions,
	type ExecuteNodeResult,
	type InputItem,
} from '../helpers/n8n-engine';
import { apiProbeDescription } from '../helpers/api-probe';

export interface Recorded {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

export type Handler = (
	req: IncomingMessage,
	res: ServerResponse,
	recorded: Recorded,
) => void | Promise<void>;

export interface HostileServer {
	/** `http://127.0.0.1:port` (or https). */
	origin: string;
	/** `127.0.0.1:port`. */
	host: string;
	port: number;
	requests: Recorded[];
	handle: Handler;
	close(): Promise<void>;
}

let certificate: { key: string; cert: string } | undefined;

/** A throwaway self-signed certificate for 127.0.0.1, made by openssl in a temporary folder removed at once. */
export function selfSignedCertificate(): { key: string; cert: string } {
	if (certificate) return certificate;
	const dir = mkdtempSync(join(tmpdir(), 'ra-security-cert-'));
	try {
		const keyFile = join(dir, 'key.pem');
		const certFile = join(dir, 'cert.pem');
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'ec',
				'-pkeyopt',
				'ec_paramgen_curve:prime256v1',
				'-nodes',
				'-keyout',
				keyFile,
				'-out',
				certFile,
				'-subj',
				'/CN=127.0.0.1',
				'-days',
				'1',
				'-addext',
				'subjectAltName=IP:127.0.0.1',
			],
			{ stdio: 'ignore' },
		);
		certificate = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return certificate;
}

/**
 * Makes this process's https clients (n8n's agents included) trust the test certificate, as NODE_EXTRA_CA_CERTS
 * would at start-up: certificate checks stay on. Returns the function that undoes it.
 */
export function trustTestCertificate(): () => void {
	const { cert } = selfSignedCertificate();
	const proto = HttpsAgent.prototype as unknown as {
		createConnection: (options: IDataObject, cb?: unknown) => unknown;
	};
	const original = proto.createConnection;
	proto.createConnection = function (this: unknown, options: IDataObject, cb?: unknown) {
		return original.call(this, { ...options, ca: [cert] }, cb);
	};
	return () => {
		proto.createConnection = original;
	};
}

/** A server that records every request and answers with `handle` (replaceable per test). */
export async function startHostile(
	options: { tls?: boolean; bind?: string; handle?: Handler } = {},
): Promise<HostileServer> {
	const requests: Recorded[] = [];
	const state: HostileServer = {
		origin: '',
		host: '',
		port: 0,
		requests,
		handle:
			options.handle ??
			((_req, res) => json(res, 404, { error: { code: 'NOT_FOUND', message: 'nothing here' } })),
		close: async () => undefined,
	};
	const listener = (req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const recorded: Recorded = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString(),
			};
			requests.push(recorded);
			void Promise.resolve(state.handle(req, res, recorded)).catch(() => res.destroy());
		});
	};
	const server: Server = options.tls
		? createHttpsServer(selfSignedCertificate(), listener)
		: createHttpServer(listener);
	const sockets = new Set<import('node:net').Socket>();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	const bind = options.bind ?? '127.0.0.1';
	await new Promise<void>((resolve) => server.listen(0, bind, resolve));
	const port = (server.address() as AddressInfo).port;
	const hostName = bind === '0.0.0.0' ? '127.0.0.1' : bind;
	state.port = port;
	state.host = `${hostName}:${port}`;
	state.origin = `${options.tls ? 'https' : 'http'}://${state.host}`;
	state.close = async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	};
	return state;
}

export function json(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/** This machine's first non-loopback IPv4 address (a host that is not loopback, reachable without DNS). */
export function nonLoopbackAddress(): string {
	for (const entries of Object.values(networkInterfaces())) {
		for (const entry of entries ?? [])
			if (entry.family === 'IPv4' && !entry.internal) return entry.address;
	}
	throw new Error(
		'this machine has no non-loopback IPv4 address: the plain-http opt-in test needs one',
	);
}

/** A key that looks like a production key (svc_live_...) and is unique to the test. */
export function liveKey(label: string): string {
	return `svc_live_${label}_${Math.random().toString(36).slice(2)}${'K'.repeat(24)}`;
}

/** Every error the probe node threw, as thrown (own fields, non-enumerable `cause` included). */
export const thrown: unknown[] = [];

export type SecurityCall =
	| { call: 'api'; options: ApiRequestOptions }
	| { call: 'upload'; reportId: string; upload: UploadTarget };

/** A test-only node: calls the transport for each item; a thrown error is kept in `thrown` and thrown on to n8n. */
export class SecurityProbe implements INodeType {
	description = apiProbeDescription(
		'Security Probe',
		'securityProbe',
		'Test-only: calls the transport',
	);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const spec = items[itemIndex].json as unknown as SecurityCall;
			try {
				const result =
					spec.call === 'api'
						? { data: (await apiRequest.call(this, { ...spec.options, itemIndex })) as IDataObject }
						: await putResumeToStorage.call(this, {
								reportId: spec.reportId,
								upload: spec.upload,
								itemIndex,
								binaryPropertyName: 'data',
							});
				out.push({ json: result as unknown as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				thrown.push(error);
				throw error;
			}
		}
		return [out];
	}
}

export async function runProbe(
	credentials: ICredentialDataDecryptedObject,
	calls: Array<SecurityCall | InputItem>,
	extra: Partial<ExecuteNodeOptions> = {},
): Promise<ExecuteNodeResult & { thrownError?: unknown }> {
	const before = thrown.length;
	const items: InputItem[] = calls.map((c) =>
		'call' in c ? { json: c as unknown as IDataObject } : c,
	);
	const result = await executeNode({
		nodeType: new SecurityProbe(),
		credentialTypes: [new RecruitingAnalysisApi()],
		credentials: { recruitingAnalysisApi: credentials },
		parameters: {},
		items,
		...extra,
	});
	return { ...result, thrownError: thrown[before] };
}

/** JSON of anything (cycles cut, Errors with their own fields, `cause`, `stack` and `toJSON()`). */
export function everything(value: unknown): string {
	const seen = new WeakSet<object>();
	const text: string | undefined = JSON.stringify(value, function (_key, v: unknown) {
		if (typeof v === 'object' && v !== null) {
			if (seen.has(v)) return '[circular]';
			seen.add(v);
		}
		if (v instanceof Error) {
			const own: Record<string, unknown> = {};
			for (const name of Object.getOwnPropertyNames(v))
				own[name] = (v as unknown as Record<string, unknown>)[name];
			const asJson =
				typeof (v as { toJSON?: () => unknown }).toJSON === 'function'
					? (v as unknown as { toJSON: () => unknown }).toJSON()
					: undefined;
			return {
				...own,
				message: v.message,
				stack: v.stack,
				cause: (v as { cause?: unknown }).cause,
				toJSON: asJson,
			};
		}
		if (v instanceof Uint8Array) return Buffer.from(v).toString();
		return v;
	});
	return text ?? '';
}

/** What n8n keeps of a run (task data, run data, the run's error) and the error the node threw, as text. */
export function keptText(result: ExecuteNodeResult & { thrownError?: unknown }): string {
	return [
		everything(result.run),
		everything(result.taskData),
		everything(result.error),
		everything(result.thrownError),
	].join('\n');
}

/**
 * Records every line n8n's root logger is given while `body` runs, at every level the logger was built with (run
 * the file with N8N_LOG_LEVEL=debug, set before the engine starts: `useDebugLog()`), without printing them.
 */
export async function captureLog<T>(
	body: () => Promise<T>,
): Promise<{ value: T; lines: string[] }> {
	const logger = Container.get(Logger) as unknown as {
		log: (level: string, message: string, metadata: unknown) => void;
	};
	const lines: string[] = [];
	const hadOwn = Object.prototype.hasOwnProperty.call(logger, 'log');
	const original = logger.log;
	logger.log = (level: string, message: string, metadata: unknown) => {
		lines.push(`${level} ${message} ${everything(metadata)}`);
	};
	try {
		return { value: await body(), lines };
	} finally {
		if (hadOwn) logger.log = original;
		else delete (logger as { log?: unknown }).log;
	}
}

/** n8n's logger at debug level for this test file (set before the engine is first used; restored after). */
export function useDebugLog(): void {
	const previous = process.env.N8N_LOG_LEVEL;
	process.env.N8N_LOG_LEVEL = 'debug';
	afterAll(() => {
		if (previous === undefined) delete process.env.N8N_LOG_LEVEL;
		else process.env.N8N_LOG_LEVEL = previous;
	});
}

/** The level n8n's logger was built with. */
export function loggerLevel(): string {
	return String((Container.get(Logger) as unknown as { level?: unknown }).level);
}
