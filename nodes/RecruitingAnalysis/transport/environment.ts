// The credential: its environment, its base URL, the key's rules, and the configuration resolved from it per item.
import { NodeOperationError } from 'n8n-workflow';

import {
	PRODUCTION_BASE_URL,
	PRODUCTION_WITH_SANDBOX_KEY_MESSAGE,
	SANDBOX_BASE_URL,
	SANDBOX_KEY_PREFIX,
	SANDBOX_WITH_PRODUCTION_KEY_MESSAGE,
} from '../../../credentials/RecruitingAnalysisApi.credentials';
import { CREDENTIAL_TYPE, type ApiContext } from './attempt';
import { hasControlCharacter, isLocalhostSubdomain, isLoopbackHost } from './guard';

type ApiCredentialData = Record<string, unknown>;

function environmentOf(credentials: ApiCredentialData): 'production' | 'sandbox' | 'custom' {
	const value = credentials.environment;
	return value === 'sandbox' || value === 'custom' ? value : 'production';
}

function plainHttpAllowed(credentials: ApiCredentialData, url: URL): boolean {
	if (isLoopbackHost(url.hostname)) return true;
	const environment = environmentOf(credentials);
	if (environment === 'sandbox') return true;
	return environment === 'custom' && credentials.allowInsecureHttp === true;
}

// The URL itself is never repeated: it is a bearer capability.
export function storageUrlProblem(credentials: ApiCredentialData, raw: string): string | undefined {
	if (!URL.canParse(raw)) return 'The upload URL the API returned is not a valid URL.';
	const url = new URL(raw);
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
	if (!URL.canParse(chosen)) {
		return {
			problem: `The credential's base URL "${chosen}" is not a valid URL (example: https://api.example.com).`,
		};
	}
	const url = new URL(chosen);
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
			problem:
				`The credential's base URL ${url.origin} uses plain http: the API key would travel unencrypted. ` +
				'Use the https:// address. Plain http is accepted only for a literal loopback address (127.0.0.0/8, ::1) or localhost itself, the Sandbox ' +
				'environment, or a Custom Base URL with "Allow Plain HTTP" turned on (for a trusted internal network only: the key travels unencrypted).',
		};
	}
	return { baseUrl: chosen.replace(/\/+$/, '').replace(/\/api\/v1$/, '') };
}

export function keyEnvironmentProblem(credentials: ApiCredentialData): string | undefined {
	const key = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	const isSandboxKey = key.startsWith(SANDBOX_KEY_PREFIX);
	const environment = environmentOf(credentials);
	if (environment === 'production' && isSandboxKey) return PRODUCTION_WITH_SANDBOX_KEY_MESSAGE;
	if (environment === 'sandbox' && !isSandboxKey) return SANDBOX_WITH_PRODUCTION_KEY_MESSAGE;
	return undefined;
}

// n8n keeps one poll context for the whole activation, so an entry expires after CONFIG_TTL_MS, and at once on a 401.
const CONFIG_TTL_MS = 5_000;
const configCache = new WeakMap<object, Map<number, { at: number; config: Promise<Config> }>>();
type Config = Awaited<ReturnType<typeof readConfig>>;

export async function resolveConfig(this: ApiContext, itemIndex: number | undefined) {
	const byItem = configCache.get(this) ?? new Map();
	configCache.set(this, byItem);
	const key = itemIndex ?? -1;
	const now = Date.now();
	let entry = byItem.get(key);
	if (!entry || now - entry.at >= CONFIG_TTL_MS || now < entry.at) {
		entry = { at: now, config: readConfig.call(this, itemIndex) };
		byItem.set(key, entry);
	}
	return await entry.config;
}

export function forgetConfig(context: ApiContext, itemIndex: number | undefined): void {
	configCache.get(context)?.delete(itemIndex ?? -1);
}

async function readConfig(this: ApiContext, itemIndex: number | undefined) {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE, itemIndex);
	const refuse = (message: string, advice = '') =>
		new NodeOperationError(this.getNode(), message, {
			itemIndex,
			description: `${advice}Edit the Recruiting Analysis API credential. Nothing was sent.`,
		});
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey : '';
	// A line break or another control character would break the header.
	if (hasControlCharacter(apiKey.trim())) {
		throw refuse(
			'Refused before sending: the API Key of the Recruiting Analysis API credential contains a line break or another control character. Paste the key again as one line.',
		);
	}
	const problem = keyEnvironmentProblem(credentials);
	if (problem) {
		throw refuse(
			problem,
			'Sandbox keys (svc_test_...) work only on the sandbox and production keys only on production. ',
		);
	}
	const resolved = resolveBaseUrl(credentials);
	if ('problem' in resolved) throw refuse(resolved.problem);
	// origin: the only one the key is sent to; credentials: so that n8n does not resolve them a second time.
	return { ...resolved, origin: new URL(resolved.baseUrl).origin, apiKey, credentials };
}
