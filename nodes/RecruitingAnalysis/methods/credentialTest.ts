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

const PROBE_TIMEOUT_MS = 15_000;

export const INVALID_KEY_MESSAGE =
	'The API key is invalid, expired or revoked (401). Create a new key in the application under Settings > Developer > API keys.';
export const WORKSPACE_DISABLED_MESSAGE =
	'The workspace has API access disabled (403). A workspace Admin can enable it in the application.';

type ProbeOutcome =
	| { kind: 'granted' }
	| { kind: 'missing' }
	| { kind: 'invalidKey' }
	| { kind: 'workspaceDisabled' }
	| { kind: 'notTheApi'; status: number }
	| { kind: 'unconfirmed'; why: string };

async function probe(
	baseUrl: string,
	apiKey: string,
	path: string,
	expectNotFound: boolean,
): Promise<ProbeOutcome> {
	let response: Response;
	try {
		response = await fetch(`${baseUrl}${path}`, {
			method: 'GET',
			headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
			redirect: 'manual',
			signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
		});
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		return {
			kind: 'unconfirmed',
			why: cause?.code ?? cause?.message ?? (error as Error).message ?? 'network error',
		};
	}
	const body = (await response.json().catch(() => ({}))) as {
		error?: { code?: unknown; reason?: unknown };
	} | null;
	const reason = body?.error?.reason;
	if (response.status === 401) return { kind: 'invalidKey' };
	if (response.status === 403)
		return reason === 'WORKSPACE_DISABLED' ? { kind: 'workspaceDisabled' } : { kind: 'missing' };
	// A list read answers 2xx with the API's `data` envelope; anything else there is not the API.
	if (response.status >= 200 && response.status < 300) {
		return body !== null && typeof body === 'object' && 'data' in body
			? { kind: 'granted' }
			: { kind: 'notTheApi', status: response.status };
	}
	// A batch probe's 404 comes after the scope checks; a list read never answers 404, so there the base URL is wrong.
	if (response.status === 404)
		return expectNotFound ? { kind: 'granted' } : { kind: 'notTheApi', status: 404 };
	return { kind: 'unconfirmed', why: `HTTP ${response.status}` };
}

function listScopes(scopes: string[]): string {
	return scopes.map((scope) => `${scope} (${SCOPE_USES[scope]})`).join('; ');
}

// n8n finds a credential's test through a node that names it.
export async function recruitingAnalysisApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const credentials = credential.data ?? {};
	const refusal = keyEnvironmentProblem(credentials);
	if (refusal) return { status: 'Error', message: refusal };
	const resolved = resolveBaseUrl(credentials);
	if ('problem' in resolved) return { status: 'Error', message: resolved.problem };
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (apiKey === '') return { status: 'Error', message: 'The API key is empty.' };

	const scopes = Object.keys(SCOPE_PROBES);
	const outcomes = await Promise.all(
		scopes.map(
			async (scope) =>
				await probe(
					resolved.baseUrl,
					apiKey,
					SCOPE_PROBES[scope],
					SCOPE_PROBES[scope].includes(PROBE_BATCH_ID),
				),
		),
	);
	if (outcomes.some((o) => o.kind === 'invalidKey'))
		return { status: 'Error', message: INVALID_KEY_MESSAGE };
	const notTheApi = outcomes.find((o) => o.kind === 'notTheApi');
	if (notTheApi) {
		return {
			status: 'Error',
			message:
				`${resolved.baseUrl} answered ${notTheApi.status}, but not like the Recruiting Analysis API. ` +
				'Check the environment and the base URL (the address without /api/v1).',
		};
	}
	if (outcomes.some((o) => o.kind === 'workspaceDisabled'))
		return { status: 'Error', message: WORKSPACE_DISABLED_MESSAGE };

	const scopesOf = (kind: ProbeOutcome['kind']) =>
		scopes.filter((_, i) => outcomes[i].kind === kind);
	const whyOf = (o: ProbeOutcome) => (o.kind === 'unconfirmed' ? o.why : '');
	const [granted, missing, unconfirmed] = [
		scopesOf('granted'),
		scopesOf('missing'),
		scopesOf('unconfirmed'),
	];
	if (granted.length === 0 && missing.length === 0) {
		const why = outcomes.map(whyOf).find((w) => w !== '') ?? 'no answer';
		return { status: 'Error', message: `Could not reach the API at ${resolved.baseUrl} (${why}).` };
	}

	const parts = ['Connection successful: the API key is valid.'];
	if (granted.length > 0) parts.push(`Scopes confirmed: ${granted.join(', ')}.`);
	if (missing.length > 0) {
		parts.push(
			`Not granted to this key (403): ${listScopes(missing)}. Operations that need them will fail with a 403.`,
		);
	}
	if (unconfirmed.length > 0) {
		const reasons = unconfirmed.map((scope) => whyOf(outcomes[scopes.indexOf(scope)]));
		parts.push(
			`Could not confirm (${[...new Set(reasons)].join(', ')}): ${listScopes(unconfirmed)}.`,
		);
	}
	return { status: 'OK', message: parts.join(' ') };
}
