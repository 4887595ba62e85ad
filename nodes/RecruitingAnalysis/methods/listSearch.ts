// The API has no text search, so the filter is applied here, page by page.
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { listPages } from '../transport';

const PAGE_SIZE = 100;
const ENOUGH_MATCHES = 20;
const MAX_PAGES = 5;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function searchList(
	path: string,
	toEntry: (item: IDataObject) => { entry: INodeListSearchItems; searchable: unknown[] },
) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const wanted = (filter ?? '').trim().toLowerCase();
		const results: INodeListSearchItems[] = [];
		let cursor: string | undefined = paginationToken || undefined;
		let pages = 0;
		for await (const page of listPages.call(this, {
			method: 'GET',
			path,
			pageSize: PAGE_SIZE,
			cursor,
		})) {
			for (const item of page.items) {
				const { entry, searchable } = toEntry(item);
				// Every text includes '', so an empty filter keeps every entry.
				if (searchable.some((field) => text(field).toLowerCase().includes(wanted)))
					results.push(entry);
			}
			cursor = page.nextCursor;
			if (results.length >= ENOUGH_MATCHES || ++pages >= MAX_PAGES) break;
		}
		return { results, paginationToken: cursor };
	};
}

export const searchJobDescriptions = searchList('/api/v1/job-descriptions', (job) => {
	const where = [text(job.company), text(job.location)].filter((part) => part !== '').join(', ');
	const status = text(job.status);
	const name = [
		text(job.title) || text(job.id),
		where ? `— ${where}` : '',
		// The API refuses new resumes for a saved job that is not ACTIVE.
		status === 'ACTIVE' ? '' : `[${status || 'NOT ACTIVE'}: not usable for uploads]`,
	]
		.filter((part) => part !== '')
		.join(' ');
	return {
		entry: { name, value: text(job.id) },
		searchable: [job.title, job.company, job.location, job.id],
	};
});

const day = (timestamp: unknown): string => text(timestamp).slice(0, 10);

export const searchReports = searchList('/api/v1/reports', (report) => {
	const candidate = (report.candidate ?? {}) as IDataObject;
	const job = (report.jobDescription ?? {}) as IDataObject;
	const who = text(candidate.name) || 'Unnamed candidate';
	const forJob = text(job.title) ? ` — ${text(job.title)}` : '';
	return {
		entry: {
			name: `${who}${forJob} (${text(report.status)}, ${day(report.createdAt)}) ${text(report.id)}`,
			value: text(report.id),
		},
		searchable: [candidate.name, job.title, job.company, report.id, report.status],
	};
});

export const searchInterviews = searchList('/api/v1/interviews', (interview) => {
	const state = [text(interview.lifecycle), `evaluation ${text(interview.evaluation)}`].join(', ');
	return {
		entry: {
			name: `${text(interview.id)} (${state}, ${day(interview.createdAt)}) for report ${text(interview.reportId)}`,
			value: text(interview.id),
		},
		searchable: [interview.id, interview.reportId, interview.lifecycle, interview.evaluation],
	};
});
