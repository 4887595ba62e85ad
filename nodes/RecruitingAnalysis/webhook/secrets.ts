/**
 * The signing secrets a webhook trigger verifies with, kept in the process between deliveries.
 *
 * Reading the credential costs n8n a database read, a decryption and an expression evaluation for every delivery
 * (bench/REPORT.md, "B5 profile"), while the secret changes only when someone edits the credential. So the secrets
 * of the last read are kept for `SECRET_REUSE_MS` per scope (workflow, node and credential), and read again:
 * - when they are older than that, so an edit (a secret removed after a rotation) takes effect within that time;
 * - when a delivery's signature matches none of them (`recheck`): the credential may have been edited since, and
 *   answering 401 on stale secrets would make the service drop a genuine event (api-spec "Webhook receiver
 *   contract" 5). The answer then comes from a read that started after the delivery arrived.
 *
 * At most one read per scope is in flight: concurrent deliveries share it, and rechecks that arrive while an older
 * read runs share the one read that follows it. A flood of forged deliveries therefore costs one read after another,
 * never one read per delivery at once.
 */

import type { IDataObject } from 'n8n-workflow';

import { isWellFormedSigningSecret } from './verify';

export const SECRET_REUSE_MS = 30_000;
/** Scopes kept at most; the least recently used go first (a dropped scope only costs one credential read). */
export const MAX_SECRET_SCOPES = 1000;

/** The configured secrets, current first (verification reports which one matched). */
export function secretsFrom(data: IDataObject | undefined): string[] {
	return [data?.secret, data?.previousSecret]
		.filter((s): s is string => typeof s === 'string')
		.map((s) => s.trim())
		.filter((s) => s !== '');
}

/** Why a credential cannot verify deliveries, or undefined when it can. */
export function secretProblem(data: IDataObject | undefined): string | undefined {
	const current = typeof data?.secret === 'string' ? data.secret.trim() : '';
	const previous = typeof data?.previousSecret === 'string' ? data.previousSecret.trim() : '';
	if (current === '') return 'No signing secret is configured';
	if (!isWellFormedSigningSecret(current)) {
		return 'The signing secret is not whsec_ followed by base64 of at least 16 bytes';
	}
	if (previous !== '' && !isWellFormedSigningSecret(previous)) {
		return 'The previous signing secret is not whsec_ followed by base64 of at least 16 bytes';
	}
	return undefined;
}

type Loader = () => Promise<string[]>;

interface Read {
	startedAt: number;
	promise: Promise<string[]>;
}

interface Scope {
	secrets?: string[];
	readAt?: number;
	reading?: Read;
	/** The read queued behind `reading`, for rechecks that arrived after it started. */
	next?: Promise<string[]>;
}

/** In least recently used order (a Map keeps insertion order; a use re-inserts). */
const scopes = new Map<string, Scope>();

function scopeOf(key: string): Scope {
	const scope = scopes.get(key) ?? {};
	scopes.delete(key);
	scopes.set(key, scope);
	for (const oldest of scopes.keys()) {
		if (scopes.size <= MAX_SECRET_SCOPES) break;
		scopes.delete(oldest);
	}
	return scope;
}

/**
 * Forgets the kept secrets of every scope whose key starts with `prefix` (a workflow's node, whatever its
 * credential), when the workflow is deactivated or deleted.
 */
export function forgetSecrets(prefix: string): void {
	for (const key of [...scopes.keys()]) if (key.startsWith(prefix)) scopes.delete(key);
}

/** How many scopes are kept (for the tests of the bound). */
export function keptSecretScopes(): number {
	return scopes.size;
}

function start(scope: Scope, load: Loader, now: () => number): Promise<string[]> {
	const startedAt = now();
	const read: Read = {
		startedAt,
		promise: load().then(
			(secrets) => {
				scope.secrets = secrets;
				scope.readAt = startedAt;
				if (scope.reading === read) scope.reading = undefined;
				return secrets;
			},
			(error: unknown) => {
				// A failed read forgets what was kept: the next delivery reads again and is answered 503 if it fails.
				scope.secrets = undefined;
				scope.readAt = undefined;
				if (scope.reading === read) scope.reading = undefined;
				throw error;
			},
		),
	};
	scope.reading = read;
	return read.promise;
}

/** The secrets to verify with: kept ones while recent, else one shared read. */
export async function currentSecrets(
	key: string,
	load: Loader,
	now: () => number = Date.now,
): Promise<{ secrets: string[]; readAt: number }> {
	const scope = scopeOf(key);
	if (scope.secrets && scope.readAt !== undefined && now() - scope.readAt < SECRET_REUSE_MS) {
		return { secrets: scope.secrets, readAt: scope.readAt };
	}
	const secrets = await (scope.reading?.promise ?? start(scope, load, now));
	return { secrets, readAt: scope.readAt ?? now() };
}

/**
 * Secrets from a read that started at or after `arrivedAt` (when the delivery arrived), for a delivery whose
 * signature matched none of the kept ones.
 */
export async function recheckSecrets(
	key: string,
	load: Loader,
	arrivedAt: number,
	now: () => number = Date.now,
): Promise<string[]> {
	const scope = scopeOf(key);
	const reading = scope.reading;
	if (!reading) return await start(scope, load, now);
	if (reading.startedAt >= arrivedAt) return await reading.promise;
	if (!scope.next) {
		// Every recheck that joins here arrived while `reading` ran, so a read started after it ends is fresh for all.
		scope.next = reading.promise
			.catch(() => undefined)
			.then(() => {
				scope.next = undefined;
				return scope.reading?.promise ?? start(scope, load, now);
			});
	}
	return await scope.next;
}
