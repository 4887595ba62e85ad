import { NodeOperationError, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { ApiContext } from './attempt';
import {
	apiKeyProblem,
	keyEnvironmentProblem,
	resolveBaseUrl,
	type ApiCredentialData,
} from './environment';

export const CREDENTIAL_TYPE = 'recruitingAnalysisApi';

export interface ResolvedConfig {
	baseUrl: string;
	// The only origin the key is sent to.
	origin: string;
	apiKey: string;
	// So that n8n does not resolve the credential a second time.
	credentials: ICredentialDataDecryptedObject;
}

// n8n keeps one poll context for the whole activation, so an entry expires after CONFIG_TTL_MS, and at once on a 401.
const CONFIG_TTL_MS = 5_000;
const configCache = new WeakMap<
	object,
	Map<number, { at: number; config: Promise<ResolvedConfig> }>
>();

export async function resolveConfig(
	this: ApiContext,
	itemIndex: number | undefined,
): Promise<ResolvedConfig> {
	let byItem = configCache.get(this);
	if (!byItem) {
		byItem = new Map();
		configCache.set(this, byItem);
	}
	const key = itemIndex ?? -1;
	const now = Date.now();
	let entry = byItem.get(key);
	if (!entry || now - entry.at >= CONFIG_TTL_MS || now < entry.at) {
		entry = { at: now, config: readConfig.call(this, itemIndex) };
		byItem.set(key, entry);
	}
	return await entry.config;
}

export async function credentialData(
	this: ApiContext,
	itemIndex: number | undefined,
): Promise<ApiCredentialData> {
	return (await resolveConfig.call(this, itemIndex)).credentials as ApiCredentialData;
}

export function forgetConfig(context: ApiContext, itemIndex: number | undefined): void {
	configCache.get(context)?.delete(itemIndex ?? -1);
}

async function readConfig(
	this: ApiContext,
	itemIndex: number | undefined,
): Promise<ResolvedConfig> {
	const credentials = (await this.getCredentials(CREDENTIAL_TYPE, itemIndex)) as ApiCredentialData;
	const keyProblem = apiKeyProblem(credentials);
	if (keyProblem) {
		throw new NodeOperationError(this.getNode(), keyProblem, {
			itemIndex,
			description: 'Edit the Recruiting Analysis API credential. Nothing was sent.',
		});
	}
	const problem = keyEnvironmentProblem(credentials);
	if (problem) {
		throw new NodeOperationError(this.getNode(), problem, {
			itemIndex,
			description:
				'Sandbox keys (svc_test_...) work only on the sandbox and production keys only on production. Edit the Recruiting Analysis API credential. Nothing was sent.',
		});
	}
	const resolved = resolveBaseUrl(credentials);
	if ('problem' in resolved) {
		throw new NodeOperationError(this.getNode(), resolved.problem, {
			itemIndex,
			description: 'Edit the Recruiting Analysis API credential. Nothing was sent.',
		});
	}
	return {
		baseUrl: resolved.baseUrl,
		origin: new URL(resolved.baseUrl).origin,
		apiKey: typeof credentials.apiKey === 'string' ? credentials.apiKey : '',
		credentials: credentials as ICredentialDataDecryptedObject,
	};
}
