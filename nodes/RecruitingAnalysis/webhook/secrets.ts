// Secrets are kept between deliveries (a credential read costs a decryption each) and read again when stale or when
// no secret matches: a 401 on stale secrets would make the service drop a genuine event. One read per scope at a time.

import type { IDataObject } from 'n8n-workflow';

import { isWellFormedSigningSecret } from './verify';

export const SECRET_REUSE_MS = 30_000;
export const MAX_SECRET_SCOPES = 1000;

export function secretsFrom(data: IDataObject | undefined): string[] {
	return [data?.secret, data?.previousSecret]
		.filter((s): s is string => typeof s === 'string')
		.map((s) => s.trim())
		.filter((s) => s !== '');
}

export function secretProblem(data: IDataObject | undefined): string | undefined {
	const current = typeof data?.secret === 'string' ? data.secret.trim() : '';
	const previous = typeof data?.previousSecret === 'string' ? data.previousSecret.trim() : '';
	const shape = 'signing secret is not whsec_ followed by base64 of at least 16 bytes';
	if (current === '') return 'No signing secret is configured';
	if (!isWellFormedSigningSecret(current)) return `The ${shape}`;
	if (previous !== '' && !isWellFormedSigningSecret(previous)) return `The previous ${shape}`;
	return undefined;
}

type Loader = () => Promise<string[]>;

interface Scope {
	secrets?: string[];
	readAt?: number;
	reading?: Promise<string[]>;
	readingSince?: number;
	next?: Promise<string[]>;
}

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

export function forgetSecrets(prefix: string): void {
	for (const key of [...scopes.keys()]) if (key.startsWith(prefix)) scopes.delete(key);
}

export function keptSecretScopes(): number {
	return scopes.size;
}

function start(scope: Scope, load: Loader, now: () => number): Promise<string[]> {
	const startedAt = now();
	const reading: Promise<string[]> = load().then(
		(secrets) => {
			scope.secrets = secrets;
			scope.readAt = startedAt;
			if (scope.reading === reading) scope.reading = undefined;
			return secrets;
		},
		(error: unknown) => {
			// A failed read forgets what was kept: the next delivery reads again and is answered 503 if it fails.
			scope.secrets = undefined;
			scope.readAt = undefined;
			if (scope.reading === reading) scope.reading = undefined;
			throw error;
		},
	);
	scope.reading = reading;
	scope.readingSince = startedAt;
	return reading;
}

export async function currentSecrets(key: string, load: Loader, now = Date.now) {
	const scope = scopeOf(key);
	if (scope.secrets && scope.readAt !== undefined && now() - scope.readAt < SECRET_REUSE_MS) {
		return { secrets: scope.secrets, readAt: scope.readAt };
	}
	const secrets = await (scope.reading ?? start(scope, load, now));
	return { secrets, readAt: scope.readAt ?? now() };
}

// A read that started after the delivery arrived, so an edited credential is seen before a 401.
export async function recheckSecrets(key: string, load: Loader, arrivedAt: number, now = Date.now) {
	const scope = scopeOf(key);
	const reading = scope.reading;
	if (!reading) return await start(scope, load, now);
	if (scope.readingSince! >= arrivedAt) return await reading;
	if (!scope.next) {
		// Every recheck that joins here arrived while `reading` ran, so a read started after it ends is fresh for all.
		scope.next = reading
			.catch(() => undefined)
			.then(() => {
				scope.next = undefined;
				return scope.reading ?? start(scope, load, now);
			});
	}
	return await scope.next;
}
