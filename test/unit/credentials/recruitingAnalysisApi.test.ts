/**
 * The API credential's description, and its expressions evaluated by n8n-workflow's own expression engine
 * (the same evaluation n8n applies to `authenticate`). Its test is the nodes' `recruitingAnalysisApiTest`
 * (test/nodes/transport/credential.test.ts).
 */
import { Workflow } from 'n8n-workflow';
import type { INodeType, INodeTypes } from 'n8n-workflow';

import {
	RecruitingAnalysisApi,
	SANDBOX_BASE_URL,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

const credential = new RecruitingAnalysisApi();

const emptyType = { description: { properties: [] } } as unknown as INodeType;
const nodeTypes: INodeTypes = {
	getByName: () => emptyType,
	getByNameAndVersion: () => emptyType,
	getKnownTypes: () => ({}),
};
const workflow = new Workflow({
	nodes: [{ id: 'n', name: 'n', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }],
	connections: {},
	active: false,
	nodeTypes,
});

function evaluate(expression: unknown, credentials: Record<string, unknown>): unknown {
	return workflow.expression.getParameterValue(
		expression as string,
		null,
		0,
		0,
		'n',
		[],
		'internal',
		{ $credentials: credentials } as never,
	);
}

describe('RecruitingAnalysisApi credential', () => {
	test('name, display name, documentation and icons', () => {
		expect(credential.name).toBe('recruitingAnalysisApi');
		expect(credential.displayName).toBe('Recruiting Analysis API');
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
		expect(credential.icon).toEqual({ light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' });
	});

	test('environment: Production, Sandbox, Custom Base URL; the URL field shows for sandbox and custom; the key is a password', () => {
		const environment = credential.properties.find((p) => p.name === 'environment');
		expect(environment?.options?.map((o) => ('value' in o ? o.value : undefined))).toEqual(['production', 'sandbox', 'custom']);
		const urlFields = credential.properties.filter((p) => p.name === 'baseUrl');
		expect(urlFields.map((p) => p.displayOptions?.show?.environment)).toEqual([['sandbox'], ['custom']]);
		expect(urlFields[0].default).toBe(SANDBOX_BASE_URL);
		const apiKey = credential.properties.find((p) => p.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		expect(apiKey?.required).toBe(true);
	});

	test('authenticate sends a bearer header with the trimmed key', () => {
		const header = credential.authenticate.properties.headers?.Authorization;
		expect(evaluate(header, { apiKey: '  svc_test_abc \n' })).toBe('Bearer svc_test_abc');
	});
});
