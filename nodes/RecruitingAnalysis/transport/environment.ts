import {
	PRODUCTION_BASE_URL,
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	SANDBOX_BASE_URL,
	SANDBOX_KEY_PREFIX,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { hasControlCharacter, isLocalhostSubdomain, isLoopbackHost } from './guard';

export interface ApiCredentialData {
	environment?: unknown;
	baseUrl?: unknown;
	apiKey?: unknown;
	allowInsecureHttp?: unknown;
}

export type Environment = 'production' | 'sandbox' | 'custom';

export function environmentOf(credentials: ApiCredentialData): Environment {
	const value = credentials.environment;
	return value === 'sandbox' || value === 'custom' ? value : 'production';
}

export function plainHttpAllowed(credentials: ApiCredentialData, url: URL): boolean {
	if (isLoopbackHost(url.hostname)) return true;
	const environment = environmentOf(credentials);
	if (environment === 'sandbox') return true;
	return environment === 'custom' && credentials.allowInsecureHttp === true;
}

export const INSECURE_HTTP_HINT =
	'Use the https:// address. Plain http is accepted only for a literal loopback address (127.0.0.0/8, ::1) or localhost itself, the Sandbox ' +
	'environment, or a Custom Base URL with "Allow Plain HTTP" turned on (for a trusted internal network only: the key travels unencrypted).';

// The URL itself is never repeated: it is a bearer capability.
export function storageUrlProblem(credentials: ApiCredentialData, raw: string): string | undefined {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return 'The upload URL the API returned is not a valid URL.';
	}
	if (url.protocol === 'https:') return undefined;
	if (url.protocol === 'http:' && plainHttpAllowed(credentials, url)) return undefined;
	return `The upload URL the API returned (host ${url.host}) uses ${url.protocol.replace(':', '')}, not https: the resume would travel unencrypted, so it was not sent.`;
}

// A trailing /api/v1 typed by the user is dropped: every path the node sends starts with it.
export function resolveBaseUrl(
	credentials: ApiCredentialData,
): { baseUrl: string } | { problem: string } {
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
		return {
			problem: `The credential's base URL "${chosen}" is not a valid URL (example: https://api.example.com).`,
		};
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return {
			problem: `The credential's base URL must start with https:// or http:// (got ${url.protocol}).`,
		};
	}
	if (url.protocol === 'http:' && !plainHttpAllowed(credentials, url)) {
		if (isLocalhostSubdomain(url.hostname)) {
			const port = url.port ? `:${url.port}` : '';
			return {
				problem: `The credential's Base URL ${url.origin} uses plain http on the name "${url.hostname}": plain http is accepted only for a literal loopback address (127.0.0.0/8, ::1) or "localhost" itself, because the node cannot check where another name resolves and the API key would travel unencrypted. Use http://127.0.0.1${port} (or localhost${port}), an https:// address, or, for a Custom Base URL on a trusted network, turn on "Allow Plain HTTP".`,
			};
		}
		return {
			problem: `The credential's base URL ${url.origin} uses plain http: the API key would travel unencrypted. ${INSECURE_HTTP_HINT}`,
		};
	}
	const cleaned = chosen.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
	return { baseUrl: cleaned };
}

// A line break or another control character would break the header.
export function apiKeyProblem(credentials: ApiCredentialData): string | undefined {
	const key = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (hasControlCharacter(key)) {
		return 'Refused before sending: the API Key of the Recruiting Analysis API credential contains a line break or another control character. Paste the key again as one line.';
	}
	return undefined;
}

export function keyEnvironmentProblem(credentials: ApiCredentialData): string | undefined {
	const key = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	const isSandboxKey = key.startsWith(SANDBOX_KEY_PREFIX);
	const environment = environmentOf(credentials);
	if (environment === 'production' && isSandboxKey) return PRODUCTION_WITH_SANDBOX_KEY_MESSAGE;
	if (environment === 'sandbox' && !isSandboxKey) return SANDBOX_WITH_PRODUCTION_KEY_MESSAGE;
	return undefined;
}
