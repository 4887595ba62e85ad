/**
 * The local Recruiting Analysis sandbox. `startSandbox(options)` starts a server on loopback and returns
 * its handle; see sandbox/README.md for the options and the control endpoints.
 */
import { Agent } from 'undici';
import { buildApp } from './app';
import { SandboxClock } from './clock';
import type { Ctx, RecordedResponse, SandboxOptions } from './context';
import { Timers } from './context';
import { createKey } from './auth';
import { Store, type SeedInfo } from './store';
import { ALL_SCOPES } from './types';
import { createWorkspace } from './workspaces';
import { resumeWork, sweepAll } from './resume';
import { resolveLimits } from './capacity';

export type { SandboxOptions, RecordedResponse } from './context';
export { PROFILES, resolveLimits, type ProfileName, type WorkspaceLimits } from './capacity';
export type { SeedInfo } from './store';
export type { Counters } from './types';

export interface SandboxHandle {
	baseUrl: string;
	port: number;
	/** The seeded workspace: a key with every scope, its webhook secret and an ACTIVE job. */
	seed: SeedInfo;
	/** Every /api/v1 and /_storage response when `recordResponses` is set. */
	responses: RecordedResponse[];
	clock: SandboxClock;
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
	const opts = {
		port: options.port ?? 4010,
		host: options.host ?? '127.0.0.1',
		workerDelayMs: options.workerDelayMs ?? 50,
		webhookTimeScale: options.webhookTimeScale ?? 0.001,
		webhookDeadlineMs: options.webhookDeadlineMs ?? 10_000,
		recordResponses: options.recordResponses ?? false,
		dataFile: options.dataFile,
		log: options.log ?? false,
		docsOrigin: options.docsOrigin,
		profile: options.profile ?? 'default',
		limits: resolveLimits(options.profile, options.limits),
	};
	const store = opts.dataFile ? Store.load(opts.dataFile) : new Store();
	const clock = new SandboxClock();
	clock.offset = store.clockOffset;
	let dirty = false;
	const ctx: Ctx = {
		store,
		clock,
		opts,
		timers: new Timers(),
		baseUrl: '',
		responses: [],
		dispatcher: new Agent({ connections: 16 }),
		markDirty: () => {
			dirty = true;
		},
	};
	const { app } = buildApp(ctx);
	await app.listen({ port: opts.port, host: opts.host });
	const address = app.server.address();
	const port = typeof address === 'object' && address ? address.port : opts.port;
	const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
	ctx.baseUrl = options.publicUrl
		? options.publicUrl.replace(/\/+$/, '')
		: `http://${host}:${port}`;

	const seedKey = store.seed ? store.keys[store.seed.apiKey] : undefined;
	if (!store.seed || !store.workspaces[store.seed.workspaceId]) {
		store.seed = createWorkspace(ctx);
	} else if (!seedKey || seedKey.revoked || seedKey.expiresAt <= clock.now()) {
		store.seed = {
			...store.seed,
			apiKey: createKey(ctx, store.seed.workspaceId, [...ALL_SCOPES], 90).secret,
		};
	}

	const save = () => {
		if (opts.dataFile && dirty) {
			dirty = false;
			store.save(opts.dataFile);
		}
	};
	const saver = opts.dataFile ? setInterval(save, 500) : undefined;
	saver?.unref();
	save();
	resumeWork(ctx);
	const housekeeping = setInterval(() => sweepAll(ctx), 1000);
	housekeeping.unref();

	return {
		baseUrl: ctx.baseUrl,
		port,
		seed: { ...store.seed },
		responses: ctx.responses,
		clock,
		close: async () => {
			ctx.timers.clearAll();
			if (saver) clearInterval(saver);
			clearInterval(housekeeping);
			await app.close();
			await ctx.dispatcher.destroy().catch(() => undefined);
			save();
		},
	};
}
