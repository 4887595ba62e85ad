// Workspace capacity: a refused request created nothing, so it is sent again; a run that learned the active-analysis
// limit holds its next starts until one of its own analyses (ReportWaiter) ends.
import { NodeOperationError, sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api, hasApiCondition, listPages, outcomeOf } from '../transport';
import { growingDelayMs } from '../transport/retry';

export const BATCH_CHUNK_SIZE = 20;

export const CAPACITY_WAIT_SECONDS = 300;
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 10_000;

/** One deadline bounds the whole wait: for a place under the run's learned limit (`waiter`), or a growing pause. */
export async function waitOutCapacity(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: () => Promise<IDataObject>,
	waiter?: ReportWaiter,
	conditions = ['PENDING_UPLOAD_LIMIT', 'ACTIVE_ANALYSIS_LIMIT'],
): Promise<IDataObject> {
	const started = Date.now();
	const deadline = started + CAPACITY_WAIT_SECONDS * 1000;
	for (let pauses = 0, refused = false; ; refused = true) {
		const outcome = waiter ? await waiter.sendWithRoom(deadline, write) : await outcomeOf(write);
		if (outcome.ok) {
			if (!refused) return outcome.value;
			const capacityWaitSeconds = Math.round((Date.now() - started) / 100) / 10;
			return { ...outcome.value, capacityWaitSeconds };
		}
		const held = waiter?.learnCapacity(outcome.error) === true;
		const retried = conditions.some((condition) => hasApiCondition(outcome.error, condition));
		if (!retried || Date.now() >= deadline || ctx.getExecutionCancelSignal?.()?.aborted)
			throw outcome.error;
		if (held) {
			ctx.logger?.info?.(
				"Recruiting Analysis: a start waits for one of this run's analyses to finish (workspace capacity)",
			);
			continue;
		}
		const pause = Math.min(
			growingDelayMs(pauses++, FIRST_PAUSE_MS, MAX_PAUSE_MS),
			Math.max(0, deadline - Date.now()),
		);
		ctx.logger?.info?.(
			`Recruiting Analysis: item ${itemIndex} waits ${pause} ms for workspace capacity (refusal ${pauses})`,
		);
		await sleep(pause);
	}
}

// A list page answers for up to 100 reports; a report the pages miss is read alone, for a single read's exact error.
export const REPORT_PAGE_LIMIT = 100;
const CHECK_PAGES_FRESH_MS = 60_000;

// One per node run (engine/run.ts): a report's creation time never changes, so the run keeps it to narrow later pages.
export class ReportPages {
	private readonly createdTimes = new Map<string, number>();
	private checkPages?: { readAt: number; summaries: Map<string, IDataObject> };

	constructor(private readonly ctx: IExecuteFunctions) {}

	windowOf(ids: string[]): IDataObject | undefined {
		const values = ids.map((id) => this.createdTimes.get(id));
		if (values.length === 0 || values.includes(undefined)) return undefined;
		return {
			createdAfter: new Date(Math.min(...(values as number[])) - 1).toISOString(),
			createdBefore: new Date(Math.max(...(values as number[])) + 1).toISOString(),
		};
	}

	async walk(
		itemIndex: number,
		qs: IDataObject,
		wanted: number,
		visit: (report: IDataObject) => void,
		done: () => boolean,
	): Promise<void> {
		let pages = 0;
		const path = '/api/v1/reports';
		const request = { method: 'GET', path, qs, pageSize: REPORT_PAGE_LIMIT, itemIndex } as const;
		for await (const page of listPages.call(this.ctx, request)) {
			for (const report of page.items) {
				const at = Date.parse(String(report.createdAt));
				if (Number.isFinite(at)) this.createdTimes.set(String(report.id), at);
				visit(report);
			}
			if (++pages > Math.ceil(wanted / REPORT_PAGE_LIMIT) || done()) return;
		}
	}

