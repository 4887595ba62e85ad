/**
 * Shared waiting for the item operations of one node run (Analyze Resume and Analysis > Start with Wait for
 * Completion). A lane submits an item and hands its report to the waiter; the lane is then free for the next
 * item (the operation returns a `Later`, which the engine settles after the lanes). The waiter reads every pending
 * report together, in rounds: one page of GET /api/v1/reports (newest first, 100 summaries a page, narrowed by
 * createdAfter / createdBefore once the reports' creation times are known) answers for up to 100 reports and
 * carries the summary that Output After Waiting = Report Summary needs, so no summary is read twice. A report the
 * pages did not show (deleted, or created outside the window) is read alone with GET /reports/{id}/status, which
 * also gives every error exactly as the per-item wait gave it.
 *
 * Each report keeps its own schedule (its first read after the analysis time the waiter has observed so far, then
 * every tenth of it (twentieth while lanes wait for a place) until twice that time, then a growing delay, never past
 * its own wait limit); a round happens when a report is due, at most one per roundGapMs, and every report the round
 * sees is updated, due or not.
 *
 * Capacity (spec: "ACTIVE_ANALYSIS_LIMIT means wait for capacity"): capacity.ts repeats a start refused for the
 * workspace's active-analysis limit; once one was refused, this run's further starts wait here until one of its
 * own analyses has finished, rather than be refused again.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../transport';
import { api } from '../transport/api';
import { mapWithConcurrency, sleepOrWake } from './concurrency';
import { hasApiCondition } from '../transport/conditions';
import { growingDelayMs } from '../transport/retry';
import { pageBudget, walkReportPages } from './reportPages';

export const TERMINAL_REPORT_STATES = ['completed', 'requires_action', 'failed'];

/** At most one round of reads per this interval. */
const MIN_ROUND_GAP_MS = 100;
/** While lanes wait for a place, at most this many rounds per observed analysis time (each sees several finish). */
const BOUND_ROUNDS_PER_ANALYSIS = 20;
/** The first read of a report before the waiter has seen any analysis finish (an analysis just started cannot have). */
const DEFAULT_FIRST_READ_MS = 500;
const MIN_FIRST_READ_MS = 100;
const MAX_READ_DELAY_MS = 10_000;
/** Reads of single reports (status fallback) and follow-up reads (summaries, results) at the same time. */
export const WAIT_READ_CONCURRENCY = 5;

/** The fields of GET /reports/{id}/status, taken from a summary so that a timed-out output looks the same. */
const STATUS_FIELDS = ['id', 'status', 'attemptId', 'code', 'reportSystemVersion'];

export interface WaitOutcome {
	/** The report status (GET /status fields). */
	status: IDataObject;
	/** The report summary, when a list page showed the report in its final state. */
	summary?: IDataObject;
	timedOut: boolean;
}

interface Entry {
	reportId: string;
	itemIndex: number;
	registeredAt: number;
	deadline: number;
	nextReadAt: number;
	reads: number;
	/** Reads after the report outlived twice the observed analysis time (each one waits longer). */
	slowReads: number;
	createdAt?: string;
	last?: IDataObject;
	resolve: (outcome: WaitOutcome) => void;
	reject: (error: unknown) => void;
}

const statusOf = (report: IDataObject): IDataObject =>
	Object.fromEntries(STATUS_FIELDS.filter((key) => key in report).map((key) => [key, report[key]]));

const isTerminal = (report: IDataObject | undefined): boolean =>
	TERMINAL_REPORT_STATES.includes(String(report?.status));

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

