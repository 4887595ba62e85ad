/**
 * Opaque, signed paging cursors bound to the workspace, the list and its filters (spec "Paging").
 * Format `v2.<base64url payload>.<hmac>`; anything else (tampered, unsigned, other filters or workspace)
 * is rejected with 400 INVALID_CURSOR.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalHash } from './canonical';
import { invalidCursor } from './errors';

export interface CursorPayload<P> {
	w: string;
	l: string;
	f: string;
	p: P;
	t: number;
}

export class Cursors {
	constructor(private readonly key: () => string) {}

	private mac(payload: string): string {
		return createHmac('sha256', this.key()).update(payload).digest('base64url');
	}

	encode<P>(
		workspaceId: string,
		list: string,
		filters: unknown,
		position: P,
		issuedAt: number,
	): string {
		const payload: CursorPayload<P> = {
			w: workspaceId,
			l: list,
			f: canonicalHash(filters),
			p: position,
			t: issuedAt,
		};
		const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
		return `v2.${body}.${this.mac(body)}`;
	}

	decode<P>(cursor: string, workspaceId: string, list: string, filters: unknown): CursorPayload<P> {
		const parts = cursor.split('.');
		if (parts.length !== 3 || parts[0] !== 'v2') throw invalidCursor();
		const expected = Buffer.from(this.mac(parts[1]));
		const given = Buffer.from(parts[2]);
		if (expected.length !== given.length || !timingSafeEqual(expected, given))
			throw invalidCursor();
		let payload: CursorPayload<P>;
		try {
			payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as CursorPayload<P>;
		} catch {
			throw invalidCursor();
		}
		if (payload.w !== workspaceId || payload.l !== list) throw invalidCursor();
		if (payload.f !== canonicalHash(filters)) {
			throw invalidCursor(
				'The cursor was issued for other filters; repeat the filters unchanged or restart from the first page.',
			);
		}
		return payload;
	}
}
