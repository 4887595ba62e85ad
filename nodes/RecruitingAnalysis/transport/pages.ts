// Never build or decode a cursor; a cursor seen twice stops the walk with an error instead of looping.
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { apiRequest, type ApiContext, type ApiRequestOptions } from './request';

export interface ListPage {
	items: IDataObject[];
	nextCursor?: string;
	hasMore?: boolean;
	data: IDataObject;
}

export interface PagesOptions extends ApiRequestOptions {
	pageSize: number | (() => number);
	cursor?: string;
}

const cursorOf = (data: IDataObject): string | undefined =>
	typeof data.nextCursor === 'string' && data.nextCursor !== '' ? data.nextCursor : undefined;

export async function* listPages(
	this: ApiContext,
	options: PagesOptions,
): AsyncGenerator<ListPage> {
	const { pageSize, cursor: start, ...request } = options;
	const seen = new Set<string>();
	let cursor = start;
	for (;;) {
		const limit = typeof pageSize === 'function' ? pageSize() : pageSize;
		const data = await apiRequest.call<ApiContext, [ApiRequestOptions], Promise<IDataObject>>(
			this,
			{
				...request,
				qs: { ...(request.qs ?? {}), limit, ...(cursor ? { cursor } : {}) },
			},
		);
		const page: ListPage = {
			items: Array.isArray(data?.items) ? (data.items as IDataObject[]) : [],
			nextCursor: cursorOf(data ?? {}),
			hasMore: typeof data?.hasMore === 'boolean' ? data.hasMore : undefined,
			data: data ?? {},
		};
		yield page;
		if (page.nextCursor === undefined || page.hasMore === false) return;
		if (seen.has(page.nextCursor)) {
			throw new NodeOperationError(this.getNode(), 'The API returned the same page cursor twice', {
				itemIndex: request.itemIndex,
				description:
					'Paging stopped to avoid an endless loop. Run again; if it repeats, report it.',
			});
		}
		seen.add(page.nextCursor);
		cursor = page.nextCursor;
	}
}

export async function apiRequestAllItems<T = IDataObject>(
	this: ApiContext,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<T[]> {
	const { returnAll, limit: wanted, ...request } = options;
	const limit = returnAll ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(wanted ?? 50));
	const items: T[] = [];
	const pageSize = () => Math.min(100, limit - items.length);
	for await (const page of listPages.call(this, { ...request, pageSize })) {
		items.push(...(page.items as T[]));
		if (items.length >= limit || page.items.length === 0) break;
	}
	return items.length > limit ? items.slice(0, limit) : items;
}
