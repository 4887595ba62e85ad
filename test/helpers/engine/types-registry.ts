/**
 * The node-type and credential-type registries the engine asks for types by name, in the shape n8n's
 * own loaders give them (`INodeTypes`; the CLI's `CredentialTypes`), filled with the instances a
 * test hands in instead of scanning packages on disk.
 */
import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, UnexpectedError } from 'n8n-workflow';

/** Type name of the harness's start node (the first node of every `executeNode` workflow). */
export const HARNESS_START_NODE_TYPE = 'n8n-engine-harness.start';

/**
 * The harness's start node: it emits, unchanged, the items the harness put on the execution stack
 * for it (the same way n8n's own node tests seed the manual trigger's input). It is a plain
 * `execute` node rather than a trigger so that `WorkflowExecute` runs it like any other node and
 * assigns `pairedItem` to its output.
 */
export class HarnessStartNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Start',
		name: HARNESS_START_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits the items given to the n8n-engine test harness',
		defaults: { name: 'Harness Start' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** The type name a node instance registers under (its description's `name`, for versioned nodes too). */
export function nodeTypeName(nodeType: INodeType | IVersionedNodeType): string {
	return nodeType.description.name;
}

/** Latest version a node type declares (n8n's editor places new nodes at the default/latest version). */
export function latestTypeVersion(nodeType: INodeType | IVersionedNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(nodeTypes: Array<INodeType | IVersionedNodeType> = []) {
		for (const nodeType of nodeTypes) this.add(nodeType);
	}

	add(nodeType: INodeType | IVersionedNodeType, name = nodeTypeName(nodeType)): void {
		this.types.set(name, nodeType);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const found = this.types.get(nodeType);
		if (!found) throw new UnexpectedError(`n8n-engine harness: unknown node type "${nodeType}"`);
		return found;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return Object.fromEntries(
			[...this.types.keys()].map((name) => [name, { className: name, sourcePath: '' }]),
		);
	}
}

export class HarnessCredentialTypes {
	private readonly types = new Map<string, ICredentialType>();

	constructor(credentialTypes: ICredentialType[] = []) {
		for (const credentialType of credentialTypes)
			this.types.set(credentialType.name, credentialType);
	}

	recognizes(name: string): boolean {
		return this.types.has(name);
	}

	getByName(name: string): ICredentialType {
		const found = this.types.get(name);
		if (!found) throw new UnexpectedError(`n8n-engine harness: unknown credential type "${name}"`);
		return found;
	}

	/** All ancestors named in `extends`, nearest first (as the CLI's CredentialTypes.getParentTypes). */
	getParentTypes(name: string): string[] {
		const parents = this.types.get(name)?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}
}

/**
 * The tool variant n8n's node loader makes of a node with `usableAsTool` (packages/cli tool-generation,
 * `convertNodeToAiTool`): type name + "Tool", no inputs, one `ai_tool` output, the same execute and methods.
 * n8n also adds its "Tool Description" parameters; left out here, a node then gets n8n's automatic description
 * (the operation's action). `usableAsTool.replacements` are applied as n8n applies them.
 */
export function asAiTool(nodeType: INodeType): INodeType {
	const source = nodeType.description;
	if (!source.usableAsTool) throw new Error(`${source.name} is not usableAsTool`);
	const replacements =
		typeof source.usableAsTool === 'object' ? (source.usableAsTool.replacements ?? {}) : {};
	const { usableAsTool: _usable, ...rest } = { ...source, ...replacements };
	void _usable;
	const description: INodeTypeDescription = {
		...rest,
		name: `${source.name}Tool`,
		displayName: `${source.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
	return Object.assign(
		Object.create(Object.getPrototypeOf(nodeType) as object) as INodeType,
		nodeType,
		{ description },
	);
}
