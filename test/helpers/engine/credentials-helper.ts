/**
 * A real `ICredentialsHelper` (n8n-workflow's abstract class) for the harness, behaving like the one
 * in packages/cli (`CredentialsHelper`) minus the database:
 *
 * - credentials are stored encrypted with n8n-core's own `Credentials` class (the instance's
 *   encryption key via `Cipher`), and decrypted on `getDecrypted`, as n8n does per request;
 * - `getDecrypted` adds the credential type's defaults (`NodeHelpers.getNodeParameters`) and resolves
 *   expressions in the data (`={{ ... }}`), in the execution's context when the engine gives one;
 * - `authenticate` applies a function-style `authenticate`, or the generic form
 *   (`{type: 'generic', properties: {headers|qs|body|auth: {...}}}`) resolving `={{$credentials.x}}`
 *   in keys and values with the workflow's expression engine;
 * - `preAuthentication` runs the type's `preAuthentication` when its expirable hidden field is empty,
 *   when the engine reports the credential expired (a 401), or when testing the credential, and
 *   persists the returned token (re-encrypted) like n8n writes it back to the database. Each write is
 *   recorded in `updates` so tests can observe it.
 *
 * Not reproduced: credential overwrites, external secrets, dynamic (per-user) credentials, OAuth
 * flows, the domain allowlist n8n applies to requests issued from `preAuthentication`.
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	isExpression,
} from 'n8n-workflow';

import { HarnessNodeTypes, type HarnessCredentialTypes } from './types-registry';

/** Node type and name n8n's credential tester gives its temporary node (the CLI checks both). */
export const CREDENTIAL_TEST_NODE_TYPE = 'n8n-nodes-base.noOp';

