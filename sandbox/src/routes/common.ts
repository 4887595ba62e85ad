/** Small helpers shared by the route modules. */
import { badRequest } from '../errors';

/** Operations documented with "no body" accept an empty body or `{}` only. */
export function noBody(body: unknown): void {
	if (body === undefined || body === null) return;
	if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body as object).length === 0)
		return;
	throw badRequest([{ field: 'body', rule: 'no_body' }]);
}

export function schemaVersionOk(value: unknown): boolean {
	return value === undefined || value === '1';
}