export class ReportWaiter {
	private readonly pending = new Map<string, Entry>();
	private loop?: Promise<void>;
	private running = false;
	private wake?: () => void;
	private lastRound = 0;
	private closedWith?: unknown;
	/** Times from a start to the read that found the report terminal (the last 20). */
	private readonly finished: number[] = [];
	/** Learned from ACTIVE_ANALYSIS_LIMIT: how many of ours may run at once (Infinity until refused). */
	private capacity = Number.POSITIVE_INFINITY;
	/** Starts of ours in flight (they count against the capacity until their wait begins). */
	private starting = 0;
	private readonly slotWaiters: Array<() => void> = [];
	/** Lanes waiting in slot() for a place, and those waiting for that to change (placeOpening). */
	private lanesWaiting = 0;
	private readonly openingWaiters: Array<() => void> = [];
	/** Follow-up reads (summary, result) in flight, and those waiting for a turn. */
	private followUps = 0;
	private readonly followUpQueue: Array<() => void> = [];
	/** What the rounds cost (for tests and the benchmark's notes). */
	readonly stats = { rounds: 0, listPages: 0, statusReads: 0 };

	constructor(private readonly ctx: IExecuteFunctions) {}

	/** The analysis time observed in this run (median of the last 20, start to the read that found it finished). */
	private expectedMs(): number {
		return this.finished.length === 0 ? DEFAULT_FIRST_READ_MS : median(this.finished);
	}

	/** How long after its start a report is read first: 500 ms, then just under the analysis time observed so far. */
	firstReadDelayMs(): number {
		if (this.finished.length === 0) return DEFAULT_FIRST_READ_MS;
		return Math.min(
			MAX_READ_DELAY_MS,
			Math.max(MIN_FIRST_READ_MS, Math.round(0.9 * this.expectedMs())),
		);
	}

	/**
	 * The delay to a report's next read once a read found it running. Every tenth of the observed analysis time
	 * (500 ms before any was observed), kept flat until the report has run twice as long as that, so a report
	 * that finishes in about the usual time is seen within one step; growing ×1.5 a read only after that (a report
	 * far slower than the others, or the first of a run whose analyses take seconds).
	 */
	private nextReadDelayMs(entry: Entry, now: number): number {
		const observed = this.finished.length > 0;
		// While lanes wait for a place, in the steps of the rounds (roundGapMs), so that every round sees some finish.
		const steps = this.lanesWaiting > 0 ? BOUND_ROUNDS_PER_ANALYSIS : 10;
		const step = observed
			? Math.max(MIN_ROUND_GAP_MS, this.expectedMs() / steps)
			: DEFAULT_FIRST_READ_MS;
		const flatUntil =
			entry.registeredAt + 2 * (observed ? this.expectedMs() : DEFAULT_FIRST_READ_MS);
		if (now < flatUntil) return step;
		entry.slowReads++;
		return growingDelayMs(Math.min(entry.slowReads, 20), step, MAX_READ_DELAY_MS);
	}

	get inFlight(): number {
		return this.pending.size;
	}

	/** Waits for the report to reach a terminal status, or for `timeoutSeconds` (then the last status, timedOut). */
	async wait(
		reportId: string,
		itemIndex: number,
		timeoutSeconds: number,
		justStarted = true,
	): Promise<WaitOutcome> {
		if (this.closedWith !== undefined) throw this.closedWith;
		const now = Date.now();
		return await new Promise<WaitOutcome>((resolve, reject) => {
			const deadline = now + Math.max(0, timeoutSeconds) * 1000;
			this.pending.set(reportId, {
				reportId,
				itemIndex,
				registeredAt: now,
				deadline,
				nextReadAt: Math.min(deadline, now + (justStarted ? this.firstReadDelayMs() : 0)),
				reads: 0,
				slowReads: 0,
				resolve,
				reject,
			});
			this.wake?.();
			if (!this.running) {
				this.running = true;
				this.loop = this.run();
			}
		});
	}

	/** Runs a follow-up read (summary, result) with at most WAIT_READ_CONCURRENCY at a time across the run. */
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