	async summaries(itemIndex: number, ids: string[], all = false) {
		const wanted = [...new Set(ids)];
		const found = new Map<string, IDataObject>();
		await this.walk(
			itemIndex,
			this.windowOf(wanted) ?? {},
			wanted.length,
			(report) => {
				if (all || wanted.includes(String(report.id))) found.set(String(report.id), report);
			},
			() => wanted.every((id) => found.has(id)),
		);
		return found;
	}

	// Each summary is handed out once: a report named again is read alone, since this run may have started it meanwhile.
	async forCheck(itemIndex: number, ids: string[], laterIds: string[]) {
		let pages = this.checkPages;
		if (!pages || Date.now() - pages.readAt >= CHECK_PAGES_FRESH_MS) {
			const summaries = await this.summaries(itemIndex, [...ids, ...laterIds], true).catch(
				() => undefined,
			);
			if (!summaries) return new Map();
			this.checkPages = pages = { readAt: Date.now(), summaries };
		}
		const found = new Map<string, IDataObject>();
		for (const id of ids) {
			const summary = pages.summaries.get(id);
			if (!summary) continue;
			found.set(id, summary);
			pages.summaries.delete(id);
		}
		return found;
	}
}

export const TERMINAL_REPORT_STATES = ['completed', 'requires_action', 'failed'];

const MIN_ROUND_GAP_MS = 100;
/** While lanes wait for a place, each round should see some analyses finish, not one at a time. */
const BOUND_ROUNDS_PER_ANALYSIS = 20;
const DEFAULT_FIRST_READ_MS = 500;
const MIN_FIRST_READ_MS = 100;
const MAX_READ_DELAY_MS = 10_000;
const MAX_QUOTE_HOLD_MS = 10_000;
const WAIT_READ_CONCURRENCY = 5;

export interface WaitOutcome {
	status: IDataObject;
	/** Set when a list page showed the report final, so Report Summary needs no read of its own. */
	summary?: IDataObject;
	timedOut: boolean;
}

interface Entry {
	reportId: string;
	itemIndex: number;
	registeredAt: number;
	deadline: number;
	nextReadAt: number;
	slowReads: number;
	createdAt?: string;
	last?: IDataObject;
	waits: Array<{ resolve: (outcome: WaitOutcome) => void; reject: (error: unknown) => void }>;
}

/** The fields of GET /reports/{id}/status, taken from a summary so that a timed-out output looks the same. */
const STATUS_FIELDS = ['id', 'status', 'attemptId', 'code', 'reportSystemVersion'];
const statusOf = (report: IDataObject): IDataObject =>
	Object.fromEntries(STATUS_FIELDS.filter((key) => key in report).map((key) => [key, report[key]]));

