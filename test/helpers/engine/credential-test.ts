/**
 * `testCredential`: what n8n's "Test credential" button runs (`CredentialsTester.testCredentials`
 * in packages/cli), with n8n-core's `ExecuteContext` and `RoutingNode`:
 *
 * 1. find the test: the credential type's own `test` request, else a node's `testedBy` (a function
 *    name in `methods.credentialTest`, or a request);
 * 2. fill in the type's defaults and resolve expressions in the data (`applyDefaultsAndOverwrites`);
 * 3. a function test runs with n8n-core's `CredentialTestContext`; a request test runs as the
 *    routing request of a temporary declarative node (named like n8n's, `Temp-Node`, parameter
 *    `temp`) through `RoutingNode.runNode()`, so the credential's `authenticate` (and
 *    `preAuthentication`, which n8n always runs when testing) is applied by the real request path;
 * 4. map the outcome like n8n: rules (`responseCode`, `responseSuccessBody`), non-2xx →
 *    `{status: 'Error', message: statusText || 'Received HTTP status code: N'}`, network errors →
 *    their code, success → `{status: 'OK', message: 'Connection successful!'}`.
 */
import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialTestRequest,
	ICredentialType,
	ICredentialsDecrypted,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers, Workflow, createRunExecutionData } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { CREDENTIAL_TEST_NODE_TYPE, HarnessCredentialsHelper } from './credentials-helper';
import { ensureEngineEnvironment } from './environment';
import { HarnessCredentialTypes, HarnessNodeTypes } from './types-registry';

export interface TestCredentialOptions {
	/** Other credential types the tested one extends. */
	credentialTypes?: ICredentialType[];
	/** Node types that may carry a `testedBy` for this credential (when the type has no `test`). */
	nodeTypes?: Array<INodeType | IVersionedNodeType>;
}

type FoundTest =
	{ fn: ICredentialTestFunction } | { request: ICredentialTestRequest; nodeType?: INodeType };

function findTest(
	credentialType: ICredentialType,
	nodeTypes: Array<INodeType | IVersionedNodeType>,
): FoundTest | undefined {
	if (credentialType.test) return { request: credentialType.test };
	for (const candidate of nodeTypes) {
		const versions: INodeType[] =
			'nodeVersions' in candidate
				? Object.keys(candidate.nodeVersions)
						.map(Number)
						.sort((a, b) => b - a)
						.map((version) => candidate.nodeVersions[version])
				: [candidate];
		for (const nodeType of versions) {
			for (const { name, testedBy } of nodeType.description.credentials ?? []) {
				if (name !== credentialType.name || !testedBy) continue;
				if (typeof testedBy === 'string') {
					const fn = nodeType.methods?.credentialTest?.[testedBy];
					if (fn) return { fn };
					continue;
				}
				return { request: testedBy, nodeType };
			}
		}
	}
	return undefined;
}

/** Runs the credential's test the way n8n's credentials test endpoint does; returns n8n's result. */
export async function testCredential(
	credentialType: ICredentialType,
	data: ICredentialDataDecryptedObject,
	options: TestCredentialOptions = {},
): Promise<INodeCredentialTestResult> {
	ensureEngineEnvironment();
	const test = findTest(credentialType, options.nodeTypes ?? []);
	if (!test) return { status: 'Error', message: 'No testing function found for this credential.' };

	const credentialTypes = new HarnessCredentialTypes([
		credentialType,
		...(options.credentialTypes ?? []),
	]);
	const credentialsHelper = new HarnessCredentialsHelper(credentialTypes);
	const reference = await credentialsHelper.add(credentialType.name, data);
	const additionalData = buildAdditionalData({ credentialsHelper });

	const credentialsDecrypted: ICredentialsDecrypted = {
		id: reference.id!,
		name: reference.name,
		type: credentialType.name,
		data,
	};
	try {
		credentialsDecrypted.data = await credentialsHelper.applyDefaultsAndResolve(
			additionalData,
			data,
			credentialType.name,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	if ('fn' in test) {
		return await test.fn.call(new CredentialTestContext(additionalData), credentialsDecrypted);
	}

	const baseType = test.nodeType;
	const typeName = baseType?.description.name ?? CREDENTIAL_TEST_NODE_TYPE;
	const version = baseType ? baseType.description.version : 1;
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: typeName,
		typeVersion: Array.isArray(version) ? version[version.length - 1] : version,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: reference },
	};
	const nodeTypeCopy: INodeType = {
		description: {
			...(baseType?.description ?? {
				displayName: 'No Operation',
				name: typeName,
				group: ['transform'],
				version: 1,
				description: '',
				defaults: {},
				inputs: ['main'],
				outputs: ['main'],
			}),
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request.request },
					default: '',
				},
			],
		},
	} as INodeType;
	node.parameters =
		NodeHelpers.getNodeParameters(
			nodeTypeCopy.description.properties,
			{},
			true,
			false,
			node,
			nodeTypeCopy.description,
		) ?? {};

	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes([nodeTypeCopy]),
	});
	const executeFunctions = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({ executionData: null }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(
			executeFunctions,
			nodeTypeCopy,
			credentialsDecrypted,
		).runNode();
	} catch (thrown) {
		const error = thrown as Error & {
			cause?: { response?: { status: number; statusText?: string }; code?: string };
		};
		if (error.cause?.response) {
			const statusCode = error.cause.response.status;
			for (const rule of test.request.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: error.cause.response.statusText || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}

	for (const rule of test.request.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response?.[0]?.[0]?.json as Record<string, unknown> | undefined;
		const value = rule.properties.key
			.split('.')
			.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], body);
		if (value === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