	/**
	 * Runs `submit` (a start). When the API refuses one of this run's starts for the active-analysis limit, the
	 * limit is learned (as many as were running then) and the start waits here until one of this run's own analyses
	 * has finished, then is sent again (the same request: a refused start created nothing); later starts wait for a
	 * place before they are sent, instead of being refused. Only when none of ours is running (the capacity is
	 * held by others) does the refusal go up to capacity.ts, which repeats it after a timed pause. A start that
	 * was refused and then admitted says how long it waited (`capacityWaitSeconds`).
	 */
	async withinCapacity(deadline: number, submit: () => Promise<IDataObject>): Promise<IDataObject> {
		const started = Date.now();
		for (let refused = false; ; refused = true) {
			await this.slot(deadline);
			const outcome = await submit().then(
				(value) => ({ ok: true as const, value }),
				(error: unknown) => ({ ok: false as const, error }),
			);
			this.starting--;
			if (outcome.ok) {
				if (!refused) return outcome.value;
				return {
					...outcome.value,
					capacityWaitSeconds: Math.round((Date.now() - started) / 100) / 10,
				};
			}
			if (!hasApiCondition(outcome.error, 'ACTIVE_ANALYSIS_LIMIT')) throw outcome.error;
			this.capacity = Math.max(1, this.pending.size);
			if (this.pending.size === 0 || this.closedWith !== undefined || Date.now() >= deadline)
				throw outcome.error;
			this.ctx.logger?.info?.(
				"Recruiting Analysis: a start waits for one of this run's analyses to finish (workspace capacity)",
			);
		}
	}

	/** Waits for a free place and takes it (`starting` counts it until the start has answered). */
	private async slot(deadline: number): Promise<void> {
		this.lanesWaiting++;
		while (
			this.closedWith === undefined &&
			this.pending.size > 0 &&
			this.pending.size + this.starting >= this.capacity
		) {
			const remaining = deadline - Date.now();
			if (remaining <= 0) break;
			await sleepOrWake(
				Math.min(MAX_READ_DELAY_MS, remaining),
				new Promise<void>((resolve) => this.slotWaiters.push(resolve)),
			);
		}
		this.lanesWaiting--;
		for (const resolve of this.openingWaiters.splice(0)) resolve();
		// Taken in the same turn as the check, so that two lanes woken together do not both take the last place.
		this.starting++;
	}

	private wakeSlotWaiters(): void {
		for (const resolve of [...this.slotWaiters.splice(0), ...this.openingWaiters.splice(0)])
			resolve();
	}

	/**
	 * While more lanes wait for a place (bound by capacity) than `held`, a promise that settles when a place opens,
	 * a lane stops waiting or the waiting ends; otherwise undefined. A step its lane would only wait after anyway
	 * (the quote) can be held back while enough lanes are ready to take the next places (actions/analysis/quotes.ts).
	 */
	placeOpening(held: number): Promise<void> | undefined {
		if (this.lanesWaiting <= held || this.closedWith !== undefined) return undefined;
		return new Promise<void>((resolve) => this.openingWaiters.push(resolve));
	}

	/** The least time between two rounds: longer while lanes wait for a place (see BOUND_ROUNDS_PER_ANALYSIS). */
	private roundGapMs(): number {
		if (this.lanesWaiting === 0) return MIN_ROUND_GAP_MS;
		return Math.max(MIN_ROUND_GAP_MS, Math.round(this.expectedMs() / BOUND_ROUNDS_PER_ANALYSIS));
	}

	/** Stops waiting: every pending wait rejects with `error`; resolves once no read of the waiter is in flight. */
	async close(error: unknown): Promise<void> {
		this.closedWith ??= error;
		for (const entry of this.pending.values()) entry.reject(error);
		this.pending.clear();
		this.wake?.();
		this.wakeSlotWaiters();
		await this.loop;
	}

	private settle(entry: Entry, outcome: WaitOutcome): void {
		if (this.pending.get(entry.reportId) !== entry) return;
		this.pending.delete(entry.reportId);
		entry.resolve(outcome);
		this.wakeSlotWaiters();
	}

	private fail(entry: Entry, error: unknown): void {
		if (this.pending.get(entry.reportId) !== entry) return;
		this.pending.delete(entry.reportId);
		entry.reject(error);
		this.wakeSlotWaiters();
	}

