/** Which base URL a credential points at, and whether its key can work there (spec, Sandbox rules 1). */
import {
	PRODUCTION_BASE_URL,
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	SANDBOX_BASE_URL,
	SANDBOX_KEY_PREFIX,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

export interface ApiCredentialData {
	environment?: unknown;
	baseUrl?: unknown;
	apiKey?: unknown;
}

export type Environment = 'production' | 'sandbox' | 'custom';

export function environmentOf(credentials: ApiCredentialData): Environment {
	const value = credentials.environment;
	return value === 'sandbox' || value === 'custom' ? value : 'production';
}

/**
 * Base URL without a trailing slash. A trailing `/api/v1` typed by the user is dropped, since every path the node
 * sends already starts with it. Returns an error text for a custom URL that is not http(s).
 */
export function resolveBaseUrl(credentials: ApiCredentialData): { baseUrl: string } | { problem: string } {
	const environment = environmentOf(credentials);
	if (environment === 'production') return { baseUrl: PRODUCTION_BASE_URL };
	const raw = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	const chosen = raw === '' && environment === 'sandbox' ? SANDBOX_BASE_URL : raw;
	if (chosen === '') {
		return { problem: 'The credential uses a Custom Base URL but the Base URL field is empty.' };
	}
	let url: URL;
	try {
		url = new URL(chosen);
	} catch {
		return { problem: `The credential's base URL "${chosen}" is not a valid URL (example: https://api.example.com).` };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { problem: `The credential's base URL must start with https:// or http:// (got ${url.protocol}).` };
	}
	const cleaned = chosen.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
	return { baseUrl: cleaned };
}

/** A refusal text when the key cannot work on the chosen environment; undefined when it can (or may). */
export function keyEnvironmentProblem(credentials: ApiCredentialData): string | undefined {
	const key = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	const isSandboxKey = key.startsWith(SANDBOX_KEY_PREFIX);
	const environment = environmentOf(credentials);
	if (environment === 'production' && isSandboxKey) return PRODUCTION_WITH_SANDBOX_KEY_MESSAGE;
	if (environment === 'sandbox' && !isSandboxKey) return SANDBOX_WITH_PRODUCTION_KEY_MESSAGE;
	return undefined;
}