const expressionNode: INode = {
	id: 'harness-credentials-expression-node',
	name: '',
	type: 'harness.credentialsExpression',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const expressionNodeTypes = new HarnessNodeTypes();
expressionNodeTypes.add(
	{ description: { properties: [] } } as unknown as import('n8n-workflow').INodeType,
	expressionNode.type,
);

export interface CredentialUpdate {
	id: string;
	type: string;
	/** Decrypted data that was written back (what n8n would store encrypted in its database). */
	data: ICredentialDataDecryptedObject;
}

let credentialCounter = 0;

export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly stored = new Map<string, Credentials>();

	/** How many times a node read a credential (`getDecrypted`), per credential id. */
	readonly reads = new Map<string, number>();

	/** Every write-back of credential data (preAuthentication tokens, OAuth token data), in order. */
	readonly updates: CredentialUpdate[] = [];

	constructor(private readonly credentialTypes: HarnessCredentialTypes) {
		super();
	}

	/** Stores `data` encrypted and returns the reference a node carries in `node.credentials[type]`. */
	async add(type: string, data: ICredentialDataDecryptedObject): Promise<INodeCredentialsDetails> {
		this.credentialTypes.getByName(type);
		// Unique in the process, as n8n's are in its database (nodes may key what they keep by credential id).
		const details = { id: `harness-credential-${++credentialCounter}`, name: `${type} (harness)` };
		const credentials = new Credentials(details, type);
		await credentials.setData(data);
		this.stored.set(details.id, credentials);
		return details;
	}

	/** The stored (decrypted, raw) data of a credential: what n8n has in its database right now. */
	async readStored(id: string): Promise<ICredentialDataDecryptedObject> {
		const credentials = this.stored.get(id);
		if (!credentials)
			throw new UnexpectedError(`n8n-engine harness: no credential with id "${id}"`);
		return await credentials.getData();
	}

	getParentTypes(name: string): string[] {
		return this.credentialTypes.getParentTypes(name);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.credentialTypes.recognizes(credentialType)) return true;
		const typeDef = this.credentialTypes.getByName(credentialType);
		if (!typeDef.restrictToSupportedNodes) return true;
		const shortName = nodeType.split('.').pop() ?? nodeType;
		return (typeDef.supportedNodes ?? []).some((name) => name === nodeType || name === shortName);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions;
		const { authenticate } = this.credentialTypes.getByName(typeName);
		if (!authenticate) return requestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);

		if (!workflow || !node) {
			throw new UnexpectedError(
				'Workflow and node are required for declarative credential authentication',
			);
		}
		if (authenticate.type !== 'generic') return requestOptions;

		requestOptions.headers ??= {};
		const target = requestOptions as unknown as Record<string, Record<string, unknown> | undefined>;
		for (const [outerKey, entries] of Object.entries(authenticate.properties)) {
			for (const [key, value] of Object.entries(entries as Record<string, string>)) {
				const keyResolved = this.resolveValue(key, { $credentials: credentials }, workflow, node);
				const valueResolved = this.resolveValue(
					value,
					{ $credentials: credentials },
					workflow,
					node,
				);
				target[outerKey] ??= {};
				target[outerKey]![keyResolved] = valueResolved;
			}
		}
		return requestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.credentialTypes.getByName(typeName);
		const expirable = credentialType.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined) return undefined;
		if (typeof credentialType.preAuthentication !== 'function') return undefined;

		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === CREDENTIAL_TEST_NODE_TYPE;
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isTestingCredentials)
			return undefined;

		const output = (await credentialType.preAuthentication.call(
			{ helpers: { httpRequest: helpers.helpers.httpRequest } },
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;

		const reference = node.credentials?.[credentialType.name];
		if (!reference) return undefined;
		const storedData = await (await this.getCredentials(reference, credentialType.name)).getData();
		const dataToPersist: ICredentialDataDecryptedObject = { ...storedData };
		for (const [key, value] of Object.entries(output)) {
			// A field the user stored as an expression keeps its expression (n8n does the same).
			if (key === expirable.name || !isExpression(storedData[key])) dataToPersist[key] = value;
		}
		await this.updateCredentials(reference, credentialType.name, dataToPersist);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.credentialTypes.getByName(typeName);
		if (typeof credentialType.preAuthentication !== 'function') return undefined;
		return (await credentialType.preAuthentication.call(
			{ helpers: { httpRequest: helpers.helpers.httpRequest } },
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		const credentials = nodeCredentials.id ? this.stored.get(nodeCredentials.id) : undefined;
		if (!credentials || credentials.type !== type) {
			throw new UnexpectedError(
				`Could not find credential for ID "${nodeCredentials.id ?? ''}" of type "${type}" (n8n-engine harness: pass it in "credentials")`,
			);
		}
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		const stored = await credentials.getData();
		if (nodeCredentials.id)
			this.reads.set(nodeCredentials.id, (this.reads.get(nodeCredentials.id) ?? 0) + 1);
		if (raw === true) return stored;
		return await this.applyDefaultsAndResolve(
			additionalData,
			stored,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** Credential defaults + expression resolution, as the CLI's `applyDefaultsAndOverwrites` (no overwrites). */
	async applyDefaultsAndResolve(
		additionalData: IWorkflowExecuteAdditionalData,
		stored: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const properties = this.getCredentialsProperties(type);
		let data = NodeHelpers.getNodeParameters(
			properties,
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (stored.oauthTokenData !== undefined) data.oauthTokenData = stored.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			try {
				data = workflow.expression.getParameterValue(
					data as INodeParameters,
					runExecutionData,
					runIndex,
					itemIndex,
					node.name,
					connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (error) {
				if (error instanceof Error) error.message += ' [Error resolving credentials]';
				throw error;
			}
			return data;
		}

		const workflow = new Workflow({
			nodes: [expressionNode],
			connections: {},
			active: false,
			nodeTypes: expressionNodeTypes,
		});
		const acquired = await workflow.expression.acquireIsolate();
		try {
			return workflow.expression.getComplexParameterValue(
				expressionNode,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		} finally {
			if (acquired) await workflow.expression.releaseIsolate();
		}
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		await credentials.setData(data);
		this.updates.push({ id: credentials.id!, type, data: structuredClone(data) });
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const credentials = await this.getCredentials(nodeCredentials, type);
		await credentials.updateData({ oauthTokenData: data.oauthTokenData });
		this.updates.push({ id: credentials.id!, type, data: await credentials.getData() });
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.credentialTypes.getByName(type);
		if (credentialType.extends === undefined) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}

	private resolveValue(
		value: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}
}
