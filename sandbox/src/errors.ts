/**
 * The API error body `{error: {code, message, requestId, reason?, details?}}` (spec "Errors"):
 * `code` is always the generic code of the HTTP status; sub-conditions travel in `reason`.
 */
export const CODE_BY_STATUS: Record<number, string> = {
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	403: 'FORBIDDEN',
	404: 'NOT_FOUND',
	405: 'METHOD_NOT_ALLOWED',
	408: 'REQUEST_TIMEOUT',
	409: 'CONFLICT',
	410: 'EVENT_CURSOR_EXPIRED',
	422: 'UNPROCESSABLE_CONTENT',
	431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
	429: 'TOO_MANY_REQUESTS',
	500: 'INTERNAL_SERVER_ERROR',
	503: 'SERVICE_UNAVAILABLE',
};

export interface FieldIssue {
	field: string;
	rule: string;
}

export class ApiError extends Error {
	constructor(
		public readonly status: number,
		message: string,
		public readonly reason?: string,
		public readonly extra: Record<string, unknown> = {},
		public readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	body(requestId: string): { error: Record<string, unknown> } {
		const error: Record<string, unknown> = {
			code: CODE_BY_STATUS[this.status] ?? 'INTERNAL_SERVER_ERROR',
			message: this.message,
			requestId,
		};
		if (this.reason) error.reason = this.reason;
		Object.assign(error, this.extra);
		return { error };
	}
}

export const badRequest = (details: FieldIssue[], message?: string) =>
	new ApiError(
		400,
		message ?? `Invalid input: ${details.map((d) => `${d.field} (${d.rule})`).join(', ')}`,
		'VALIDATION_FAILED',
		{ details },
	);

export const invalidCursor = (
	message = 'The cursor is invalid for this request; restart from the first page.',
) => new ApiError(400, message, 'INVALID_CURSOR');

export const notFound = (what = 'Resource', reason?: string) =>
	new ApiError(404, `${what} not found in this workspace.`, reason);

export const conflict = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
	new ApiError(409, message, reason, extra);

export const unprocessable = (
	reason: string,
	message: string,
	extra: Record<string, unknown> = {},
) => new ApiError(422, message, reason, extra);

export const unauthorized = (message = 'The API key is invalid, expired or revoked.') =>
	new ApiError(
		401,
		message,
		undefined,
		{},
		{
			'WWW-Authenticate': 'Bearer realm="recruiting-analysis", error="invalid_token"',
		},
	);

export const forbidden = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
	new ApiError(403, message, reason, extra);
