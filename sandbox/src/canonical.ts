/** Canonical JSON (sorted keys) and hashing, for idempotency receipts, fingerprints and cursor bindings. */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
	if (value === undefined) return 'null';
	if (value === null || typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	const obj = value as Record<string, unknown>;
	const keys = Object.keys(obj)
		.filter((k) => obj[k] !== undefined)
		.sort();
	return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export const canonicalHash = (value: unknown) => sha256Hex(canonicalJson(value));
