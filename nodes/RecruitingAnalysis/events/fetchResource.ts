// A failed read is attached, not thrown: the event was received and must not be lost.
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../transport';
import { type ApiContext } from '../transport/attempt';
import { checkAttempt, resourceRequestFor, type EventEnvelope } from './resource';

export const fetchResourceField: INodeProperties = {
	displayName: 'Fetch Resource',
	name: 'fetchResource',
	type: 'boolean',
	default: false,
	description:
		'Whether to read the resource the event names with the API credential: the report result on report.result_ready, the interview result on interview.result_ready, the report status on other report events, the interview status on other interview events and the batch on batch.completed. Report events are then checked for a delayed, older attemptId.',
};

export async function fetchEventResource(
	ctx: ApiContext,
	event: EventEnvelope,
): Promise<IDataObject> {
	const request = resourceRequestFor(event);
	if (!request) return {};
	try {
		const resource = (await apiRequest.call(ctx, {
			method: 'GET',
			path: apiPath(request.template, ...request.ids),
		})) as IDataObject;
		const output: IDataObject = { resourceKind: request.kind, resource };
		const attempt = checkAttempt(event, resource);
		if (attempt) {
			output.attemptCheck = attempt as unknown as IDataObject;
			output.delayedEvent = !attempt.isCurrent;
		}
		return output;
	} catch (error) {
		const e = error as { message?: string; httpCode?: string | null; description?: string | null };
		const output: IDataObject = {
			resourceKind: request.kind,
			resource: null,
			resourceError: {
				message: e.message ?? String(error),
				httpCode: e.httpCode ?? null,
				description: e.description ?? null,
			},
		};
		// delayedEvent is false, not missing, on report events with an attemptId, so a branch on it always finds it.
		if (checkAttempt(event, {}) !== undefined) output.delayedEvent = false;
		return output;
	}
}
