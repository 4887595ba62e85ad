import { jsonParse, type IDataObject, type JsonObject } from 'n8n-workflow';

export interface ApiErrorParts {
	// Absent when no answer came (a network failure).
	httpCode?: string;
	status: number;
	code: string;
	reason?: string;
	requestId?: string;
	// No secrets: the API never echoes keys.
	body: JsonObject;
	message: string;
	description: string;
}

export const REASON_HINTS: Record<string, string> = {
	QUOTE_STALE:
		"The quote is no longer current (price, product version or inputs changed). Get a new quote and start again with it (the node's key includes the quote, so a new quote makes a new key); with Quote Automatically on, the node does this once by itself.",
	INVALID_UPLOAD:
		'The uploaded file was not accepted for analysis. Upload a corrected PDF or DOCX (a new preparation) before starting the analysis.',
	ACTIVE_ANALYSIS_LIMIT:
		'The workspace has reached its limit of running analyses. Wait for running analyses to finish, then retry the same request (same idempotency key).',
	INSUFFICIENT_ALLOWANCE:
		'The workspace allowance is used up; nothing was charged. A workspace Admin can add allowance in the application.',
	RESULT_VERSION_UNSUPPORTED: 'Only result schema version 1 is supported. Set Schema Version to 1.',
	ANALYSIS_NOT_USABLE:
		'An interview quote needs a report whose analysis completed and is usable. Wait for the report status completed; a mismatch review must be resolved in the application first.',
	JOB_DESCRIPTION_INACTIVE:
		'The saved job description is not ACTIVE. Reactivate it in the application or choose another saved job.',
	EXTERNAL_REFERENCE_CONFLICT:
		'This external reference (source and application ID) is already used by another report in the workspace. Use that report, or give a different reference.',
	JD_REVISION_CHANGED:
		'The saved job was revised after the Expected Revision you gave. Review the new job revision (Job Description > Get), then retry with the new revision.',
	PENDING_UPLOAD_LIMIT:
		'Too many upload preparations are waiting for their file. Cancel unused preparations (Upload > Cancel) or wait for them to expire (24 hours), then retry.',
	IDEMPOTENCY_KEY_REUSED:
		'This idempotency key was already used with a different request body: the write it names exists (for example an earlier run whose answer was lost, with another quote). The node reads back what exists where it can. If you mean a new, separate write, set Options > New Attempt Label (it goes into the key).',
	ALREADY_ADMITTED:
		'The analysis for this report has already been admitted, so its upload can no longer be refreshed or cancelled. Read the report status instead.',
	BATCH_ALREADY_ACTIVE:
		'Only one batch of each kind can be active per workspace. Wait until the active batch completes (Get Batch), then retry.',
	INTERVIEW_NOT_ELIGIBLE:
		'The interview is not eligible for this action now (for example it is in progress, completed, expired or superseded). Check Interview > Get Status; a reinterview needs the previous attempt not in progress and a fresh quote. When the report already has an interview (for example to an address you have since corrected), Interview > Reinterview on that interview with the corrected address reaches the candidate.',
	ANALYSIS_ALREADY_STARTED:
		'An analysis was already started for this report. Completed analyses cannot be restarted here; read the report status or result.',
	INVALID_CURSOR:
		'The cursor is invalid, from an older scheme, or bound to other filters. Restart from the first page without a cursor and keep the filters unchanged while paging.',
	WORKSPACE_DISABLED:
		'API access is disabled for this workspace. A workspace Admin can enable it in the application.',
	PREPARATION_EXPIRED:
		'The upload preparation no longer exists or is older than 24 hours. Prepare a new upload (a new report); Upload Resume and Analyze Resume do this once by themselves when they meet it.',
	EVENT_CURSOR_EXPIRED:
		'The event cursor is older than the retained history (30 days). Reconcile current reports and interviews, then start a fresh position without a cursor.',
};

const STATUS_HINTS: Record<number, string> = {
	400: 'The API rejected the request as invalid. Check the fields listed above.',
	401: 'The API key is invalid, expired or revoked. Create a new key in the application (Settings > Developer > API keys) and update the Recruiting Analysis API credential. Accepted work continues.',
	403: 'Access is forbidden: the workspace is disabled or the key lacks a scope.',
	404: 'Not found: the resource does not exist, expired, was deleted, or belongs to another workspace. A deleted report stays 404: stop polling it.',
	405: 'The API does not support this method on this path. This is a bug in the node; please report it.',
	409: 'The request conflicts with the current state of the resource.',
	410: REASON_HINTS.EVENT_CURSOR_EXPIRED,
	422: 'The input cannot be processed, or the workspace allowance or capacity is insufficient. Inspect the reason before retrying.',
};

