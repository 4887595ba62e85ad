import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Placeholder production address: the spec names it only `{base_url}`. Replace it here (or use the
 * "Custom Base URL" environment) once the vendor publishes the real one.
 */
export const PRODUCTION_BASE_URL = 'https://api.recruiting-analysis.example';
/** The local sandbox (`npm run sandbox`) listens here by default. */
export const SANDBOX_BASE_URL = 'http://127.0.0.1:4010';
/** Spec, Authentication 5: sandbox keys start with `svc_test_` and work only on the sandbox. */
export const SANDBOX_KEY_PREFIX = 'svc_test_';

export const PRODUCTION_WITH_SANDBOX_KEY_MESSAGE =
	'Refused before sending: this is a sandbox key (it starts with svc_test_) but the environment is Production. ' +
	'Choose the Sandbox environment, or use a production key.';
export const SANDBOX_WITH_PRODUCTION_KEY_MESSAGE =
	'Refused before sending: the environment is Sandbox but this key does not start with svc_test_ (production keys ' +
	'do not work on the sandbox). Use a sandbox key, or choose the Production environment.';

/**
 * The credential test must refuse a key that cannot work on the chosen environment before any request leaves n8n.
 * n8n's credential tester offers no hook for that, so in that case the test request points at a `data:` URL (answered
 * locally by the HTTP client, nothing is sent) whose payload has a distinct length, and a rule on the response's
 * `length` turns it into the message. Real API answers are JSON objects and never have a top-level `length`.
 */
export const REFUSAL_PAYLOAD_PRODUCTION = 'refused:sandbox-key-on-production';
export const REFUSAL_PAYLOAD_SANDBOX = 'refused:production-key-on-sandbox-environment';

const IS_SANDBOX_KEY = `String($credentials.apiKey).trim().startsWith('${SANDBOX_KEY_PREFIX}')`;
const PRODUCTION_MISMATCH = `($credentials.environment === 'production' && ${IS_SANDBOX_KEY})`;
const SANDBOX_MISMATCH = `($credentials.environment === 'sandbox' && !${IS_SANDBOX_KEY})`;
const BASE_URL_EXPRESSION =
	`($credentials.environment === 'production' ? '${PRODUCTION_BASE_URL}' : ` +
	`String($credentials.baseUrl || '${SANDBOX_BASE_URL}').trim().replace(/\\/+$/, ''))`;

/** Path of the first missing scope in a 403 body (`error.requiredScopes[0]`), in the dotted form rules accept. */
const FIRST_REQUIRED_SCOPE_PATH = 'error.requiredScopes.0';

export class RecruitingAnalysisApi implements ICredentialType {
	name = 'recruitingAnalysisApi';

	displayName = 'Recruiting Analysis API';

	icon: Icon = { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' };

	documentationUrl = 'https://github.com/recruiting-analysis/n8n-nodes-recruiting-analysis#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{
					name: 'Production',
					value: 'production',
					description: 'The live service. Production keys only.',
				},
				{
					name: 'Sandbox',
					value: 'sandbox',
					description: 'Synthetic data, mail sink, deterministic results. Keys starting with svc_test_ only.',
				},
				{
					name: 'Custom Base URL',
					value: 'custom',
					description: 'Another deployment of the same API (for example a proxy or a regional endpoint)',
				},
			],
			default: 'production',
		},
		{
			displayName: 'Sandbox URL',
			name: 'baseUrl',
			type: 'string',
			default: SANDBOX_BASE_URL,
			placeholder: SANDBOX_BASE_URL,
			description: 'Address of the sandbox deployment; the local sandbox listens on http://127.0.0.1:4010',
			displayOptions: { show: { environment: ['sandbox'] } },
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the API, without the /api/v1 path',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Created by a workspace Admin in the application under Settings > Developer > API keys. Give it the scopes of the operations you use.',
		},
	];

	/**
	 * Adds `Authorization: Bearer <key>`. A function rather than the generic `={{...}}` form: n8n evaluates a generic
	 * header as an expression (in its expression sandbox) on every request, about 0.85 ms of n8n's main thread per
	 * call in the benchmarks (bench/REPORT.md, issue 15); this is the same header without that cost.
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: { ...(requestOptions.headers ?? {}), Authorization: `Bearer ${String(credentials.apiKey).trim()}` },
		};
	}

	/**
	 * Lists one saved job: needs only `job-descriptions:read`. 401 and 403 come back as bodies (not thrown) so the
	 * rules below can tell an invalid key from a missing scope, and name the scope the API reports as missing.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: `={{ ${PRODUCTION_MISMATCH} || ${SANDBOX_MISMATCH} ? '' : ${BASE_URL_EXPRESSION} }}`,
			url:
				`={{ ${PRODUCTION_MISMATCH} ? 'data:text/plain,${REFUSAL_PAYLOAD_PRODUCTION}' : ` +
				`${SANDBOX_MISMATCH} ? 'data:text/plain,${REFUSAL_PAYLOAD_SANDBOX}' : '/api/v1/job-descriptions' }}`,
			method: 'GET',
			qs: { limit: 1 },
			ignoreHttpStatusErrors: { ignore: true, except: [400, 404, 405, 408, 500, 501, 502, 503, 504] },
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: { key: 'length', value: REFUSAL_PAYLOAD_PRODUCTION.length, message: PRODUCTION_WITH_SANDBOX_KEY_MESSAGE },
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'length', value: REFUSAL_PAYLOAD_SANDBOX.length, message: SANDBOX_WITH_PRODUCTION_KEY_MESSAGE },
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'UNAUTHORIZED',
					message:
						'The API key is invalid, expired or revoked (401). Create a new key in the application under Settings > Developer > API keys.',
				},
			},
			...[
				'job-descriptions:read',
				'reports:read',
				'analyses:write',
				'interviews:read',
				'interviews:write',
				'events:read',
			].map((scope) => ({
				type: 'responseSuccessBody' as const,
				properties: {
					key: FIRST_REQUIRED_SCOPE_PATH,
					value: scope,
					message: `The API key is valid but lacks the scope ${scope} (403). Create a key with the scopes your workflows need (Settings > Developer > API keys) and replace this one.`,
				},
			})),
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.reason',
					value: 'MISSING_SCOPE',
					message:
						'The API key is valid but lacks a scope this check needs (403). Create a key with the scopes your workflows need (Settings > Developer > API keys).',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.reason',
					value: 'WORKSPACE_DISABLED',
					message: 'The workspace has API access disabled (403). A workspace Admin can enable it in the application.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'FORBIDDEN',
					message: 'Access forbidden (403): the workspace is disabled or the key lacks a scope.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'TOO_MANY_REQUESTS',
					message: 'The API is rate limiting this key (429). Wait a moment and test again.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'CONFLICT',
					message: 'Unexpected answer from the API (409).',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'UNPROCESSABLE_CONTENT',
					message: 'Unexpected answer from the API (422).',
				},
			},
		],
	};
}