/** One per node run: reads every pending report together from list pages, and gates starts by learned capacity. */
export class ReportWaiter {
	private readonly pending = new Map<string, Entry>();
	private loop?: Promise<void>;
	/** Wakes the loop early when a report is added or the waiter closes, never for a place: rounds keep their gap. */
	private wakeLoop?: () => void;
	private lastRound = 0;
	private closedWith?: unknown;
	/** Start-to-terminal times of the last 20 reports: the schedule follows what this run observes. */
	private readonly finished: number[] = [];
	private capacity = Number.POSITIVE_INFINITY;
	/** Starts in flight count against the capacity until their wait begins. */
	private starting = 0;
	/** Woken whenever a place may have opened or been taken: each re-checks its own condition. */
	private readonly placeWaiters: Array<() => void> = [];
	private lanesWaiting = 0;
	private followUps = 0;
	private readonly followUpQueue: Array<() => void> = [];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly pages: ReportPages,
	) {}

	private expectedMs(): number {
		const sorted = [...this.finished].sort((a, b) => a - b);
		return sorted.length === 0 ? DEFAULT_FIRST_READ_MS : sorted[sorted.length >> 1];
	}

	/** Flat steps until twice the observed time, so a usual report is seen within a step; then growing. */
	private nextReadDelayMs(entry: Entry, now: number): number {
		const steps = this.lanesWaiting > 0 ? BOUND_ROUNDS_PER_ANALYSIS : 10;
		const learned = Math.max(MIN_ROUND_GAP_MS, this.expectedMs() / steps);
		const step = this.finished.length > 0 ? learned : DEFAULT_FIRST_READ_MS;
		if (now < entry.registeredAt + 2 * this.expectedMs()) return step;
		entry.slowReads++;
		return growingDelayMs(Math.min(entry.slowReads, 20), step, MAX_READ_DELAY_MS);
	}

	/** Resolves at a terminal status, or after `timeoutSeconds` with the last status (elapsed time proves nothing). */
	async wait(reportId: string, itemIndex: number, timeoutSeconds: number, justStarted = true) {
		if (this.closedWith !== undefined) throw this.closedWith;
		const now = Date.now();
		const learned = Math.min(
			MAX_READ_DELAY_MS,
			Math.max(MIN_FIRST_READ_MS, Math.round(0.9 * this.expectedMs())),
		);
		const firstRead = this.finished.length > 0 ? learned : DEFAULT_FIRST_READ_MS;
		return await new Promise<WaitOutcome>((resolve, reject) => {
			// Two items about one report share its wait, so that neither is left unsettled.
			const earlier = this.pending.get(reportId);
			if (earlier) return void earlier.waits.push({ resolve, reject });
			const deadline = now + Math.max(0, timeoutSeconds) * 1000;
			this.pending.set(reportId, {
				reportId,
				itemIndex,
				registeredAt: now,
				deadline,
				nextReadAt: Math.min(deadline, now + (justStarted ? firstRead : 0)),
				slowReads: 0,
				waits: [{ resolve, reject }],
			});
			this.wakeLoop?.();
			this.loop ??= this.run();
		});
	}

	/** A follow-up read (summary, result): the run's waits share these few places. */
	async read<T>(request: () => Promise<T>): Promise<T> {
		if (this.followUps >= WAIT_READ_CONCURRENCY)
			await new Promise<void>((resolve) => this.followUpQueue.push(resolve));
		this.followUps++;
		try {
			return await request();
		} finally {
			this.followUps--;
			this.followUpQueue.shift()?.();
		}
	}

	/** Sends a start once this run has room for it: its analyses in flight and its starts under the learned capacity. */
	async sendWithRoom(deadline: number, submit: () => Promise<IDataObject>) {
		this.lanesWaiting++;
		while (
			this.closedWith === undefined &&
			this.pending.size > 0 &&
			this.pending.size + this.starting >= this.capacity
		) {
			const remaining = deadline - Date.now();
			if (remaining <= 0) break;
			await sleepOrWake(Math.min(MAX_READ_DELAY_MS, remaining), this.placeChange());
		}
		this.lanesWaiting--;
		this.wakePlaceWaiters();
		// Taken in the same turn as the check, so that two lanes woken together do not both take the last place.
		this.starting++;
		const outcome = await outcomeOf(submit);
		this.starting--;
		return outcome;
	}

	/** ACTIVE_ANALYSIS_LIMIT sets the run's capacity to its analyses in flight; true when one of them can still end. */
	learnCapacity(error: unknown): boolean {
		if (!hasApiCondition(error, 'ACTIVE_ANALYSIS_LIMIT')) return false;
		this.capacity = Math.max(1, this.pending.size);
		return this.pending.size > 0 && this.closedWith === undefined;
	}

	private placeChange(): Promise<void> {
		return new Promise<void>((resolve) => this.placeWaiters.push(resolve));
	}

	private wakePlaceWaiters(): void {
		for (const resolve of this.placeWaiters.splice(0)) resolve();
	}

	placeOpening(held: number): Promise<void> | undefined {
		if (this.lanesWaiting <= held || this.closedWith !== undefined) return undefined;
		return this.placeChange();
	}

	async close(error: unknown): Promise<void> {
		this.closedWith ??= error;
		for (const entry of this.pending.values()) for (const wait of entry.waits) wait.reject(error);
		this.pending.clear();
		this.wakeLoop?.();
		this.wakePlaceWaiters();
		await this.loop;
	}

	private settle(entry: Entry, outcome: WaitOutcome | { error: unknown }): void {
		if (this.pending.get(entry.reportId) !== entry) return;
		this.pending.delete(entry.reportId);
		for (const wait of entry.waits) {
			if ('error' in outcome) wait.reject(outcome.error);
			else wait.resolve(outcome);
		}
		this.wakePlaceWaiters();
	}

	private async run(): Promise<void> {
		for (;;) {
			// Checked and cleared in the same turn as wait() checks it, so a report added now starts a new loop.
			if (this.pending.size === 0 || this.closedWith !== undefined) {
				this.loop = undefined;
				return;
			}
			const next = Math.min(...[...this.pending.values()].map((entry) => entry.nextReadAt));
			const gap = this.lanesWaiting > 0 ? this.expectedMs() / BOUND_ROUNDS_PER_ANALYSIS : 0;
			const at = Math.max(next, this.lastRound + Math.max(MIN_ROUND_GAP_MS, Math.round(gap)));
			const now = Date.now();
			if (at > now) {
				await sleepOrWake(at - now, new Promise((resolve) => (this.wakeLoop = resolve)));
				continue;
			}
			if (this.ctx.getExecutionCancelSignal?.()?.aborted) {
				const cancelled = 'The execution was cancelled while waiting';
				const error = new NodeOperationError(this.ctx.getNode(), cancelled);
				for (const entry of [...this.pending.values()]) this.settle(entry, { error });
				continue;
			}
			await this.round();
		}
	}

	private async round(): Promise<void> {
		this.lastRound = Date.now();
		const due = [...this.pending.values()].filter((entry) => entry.nextReadAt <= this.lastRound);
		const seen = new Set<Entry>();
		// A list page that failed is no answer: what it did not show is read alone, with a single read's errors.
		await this.readPages(due, seen).catch(() => undefined);
		const unseen = due.filter((entry) => !seen.has(entry));
		await mapWithConcurrency(unseen, WAIT_READ_CONCURRENCY, async (entry) => {
			try {
				const path = apiPath('/api/v1/reports/{}/status', entry.reportId);
				entry.last = await api(this.ctx, { method: 'GET', path, itemIndex: entry.itemIndex });
				seen.add(entry);
			} catch (error) {
				this.settle(entry, { error });
			}
		});
		const now = Date.now();
		for (const entry of seen) {
			const report = entry.last as IDataObject;
			if (TERMINAL_REPORT_STATES.includes(String(report.status))) {
				this.finished.push(now - entry.registeredAt);
				if (this.finished.length > 20) this.finished.shift();
				const summary = entry.createdAt !== undefined && 'createdAt' in report ? report : undefined;
				this.settle(entry, { status: statusOf(report), summary, timedOut: false });
				continue;
			}
			if (!due.includes(entry)) continue;
			if (now >= entry.deadline) {
				this.settle(entry, { status: statusOf(report), timedOut: true });
				continue;
			}
			entry.nextReadAt = Math.min(entry.deadline, now + this.nextReadDelayMs(entry, now));
		}
	}

	/** The newest pages first (creation times unknown), then the window of the seen reports' creation times. */
	private async readPages(due: Entry[], seen: Set<Entry>): Promise<void> {
		const missing = () => due.filter((entry) => !seen.has(entry));
		const visit = (report: IDataObject) => {
			const entry = this.pending.get(String(report.id));
			if (!entry) return;
			entry.createdAt = String(report.createdAt);
			entry.last = report;
			seen.add(entry);
		};
		const walk = async (qs: IDataObject, wanted: number): Promise<void> =>
			await this.pages.walk(due[0].itemIndex, qs, wanted, visit, () => missing().length === 0);
		if (due.some((entry) => entry.createdAt === undefined)) await walk({}, this.pending.size);
		const known = missing().filter((entry) => entry.createdAt !== undefined);
		const window = this.pages.windowOf(known.map((entry) => entry.reportId));
		if (window) await walk(window, known.length);
	}
}

