// A list page answers for up to 100 reports; a report the pages miss is read alone, for a single read's exact error.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { listPages } from '../transport';

export const REPORT_PAGE_LIMIT = 100;

const CHECK_PAGES_FRESH_MS = 60_000;

export const pageBudget = (wanted: number): number => Math.ceil(wanted / REPORT_PAGE_LIMIT) + 1;

// One per node run (engine/run.ts): a report's creation time never changes, so the run keeps it to narrow later pages.
export class ReportPages {
	private readonly createdTimes = new Map<string, number>();
	private checkPages?: { readAt: number; summaries: Map<string, IDataObject> };

	constructor(private readonly ctx: IExecuteFunctions) {}

	windowOf(ids: string[]): IDataObject | undefined {
		const known = ids.map((id) => this.createdTimes.get(id));
		if (known.length === 0 || known.some((at) => at === undefined)) return undefined;
		const values = known as number[];
		return {
			createdAfter: new Date(Math.min(...values) - 1).toISOString(),
			createdBefore: new Date(Math.max(...values) + 1).toISOString(),
		};
	}

	async walk(
		itemIndex: number,
		qs: IDataObject,
		maxPages: number,
		visit: (report: IDataObject) => void,
		done: () => boolean,
	): Promise<void> {
		let pages = 0;
		if (maxPages < 1 || done()) return;
		for await (const page of listPages.call(this.ctx, {
			method: 'GET',
			path: '/api/v1/reports',
			qs,
			pageSize: REPORT_PAGE_LIMIT,
			itemIndex,
		})) {
			for (const report of page.items) {
				const at = Date.parse(String(report.createdAt));
				if (Number.isFinite(at)) this.createdTimes.set(String(report.id), at);
				visit(report);
			}
			if (++pages >= maxPages || done()) return;
		}
	}

	async summaries(
		itemIndex: number,
		ids: string[],
		seen?: (report: IDataObject) => void,
	): Promise<Map<string, IDataObject>> {
		const wanted = new Set(ids);
		const found = new Map<string, IDataObject>();
		if (wanted.size === 0) return found;
		await this.walk(
			itemIndex,
			this.windowOf([...wanted]) ?? {},
			pageBudget(wanted.size),
			(report) => {
				seen?.(report);
				if (wanted.has(String(report.id))) found.set(String(report.id), report);
			},
			() => found.size === wanted.size,
		);
		return found;
	}

	// Each summary is handed out once: a report named again is read alone, since this run may have started it meanwhile.
	async forCheck(
		itemIndex: number,
		ids: string[],
		runIds: string[] = ids,
	): Promise<Map<string, IDataObject>> {
		let pages = this.checkPages;
		if (!pages || Date.now() - pages.readAt >= CHECK_PAGES_FRESH_MS) {
			const summaries = new Map<string, IDataObject>();
			try {
				await this.summaries(itemIndex, [...new Set([...ids, ...runIds])], (report) =>
					summaries.set(String(report.id), report),
				);
			} catch {
				return new Map();
			}
			pages = { readAt: Date.now(), summaries };
			this.checkPages = pages;
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
