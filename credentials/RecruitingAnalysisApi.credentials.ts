import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

// A placeholder: the spec names the production address only {base_url}.
export const PRODUCTION_BASE_URL = 'https://api.recruiting-analysis.example';
export const SANDBOX_BASE_URL = 'http://127.0.0.1:4010';
export const SANDBOX_KEY_PREFIX = 'svc_test_';

export const PRODUCTION_WITH_SANDBOX_KEY_MESSAGE =
	'Refused before sending: this is a sandbox key (it starts with svc_test_) but the environment is Production. ' +
	'Choose the Sandbox environment, or use a production key.';
export const SANDBOX_WITH_PRODUCTION_KEY_MESSAGE =
	'Refused before sending: the environment is Sandbox but this key does not start with svc_test_ (production keys ' +
	'do not work on the sandbox). Use a sandbox key, or choose the Production environment.';

export class RecruitingAnalysisApi implements ICredentialType {
	name = 'recruitingAnalysisApi';

	displayName = 'Recruiting Analysis API';

	icon: Icon = { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' };

	documentationUrl =
		'https://github.com/recruiting-analysis/n8n-nodes-recruiting-analysis#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{
					name: 'Production',
					value: 'production',
					description:
						'The live service, production keys only. Its address is not published yet: until then choose Custom Base URL.',
				},
				{
					name: 'Sandbox',
					value: 'sandbox',
					description:
						'Synthetic data, mail sink, deterministic results; keys starting with svc_test_. Start it with npm run -s sandbox.',
				},
				{
					name: 'Custom Base URL',
					value: 'custom',
					description:
						'Another deployment of the same API (for example a proxy or a regional endpoint)',
				},
			],
			// Sandbox: Production's address is still a placeholder, so a credential opened on it could never work.
			default: 'sandbox',
		},
		{
			displayName:
				'To start the local sandbox, run npm run -s sandbox in a clone of the n8n-nodes-recruiting-analysis repository: its first line prints the base URL and a svc_test_ key to paste here (npm start makes this credential for you).',
			name: 'sandboxNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { environment: ['sandbox'] } },
		},
		{
			displayName: 'Sandbox URL',
			name: 'baseUrl',
			type: 'string',
			default: SANDBOX_BASE_URL,
			placeholder: SANDBOX_BASE_URL,
			description:
				'Address of the sandbox deployment; the local sandbox listens on http://127.0.0.1:4010',
			hint: 'n8n in a container cannot reach 127.0.0.1 of the host: start the sandbox with --host 0.0.0.0 --public-url http://host.docker.internal:4010 and enter that URL here (on Linux, run the container with --add-host=host.docker.internal:host-gateway)',
			displayOptions: { show: { environment: ['sandbox'] } },
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the API, without the /api/v1 path. Must be https:// (http:// only for localhost, 127.0.0.1 or ::1, or with Allow Plain HTTP). The API key is sent only to this address: redirects to another host are refused.',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'Allow Plain HTTP',
			name: 'allowInsecureHttp',
			type: 'boolean',
			default: false,
			description:
				'Whether to accept an http:// Base URL on a host that is not loopback (localhost, 127.0.0.1). The API key and candidate data then travel unencrypted: only for a trusted internal network.',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			hint: 'A workspace Admin makes API keys in Recruiting Analysis under Settings → Developer → API keys.',
			description:
				'Give the key the scopes of the operations you use (the Credentials section of the README lists them). Sandbox keys start with svc_test_.',
		},
	];

	// A function, not ={{...}}: n8n evaluates that as an expression per request, 0.85 ms each (bench/REPORT.md).
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...(requestOptions.headers ?? {}),
				Authorization: `Bearer ${String(credentials.apiKey).trim()}`,
			},
		};
	}

	// Tested by nodes/RecruitingAnalysis/methods/credentialTest.ts, so a key made for one use passes.
}
