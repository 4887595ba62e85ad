/**
 * Bearer keys bound to one workspace, with scopes and an expiry (spec "Authentication").
 * 401 (+ WWW-Authenticate) for a missing, non-sandbox, unknown, expired or revoked key;
 * 403 for a disabled workspace (WORKSPACE_DISABLED) or a missing scope (MISSING_SCOPE).
 */
import type { Ctx } from './context';
import { DAY } from './clock';
import { badRequest, conflict, forbidden, unauthorized } from './errors';
import { newId } from './store';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, type ApiKey, type Scope, type Workspace } from './types';

export const KEY_PREFIX = 'svc_test_';
export const MAX_ACTIVE_KEYS = 10;

export function authenticate(ctx: Ctx, header: string | undefined): { ws: Workspace; key: ApiKey } {
	const m = /^Bearer ([^\s]+)$/i.exec(header ?? '');
	if (!m)
		throw unauthorized(
			'Missing or malformed Authorization header; send `Authorization: Bearer <API_KEY>`.',
		);
	const secret = m[1];
	if (!secret.startsWith(KEY_PREFIX)) {
		throw unauthorized('Only sandbox keys (svc_test_...) work against the sandbox.');
	}
	const key = ctx.store.keys[secret];
	if (!key || key.revoked || key.expiresAt <= ctx.clock.now()) throw unauthorized();
	const ws = ctx.store.workspaces[key.workspaceId];
	if (!ws) throw unauthorized();
	if (ws.disabled)
		throw forbidden('WORKSPACE_DISABLED', 'API access is disabled for this workspace.');
	return { ws, key };
}

export function requireScope(key: ApiKey, scope: Scope): void {
	if (!key.scopes.includes(scope)) {
		throw forbidden('MISSING_SCOPE', `This operation needs the ${scope} scope.`, {
			requiredScopes: [scope],
		});
	}
}

export function parseScopes(value: unknown): Scope[] {
	if (value === undefined) return [...ALL_SCOPES];
	if (!Array.isArray(value) || value.some((s) => !ALL_SCOPES.includes(s as Scope))) {
		throw badRequest([{ field: 'scopes', rule: 'enum' }]);
	}
	return [...new Set(value as Scope[])];
}

export function createKey(
	ctx: Ctx,
	workspaceId: string,
	scopes: Scope[],
	expiresInDays = 90,
): ApiKey {
	if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > 365) {
		throw badRequest([{ field: 'expiresInDays', rule: 'range_1_365' }]);
	}
	const now = ctx.clock.now();
	const active = Object.values(ctx.store.keys).filter(
		(k) => k.workspaceId === workspaceId && !k.revoked && k.expiresAt > now,
	);
	if (active.length >= MAX_ACTIVE_KEYS) {
		throw conflict(
			'KEY_LIMIT',
			`A workspace can have ${MAX_ACTIVE_KEYS} active keys; revoke one first.`,
		);
	}
	const key: ApiKey = {
		id: newId('key_'),
		secret: `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`,
		workspaceId,
		scopes,
		createdAt: now,
		expiresAt: now + expiresInDays * DAY,
		revoked: false,
	};
	ctx.store.keys[key.secret] = key;
	ctx.markDirty();
	return key;
}