export async function quoteAnalysis(ctx: IExecuteFunctions, itemIndex: number, reportId: string) {
	const path = '/api/v1/analysis-quotes';
	return await api(ctx, { method: 'POST', path, body: { reportId }, itemIndex });
}

interface QuoteWish {
	itemIndex: number;
	reportId: string;
	resolve: (quote: IDataObject) => void;
	reject: (error: unknown) => void;
}

/**
 * A run's start quotes: sent alone when none is in flight, else gathered into one batch quote as soon as it
 * answers (no timer). A batch quote's fingerprint equals a single quote's, so the start's key is unchanged.
 */
export function quoteGatherer(ctx: IExecuteFunctions, waiter: () => ReportWaiter | undefined) {
	let busy = false;
	const queue: QuoteWish[] = [];
	let wakeHold: (() => void) | undefined;

	const alone = async (wish: QuoteWish) =>
		await quoteAnalysis(ctx, wish.itemIndex, wish.reportId).then(wish.resolve, wish.reject);

	// Holds the quotes while more lanes wait for a place than are queued: lanes released one by one quote together.
	const hold = async (): Promise<void> => {
		const until = Date.now() + MAX_QUOTE_HOLD_MS;
		while (queue.length < BATCH_CHUNK_SIZE && Date.now() < until) {
			const opening = waiter()?.placeOpening(queue.length);
			if (!opening) return;
			const asked = new Promise<void>((resolve) => (wakeHold = resolve));
			await sleepOrWake(until - Date.now(), Promise.race([opening, asked]));
		}
	};

	// A report the batch could not quote is quoted alone, so its answer and error are a single quote's.
	const send = async (group: QuoteWish[]): Promise<void> => {
		if (group.length === 1) return await alone(group[0]);
		const keyOf = (position: number) => `quote-${position}`;
		const items = group.map((wish, position) => ({
			itemKey: keyOf(position),
			input: { reportId: wish.reportId },
		}));
		const path = '/api/v1/analysis-batch-quotes';
		const itemIndex = group[0].itemIndex;
		const request = { method: 'POST', path, body: { items }, itemIndex } as const;
		// A failed batch quote leaves every report to its own quote below.
		const answer = await api(ctx, request).catch(() => undefined);
		const quotes = (Array.isArray(answer?.items) ? answer.items : []) as IDataObject[];
		group.forEach((wish, position) => {
			const quote = quotes.find((item) => item.itemKey === keyOf(position))?.quote as
				IDataObject | null | undefined;
			// Not awaited: the next gathered quotes need not wait for this report's own request.
			if (quote && typeof quote.fingerprint === 'string') wish.resolve(quote);
			else void alone(wish);
		});
	};

	const drain = async (): Promise<void> => {
		busy = true;
		while (queue.length > 0) {
			await hold();
			// A batch names each report once: a report named twice waits for the next request.
			const group: QuoteWish[] = [];
			for (let i = 0; i < queue.length && group.length < BATCH_CHUNK_SIZE;) {
				if (group.some((wish) => wish.reportId === queue[i].reportId)) i++;
				else group.push(...queue.splice(i, 1));
			}
			await send(group);
		}
		busy = false;
	};

	return {
		quote: async (itemIndex: number, reportId: string): Promise<IDataObject> =>
			await new Promise<IDataObject>((resolve, reject) => {
				queue.push({ itemIndex, reportId, resolve, reject });
				wakeHold?.();
				if (!busy) void drain();
			}),
	};
}

// Work in flight is awaited before the error is rethrown: no dangling requests.
export async function mapWithConcurrency<T>(
	values: T[],
	limit: number,
	worker: (value: T) => Promise<void>,
): Promise<void> {
	let next = 0;
	let failure: { error: unknown } | undefined;
	const lane = async () => {
		while (!failure && next < values.length) {
			try {
				await worker(values[next++]);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, values.length)) }, lane));
	if (failure) throw failure.error;
}

// Cut into 250 ms steps: n8n 1.x's sleep takes no abort signal, and no timer may outlive a finished run by more.
async function sleepOrWake(ms: number, wake: Promise<void>): Promise<void> {
	let woken = false;
	const woke = wake.then(() => (woken = true));
	const until = Date.now() + ms;
	while (!woken && Date.now() < until)
		await Promise.race([sleep(Math.min(250, until - Date.now())), woke]);
}
