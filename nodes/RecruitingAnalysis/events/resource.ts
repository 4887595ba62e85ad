// A failed read of the resource an event names is attached, not thrown: the event was received and must not be lost.
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../transport';
import { type ApiContext } from '../transport/attempt';
import { asObject, asString } from '../transport/errors';

const BATCH_PATHS: Record<string, string> = {
	uploads: '/api/v1/upload-batches/{}',
	analyses: '/api/v1/analysis-batches/{}',
	interviews: '/api/v1/interview-batches/{}',
};

export function resourceRequestFor(event: Record<string, unknown>) {
	const type = asString(event.type) ?? '';
	const data = asObject(event.data) ?? {};
	if (type === 'report.deleted' || type === 'webhook.test') return null;
	const family = (['report', 'interview'] as const).find((f) => type.startsWith(`${f}.`));
	const id = family && asString(data[`${family}Id`]);
	if (family && id) {
		// result_ready: the published result; any other event of the family: its status.
		const [read, kind] =
			type === `${family}.result_ready` ? ['result', 'Result'] : ['status', 'Status'];
		return {
			kind: `${family}${kind}`,
			template: `/api/v1/${family}s/{}/${read}`,
			ids: [id],
		};
	}
	if (type === 'batch.completed') {
		const batchId = asString(data.batchId);
		const template = BATCH_PATHS[asString(data.kind) ?? ''];
		if (batchId && template) return { kind: 'batch', template, ids: [batchId] };
	}
	return null;
}

// A delayed event is compared with the report's current attempt (spec, Webhook receiver contract 4).
export function checkAttempt(event: Record<string, unknown>, resource: unknown) {
	const type = asString(event.type) ?? '';
	if (!type.startsWith('report.') || resource === null || typeof resource !== 'object')
		return undefined;
	const data = asObject(event.data) ?? {};
	if (!('attemptId' in data)) return undefined;
	const eventAttemptId = asString(data.attemptId) ?? null;
	const currentAttemptId = asString((resource as Record<string, unknown>).attemptId) ?? null;
	return {
		eventAttemptId,
		currentAttemptId,
		isCurrent: currentAttemptId === null || eventAttemptId === currentAttemptId,
	};
}

export const fetchResourceField: INodeProperties = {
	displayName: 'Fetch Resource',
	name: 'fetchResource',
	type: 'boolean',
	default: false,
	description:
		'Whether to read the resource the event names with the API credential: the report result on report.result_ready, the interview result on interview.result_ready, the report status on other report events, the interview status on other interview events and the batch on batch.completed. Report events are then checked for a delayed, older attemptId.',
};

export async function fetchEventResource(ctx: ApiContext, event: Record<string, unknown>) {
	const request = resourceRequestFor(event);
	if (!request) return {};
	try {
		const resource = (await apiRequest.call(ctx, {
			method: 'GET',
			path: apiPath(request.template, ...request.ids),
		})) as IDataObject;
		const attempt = checkAttempt(event, resource);
		return {
			resourceKind: request.kind,
			resource,
			...(attempt && { attemptCheck: attempt, delayedEvent: !attempt.isCurrent }),
		};
	} catch (error) {
		const e = error as { message?: string; httpCode?: string | null; description?: string | null };
		return {
			resourceKind: request.kind,
			resource: null,
			resourceError: {
				message: e.message ?? String(error),
				httpCode: e.httpCode ?? null,
				description: e.description ?? null,
			},
			// delayedEvent is false, not missing, on report events with an attemptId, so a branch on it always finds it.
			...(checkAttempt(event, {}) && { delayedEvent: false }),
		};
	}
}