function statusHint(status: number, retries: number, safeToRetry: boolean): string {
	const retried =
		retries > 0 ? ` The node already retried ${retries} time${retries === 1 ? '' : 's'}.` : '';
	if (status === 408)
		return `The API timed out waiting for the request.${retried} A timeout is not proof of failure.`;
	if (status === 429)
		return `The API is rate limiting this key.${retried || ' Retries are automatic (honouring Retry-After).'} Lower the node's concurrency, space out runs, or wait and run again.`;
	if (status < 500) return STATUS_HINTS[status] ?? `Unexpected HTTP status ${status}.`;
	return (
		`The service failed or is temporarily unavailable.${retried}` +
		(safeToRetry
			? ' A timeout or 5xx is not proof of failure: running again with the same idempotency key is safe.'
			: ' Check whether the write took effect (for example by listing reports) before running again.')
	);
}

export function asObject(value: unknown): IDataObject | undefined {
	return value && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;
}

export function asString(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

function formatValidationDetails(details: unknown): string | undefined {
	if (!Array.isArray(details) || details.length === 0) return undefined;
	const parts = details.slice(0, 10).map((detail) => {
		const d = asObject(detail) ?? {};
		return `${asString(d.field) ?? '?'}: ${asString(d.rule) ?? asString(d.message) ?? 'invalid'}`;
	});
	if (details.length > 10) parts.push(`and ${details.length - 10} more`);
	return parts.join('; ');
}

const GENERIC_CODES: Record<number, string> = {
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	403: 'FORBIDDEN',
	404: 'NOT_FOUND',
	405: 'METHOD_NOT_ALLOWED',
	408: 'REQUEST_TIMEOUT',
	409: 'CONFLICT',
	410: 'EVENT_CURSOR_EXPIRED',
	422: 'UNPROCESSABLE_CONTENT',
	429: 'TOO_MANY_REQUESTS',
	500: 'INTERNAL_SERVER_ERROR',
	502: 'BAD_GATEWAY',
	503: 'SERVICE_UNAVAILABLE',
	504: 'GATEWAY_TIMEOUT',
};

export function headerValue(headers: IDataObject | undefined, name: string): string | undefined {
	const wanted = name.toLowerCase();
	const found = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
	const value = Array.isArray(found) ? found[0] : found;
	return typeof value === 'number' ? String(value) : asString(value);
}

export function describeApiError(input: {
	status: number;
	body: unknown;
	headers?: IDataObject;
	retries?: number;
	safeToRetry?: boolean;
}): ApiErrorParts {
	const { status } = input;
	const parsed =
		typeof input.body === 'string'
			? jsonParse(input.body, { fallbackValue: { text: input.body.slice(0, 200) } })
			: input.body;
	const envelope = asObject(parsed) ?? {};
	const error = asObject(envelope.error) ?? {};
	const rawCode = asString(error.code) ?? GENERIC_CODES[status] ?? `HTTP_${status}`;
	let reason = asString(error.reason);
	let code = rawCode;
	if (!reason && REASON_HINTS[rawCode] && rawCode !== 'EVENT_CURSOR_EXPIRED') {
		// The spec leaves the placement open: a sub-condition in code is read as the reason.
		reason = rawCode;
		code = GENERIC_CODES[status] ?? rawCode;
	}
	const requestId = asString(error.requestId) ?? headerValue(input.headers, 'x-request-id');
	const apiMessage = asString(error.message) ?? asString(envelope.text) ?? `HTTP ${status}`;

	const hints: string[] = [];
	if (reason === 'VALIDATION_FAILED' || (status === 400 && error.details !== undefined)) {
		const details = formatValidationDetails(error.details);
		hints.push(
			details
				? `The API rejected these fields: ${details}. Correct them and run again.`
				: 'The API rejected the input as invalid. Correct it and run again.',
		);
	} else if (
		reason === 'MISSING_SCOPE' ||
		(status === 403 && Array.isArray(error.requiredScopes))
	) {
		const scopes = Array.isArray(error.requiredScopes)
			? error.requiredScopes.filter((s): s is string => typeof s === 'string')
			: [];
		const named = scopes.length ? scopes.join(', ') : 'the scope this operation needs';
		hints.push(
			`The API key lacks the scope ${named}. A workspace Admin creates keys with scopes in the application under Settings > Developer > API keys; create one that includes ${named} and update the Recruiting Analysis API credential.`,
		);
	} else {
		const hint = (reason && REASON_HINTS[reason]) || REASON_HINTS[code];
		if (hint) hints.push(hint);
	}
	if (hints.length === 0 || status === 429 || status >= 500)
		hints.push(statusHint(status, input.retries ?? 0, input.safeToRetry ?? false));
	const allow = status === 405 ? headerValue(input.headers, 'allow') : undefined;
	if (allow) hints.push(`Allowed methods: ${allow}.`);
	if (requestId) hints.push(`Request ID: ${requestId} (quote it when contacting support).`);

	const message = `Recruiting Analysis API: ${status} ${code}${reason ? ` (${reason})` : ''}: ${apiMessage}`;
	return {
		httpCode: String(status),
		status,
		code,
		reason,
		requestId,
		body: { error: error as JsonObject } as JsonObject,
		message,
		description: hints.join(' '),
	};
}