	private async run(): Promise<void> {
		for (;;) {
			// Checked and cleared in the same turn as wait() checks it, so a report added now starts a new loop.
			if (this.pending.size === 0 || this.closedWith !== undefined) {
				this.running = false;
				return;
			}
			const next = Math.min(...[...this.pending.values()].map((entry) => entry.nextReadAt));
			const at = Math.max(next, this.lastRound + this.roundGapMs());
			const now = Date.now();
			if (at > now) {
				await sleepOrWake(at - now, new Promise<void>((resolve) => (this.wake = resolve)));
				this.wake = undefined;
				continue;
			}
			if (this.ctx.getExecutionCancelSignal?.()?.aborted) {
				const error = new NodeOperationError(
					this.ctx.getNode(),
					'The execution was cancelled while waiting',
				);
				for (const entry of [...this.pending.values()]) this.fail(entry, error);
				continue;
			}
			await this.round();
		}
	}

	private async round(): Promise<void> {
		this.lastRound = Date.now();
		this.stats.rounds++;
		const due = [...this.pending.values()].filter((entry) => entry.nextReadAt <= this.lastRound);
		const seen = new Set<Entry>();
		let unseen = due;
		try {
			await this.readPages(due, seen);
			unseen = due.filter((entry) => !seen.has(entry));
		} catch {
			// A list page that failed is no answer: the due reports are read one by one, with the errors a single read gives.
			unseen = due.filter((entry) => !seen.has(entry));
		}
		await mapWithConcurrency(unseen, WAIT_READ_CONCURRENCY, async (entry) => {
			this.stats.statusReads++;
			try {
				entry.last = await api(this.ctx, {
					method: 'GET',
					path: apiPath('/api/v1/reports/{}/status', entry.reportId),
					itemIndex: entry.itemIndex,
				});
				seen.add(entry);
			} catch (error) {
				this.fail(entry, error);
			}
		});
		const now = Date.now();
		for (const entry of seen) {
			const report = entry.last as IDataObject;
			if (isTerminal(report)) {
				this.finished.push(now - entry.registeredAt);
				if (this.finished.length > 20) this.finished.shift();
				const fromPage = entry.createdAt !== undefined && 'createdAt' in report;
				this.settle(entry, {
					status: statusOf(report),
					summary: fromPage ? report : undefined,
					timedOut: false,
				});
				continue;
			}
			if (!due.includes(entry)) continue;
			if (now >= entry.deadline) {
				this.settle(entry, { status: statusOf(report), timedOut: true });
				continue;
			}
			entry.reads++;
			entry.nextReadAt = Math.min(entry.deadline, now + this.nextReadDelayMs(entry, now));
		}
	}

	/**
	 * Reads report list pages until every due report was seen, or a page budget is spent: first the newest pages
	 * (for reports not seen yet, whose creation time is unknown), then the window of creation times of the due
	 * reports already seen. Every pending report a page shows is updated.
	 */
	private async readPages(due: Entry[], seen: Set<Entry>): Promise<void> {
		const missing = () => due.filter((entry) => !seen.has(entry));
		const visit = (report: IDataObject) => {
			const entry = this.pending.get(String(report.id));
			if (!entry) return;
			entry.createdAt = String(report.createdAt);
			entry.last = report;
			seen.add(entry);
		};
		const walk = async (qs: IDataObject, wanted: number): Promise<void> => {
			this.stats.listPages += await walkReportPages(
				this.ctx,
				due[0].itemIndex,
				qs,
				pageBudget(wanted),
				visit,
				() => missing().length === 0,
			);
		};
		if (due.length === 0) return;
		const unknown = due.filter((entry) => entry.createdAt === undefined);
		if (unknown.length > 0) await walk({}, this.pending.size);
		const known = missing().filter((entry) => entry.createdAt !== undefined);
		if (known.length === 0) return;
		const times = known
			.map((entry) => Date.parse(entry.createdAt as string))
			.filter(Number.isFinite);
		if (times.length !== known.length) return;
		const createdAfter = new Date(Math.min(...times) - 1).toISOString();
		const createdBefore = new Date(Math.max(...times) + 1).toISOString();
		await walk({ createdAfter, createdBefore }, known.length);
	}
}
