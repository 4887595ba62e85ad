// A 403 for a missing scope proves the key valid (the API read its scopes): the test passes and names what is missing.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { keyEnvironmentProblem, resolveBaseUrl } from '../transport/environment';

export const SCOPE_USES: Record<string, string> = {
	'analyses:write':
		'uploads, analysis quotes and starting analyses (Analysis and Upload operations)',
	'events:read': 'the Feed Trigger and Event > Get Many',
	'interviews:read': 'Interview Get, Get Status, Get Result and Get Many',
	'interviews:write': 'interview quotes, invitations, resend and reinterview',
	'job-descriptions:read': 'Job Description operations and the saved-job pick list',
	'reports:read': 'Report operations and waiting for analysis results',
};

const PROBE_BATCH_ID = 'credential-test-probe';

// n8n gives credential tests only its deprecated request helper: the probes use fetch, to the base URL only.
export const SCOPE_PROBES: Record<string, string> = {
	'job-descriptions:read': '/api/v1/job-descriptions?limit=1',
	'reports:read': '/api/v1/reports?limit=1',
	'interviews:read': '/api/v1/interviews?limit=1',
	'events:read': '/api/v1/events?limit=1',
	'analyses:write': `/api/v1/analysis-batches/${PROBE_BATCH_ID}`,
	'interviews:write': `/api/v1/interview-batches/${PROBE_BATCH_ID}`,
};

const INVALID_KEY_MESSAGE =
	'The API key is invalid, expired or revoked (401). Create a new key in the application under Settings > Developer > API keys.';
const WORKSPACE_DISABLED_MESSAGE =
	'The workspace has API access disabled (403). A workspace Admin can enable it in the application.';

type ProbeOutcome = {
	kind: 'granted' | 'missing' | 'invalidKey' | 'workspaceDisabled' | 'notTheApi' | 'unconfirmed';
	status?: number;
	why?: string;
};

async function probe(baseUrl: string, apiKey: string, path: string): Promise<ProbeOutcome> {
	let response: Response;
	try {
		response = await fetch(`${baseUrl}${path}`, {
			method: 'GET',
			headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
			redirect: 'manual',
			signal: AbortSignal.timeout(15_000),
		});
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		return {
			kind: 'unconfirmed',
			why: cause?.code ?? cause?.message ?? (error as Error).message ?? 'network error',
		};
	}
	const { status } = response;
	const body = (await response.json().catch(() => ({}))) as { error?: { reason?: unknown } } | null;
	if (status === 401) return { kind: 'invalidKey' };
	if (status === 403)
		return { kind: body?.error?.reason === 'WORKSPACE_DISABLED' ? 'workspaceDisabled' : 'missing' };
	// A list read answers 2xx with the API's `data` envelope; anything else there is not the API.
	if (status >= 200 && status < 300)
		return {
			kind: body !== null && typeof body === 'object' && 'data' in body ? 'granted' : 'notTheApi',
			status,
		};
	// A batch probe's 404 comes after the scope checks; a list read never answers 404, so there the base URL is wrong.
	if (status === 404)
		return { kind: path.includes(PROBE_BATCH_ID) ? 'granted' : 'notTheApi', status };
	return { kind: 'unconfirmed', why: `HTTP ${status}` };
}

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

const listScopes = (scopes: string[]) =>
	scopes.map((scope) => `${scope} (${SCOPE_USES[scope]})`).join('; ');

// n8n finds a credential's test through a node that names it.
export async function recruitingAnalysisApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const credentials = credential.data ?? {};
	const refusal = keyEnvironmentProblem(credentials);
	if (refusal) return fail(refusal);
	const resolved = resolveBaseUrl(credentials);
	if ('problem' in resolved) return fail(resolved.problem);
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (apiKey === '') return fail('The API key is empty.');

	const scopes = Object.keys(SCOPE_PROBES);
	const outcomes = await Promise.all(
		scopes.map(async (scope) => await probe(resolved.baseUrl, apiKey, SCOPE_PROBES[scope])),
	);
	const kinds = outcomes.map((o) => o.kind);
	if (kinds.includes('invalidKey')) return fail(INVALID_KEY_MESSAGE);
	const notTheApi = outcomes.find((o) => o.kind === 'notTheApi');
	if (notTheApi)
		return fail(
			`${resolved.baseUrl} answered ${notTheApi.status}, but not like the Recruiting Analysis API. ` +
				'Check the environment and the base URL (the address without /api/v1).',
		);
	if (kinds.includes('workspaceDisabled')) return fail(WORKSPACE_DISABLED_MESSAGE);

	const scopesOf = (kind: ProbeOutcome['kind']) => scopes.filter((_, i) => kinds[i] === kind);
	const granted = scopesOf('granted');
	const missing = scopesOf('missing');
	const unconfirmed = scopesOf('unconfirmed');
	const reasons = [...new Set(outcomes.map((o) => o.why).filter((why) => why !== undefined))];
	if (granted.length === 0 && missing.length === 0)
		return fail(`Could not reach the API at ${resolved.baseUrl} (${reasons[0] ?? 'no answer'}).`);

	const parts = ['Connection successful: the API key is valid.'];
	if (granted.length > 0) parts.push(`Scopes confirmed: ${granted.join(', ')}.`);
	if (missing.length > 0)
		parts.push(
			`Not granted to this key (403): ${listScopes(missing)}. Operations that need them will fail with a 403.`,
		);
	if (unconfirmed.length > 0)
		parts.push(`Could not confirm (${reasons.join(', ')}): ${listScopes(unconfirmed)}.`);
	return { status: 'OK', message: parts.join(' ') };
}
