import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems } from './pages';
import { apiRequest, type ApiRequestOptions } from './request';

/** apiRequest typed for the action node: the unwrapped `data` object of the response. */
export async function api(
	ctx: IExecuteFunctions,
	options: ApiRequestOptions,
): Promise<IDataObject> {
	return (await apiRequest.call(ctx, options)) as IDataObject;
}

/** apiRequestAllItems typed for the action node: the list items across pages (Return All / Limit). */
export async function apiAll(
	ctx: IExecuteFunctions,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<IDataObject[]> {
	return (await apiRequestAllItems.call(ctx, options)) as IDataObject[];
}
