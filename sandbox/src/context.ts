/** What every part of the sandbox shares: state, clock, options, timers and the event/webhook/worker services. */
import type { Dispatcher } from 'undici';
import type { SandboxClock } from './clock';
import type { Store } from './store';
import type { ProfileName, WorkspaceLimits } from './capacity';

export interface SandboxOptions {
	port?: number;
	/** The address to listen on (default 127.0.0.1; 0.0.0.0 for every interface, so a container can reach it). */
	host?: string;
	/**
	 * The address clients use, when it is not `http://<host>:<port>` (listening on 0.0.0.0, or behind a container's
	 * host name): the base URL printed and the one in signed upload URLs and invitation links.
	 */
	publicUrl?: string;
	/** Each analysis worker step and each automatic interview step, in real milliseconds (default 50). */
	workerDelayMs?: number;
	/** Multiplies the webhook retry schedule: 1 = real minutes and hours (default 0.001). */
	webhookTimeScale?: number;
	/** The sender's deadline per HTTP attempt in real milliseconds (default 10000, the spec's ten seconds). */
	webhookDeadlineMs?: number;
	/** Keep every /api/v1 and /_storage response in `responses`. */
	recordResponses?: boolean;
	/** Persist state to this JSON file. */
	dataFile?: string;
	/** One log line per request on stdout. */
	log?: boolean;
	/** The documentation origin allowed to call the API from a browser (sandbox rule 5); others get 403. */
	docsOrigin?: string;
	/** Limits of every new workspace: `default` (generous) or `strict` (small, deadline and quote age in effect). */
	profile?: ProfileName;
	/** Limits of every new workspace, over the profile's (each also settable per workspace by PATCH). */
	limits?: Partial<WorkspaceLimits>;
}

export interface ResolvedOptions {
	port: number;
	host: string;
	workerDelayMs: number;
	webhookTimeScale: number;
	webhookDeadlineMs: number;
	recordResponses: boolean;
	dataFile: string | undefined;
	log: boolean;
	docsOrigin: string | undefined;
	profile: ProfileName;
	limits: WorkspaceLimits;
}

export interface RecordedResponse {
	method: string;
	route: string;
	url: string;
	status: number;
	headers: Record<string, string>;
	body: unknown;
}

/** Real timers grouped by workspace so a reset can cancel queued work, and close() can stop everything. */
export class Timers {
	private handles = new Map<NodeJS.Timeout, string>();
	closed = false;

	schedule(workspaceId: string, ms: number, fn: () => void | Promise<void>): void {
		if (this.closed) return;
		const handle = setTimeout(
			() => {
				this.handles.delete(handle);
				Promise.resolve()
					.then(fn)
					.catch((err: unknown) => console.error('[sandbox] background task failed:', err));
			},
			Math.max(0, ms),
		);
		this.handles.set(handle, workspaceId);
	}

	cancelWorkspace(workspaceId: string): void {
		for (const [h, wid] of this.handles) {
			if (wid === workspaceId) {
				clearTimeout(h);
				this.handles.delete(h);
			}
		}
	}

	clearAll(): void {
		this.closed = true;
		for (const h of this.handles.keys()) clearTimeout(h);
		this.handles.clear();
	}
}

export interface Ctx {
	store: Store;
	clock: SandboxClock;
	opts: ResolvedOptions;
	timers: Timers;
	baseUrl: string;
	responses: RecordedResponse[];
	/** The webhook sender's own connection pool (closed with the sandbox). */
	dispatcher: Dispatcher;
	markDirty(): void;
}
