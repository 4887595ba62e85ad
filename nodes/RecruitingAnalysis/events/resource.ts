export type ResourceKind =
	'reportStatus' | 'reportResult' | 'interviewResult' | 'interviewStatus' | 'batch';

export interface ResourceRequest {
	kind: ResourceKind;
	template: string;
	ids: string[];
}

export interface EventEnvelope {
	id?: unknown;
	type?: unknown;
	schemaVersion?: unknown;
	occurredAt?: unknown;
	data?: unknown;
	[key: string]: unknown;
}

const BATCH_PATHS: Record<string, string> = {
	uploads: '/api/v1/upload-batches/{}',
	analyses: '/api/v1/analysis-batches/{}',
	interviews: '/api/v1/interview-batches/{}',
};

function str(v: unknown): string | undefined {
	return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function dataOf(event: EventEnvelope): Record<string, unknown> {
	return event.data !== null && typeof event.data === 'object'
		? (event.data as Record<string, unknown>)
		: {};
}

export function resourceRequestFor(event: EventEnvelope): ResourceRequest | null {
	const type = str(event.type) ?? '';
	const data = dataOf(event);
	const reportId = str(data.reportId);
	const interviewId = str(data.interviewId);

	if (type === 'report.deleted' || type === 'webhook.test') return null;
	const family = (['report', 'interview'] as const).find((f) => type.startsWith(`${f}.`));
	const id = family === 'report' ? reportId : family === 'interview' ? interviewId : undefined;
	if (family && id) {
		// result_ready: the published result; any other event of the family: its status.
		const [read, kind] =
			type === `${family}.result_ready` ? ['result', 'Result'] : ['status', 'Status'];
		return {
			kind: `${family}${kind}` as ResourceKind,
			template: `/api/v1/${family}s/{}/${read}`,
			ids: [id],
		};
	}
	if (type === 'batch.completed') {
		const batchId = str(data.batchId);
		const template = BATCH_PATHS[str(data.kind) ?? ''];
		if (batchId && template) return { kind: 'batch', template, ids: [batchId] };
	}
	return null;
}

export interface AttemptCheck {
	eventAttemptId: string | null;
	currentAttemptId: string | null;
	isCurrent: boolean;
}

// A delayed event is compared with the report's current attempt (spec, Webhook receiver contract 4).
export function checkAttempt(event: EventEnvelope, resource: unknown): AttemptCheck | undefined {
	const type = str(event.type) ?? '';
	if (!type.startsWith('report.') || resource === null || typeof resource !== 'object')
		return undefined;
	const data = dataOf(event);
	if (!('attemptId' in data)) return undefined;
	const eventAttemptId = str(data.attemptId) ?? null;
	const currentAttemptId = str((resource as Record<string, unknown>).attemptId) ?? null;
	return {
		eventAttemptId,
		currentAttemptId,
		isCurrent: currentAttemptId === null || eventAttemptId === currentAttemptId,
	};
}
