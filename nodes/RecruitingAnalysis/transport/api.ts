import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequestAllItems } from './pages';
import { apiRequest, type ApiRequestOptions } from './request';

export async function api(
	ctx: IExecuteFunctions,
	options: ApiRequestOptions,
): Promise<IDataObject> {
	return (await apiRequest.call(ctx, options)) as IDataObject;
}

export async function apiAll(
	ctx: IExecuteFunctions,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<IDataObject[]> {
	return (await apiRequestAllItems.call(ctx, options)) as IDataObject[];
}
