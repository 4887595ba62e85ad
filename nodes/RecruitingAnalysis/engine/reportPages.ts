/**
 * Report summaries read many at a time from GET /api/v1/reports (newest first, 100 summaries a page). One page
 * answers for up to 100 reports and carries everything a status read gives (status, attemptId, code) plus the
 * summary (candidate, job, score), so the operations that need the state of many reports read pages instead of
 * one report at a time: the shared wait (waiter.ts), Start Many's check for earlier attempts, and Analyze Many's
 * simplified items. A report the pages do not show (deleted, or older than the pages read) is left to the caller,
 * which reads it alone and gets the exact error a single read gives.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listPages } from '../transport/pages';
import { RunSlot } from '../floor/runState';

export const REPORT_PAGE_LIMIT = 100;

/** When each report this node run has seen in a list page was created (a report's creation time never changes). */
const createdTimes = new RunSlot('report creation times', () => new Map<string, number>());

function rememberCreated(ctx: IExecuteFunctions, report: IDataObject): void {
	const at = Date.parse(String(report.createdAt));
	if (!Number.isFinite(at)) return;
	createdTimes.of(ctx).set(String(report.id), at);
}

/**
 * The createdAfter / createdBefore window around `ids` when this run has seen all of them in a list page before
 * (Start Many's check did): one page of that window shows them, wherever they are in the workspace's list.
 */
function windowOf(ctx: IExecuteFunctions, ids: string[]): IDataObject | undefined {
	const times = createdTimes.peek(ctx);
	const known = ids.map((id) => times?.get(id));
	if (known.length === 0 || known.some((at) => at === undefined)) return undefined;
	const values = known as number[];
	return {
		createdAfter: new Date(Math.min(...values) - 1).toISOString(),
		createdBefore: new Date(Math.max(...values) + 1).toISOString(),
	};
}

/**
 * Walks report list pages with the query `qs` (a createdAfter / createdBefore window, or none for the newest),
 * giving each summary to `visit`, until `done()` says nothing is missing, the list ends, or `maxPages` were read.
 * Returns the number of pages read.
 */
export async function walkReportPages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	qs: IDataObject,
	maxPages: number,
	visit: (report: IDataObject) => void,
	done: () => boolean,
): Promise<number> {
	let pages = 0;
	if (maxPages < 1 || done()) return pages;
	for await (const page of listPages.call(ctx, {
		method: 'GET',
		path: '/api/v1/reports',
		qs,
		pageSize: REPORT_PAGE_LIMIT,
		itemIndex,
	})) {
		pages++;
		for (const report of page.items) {
			rememberCreated(ctx, report);
			visit(report);
		}
		if (pages >= maxPages || done()) break;
	}
	return pages;
}

/** How many pages to read for `wanted` reports among the newest: their own pages, and one more. */
export const pageBudget = (wanted: number): number => Math.ceil(wanted / REPORT_PAGE_LIMIT) + 1;

/**
 * The summaries of `ids` that `pageBudget(ids.length)` pages show: the pages of their creation window when this run
 * has seen them all before, else the newest pages. Every summary read is also given to `seen`. Throws what the list read throws (a missing reports:read scope among others).
 */
export async function summariesFromPages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	ids: string[],
	seen?: (report: IDataObject) => void,
): Promise<Map<string, IDataObject>> {
	const wanted = new Set(ids);
	const found = new Map<string, IDataObject>();
	if (wanted.size === 0) return found;
	await walkReportPages(
		ctx,
		itemIndex,
		windowOf(ctx, [...wanted]) ?? {},
		pageBudget(wanted.size),
		(report) => {
			seen?.(report);
			if (wanted.has(String(report.id))) found.set(String(report.id), report);
		},
		() => found.size === wanted.size,
	);
	return found;
}

/** How long the pages a run read answer for its checks of earlier attempts. */
const CHECK_PAGES_FRESH_MS = 60_000;

interface RunPages {
	readAt: number;
	summaries: Map<string, IDataObject>;
}

const runPages = new RunSlot<RunPages | undefined>('report pages for checks', () => undefined);

/**
 * The summaries (status, attemptId) of `ids` for the check before a start (Start Many: has this report been
 * started before?). `runIds` are the reports the run will check from here on (this chunk's and the later items'):
 * a walk of the newest pages looks for all of them (at most ⌈n/100⌉ + 1 pages), so one walk serves the run's later
 * chunks too; a minute after a walk, the next call walks again. Each summary is handed out once: a report named a
 * second time is read alone then, since this run may have started it meanwhile. A report the pages did not show
 * is left out, and so is every report when the list read fails: the caller reads each of those alone, with the
 * errors and the missing-scope handling of a single read.
 */
export async function summariesForCheck(
	ctx: IExecuteFunctions,
	itemIndex: number,
	ids: string[],
	runIds: string[] = ids,
): Promise<Map<string, IDataObject>> {
	let pages = runPages.peek(ctx);
	if (!pages || Date.now() - pages.readAt >= CHECK_PAGES_FRESH_MS) {
		const summaries = new Map<string, IDataObject>();
		try {
			await summariesFromPages(ctx, itemIndex, [...new Set([...ids, ...runIds])], (report) =>
				summaries.set(String(report.id), report),
			);
		} catch {
			return new Map();
		}
		pages = { readAt: Date.now(), summaries };
		runPages.set(ctx, pages);
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
