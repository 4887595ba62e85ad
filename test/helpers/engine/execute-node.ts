/**
 * `executeNode`: run one node through n8n's real engine (`WorkflowExecute.processRunExecutionData`
 * from n8n-core) as the second node of a two-node workflow, `Harness Start → <node under test>`.
 *
 * What is real: `WorkflowExecute` (node ordering, `continueOnFail`/`onError`, retries
 * (`retryOnFail`/`maxTries`/`waitBetweenTries`), `pairedItem` assignment, error wrapping), the
 * `ExecuteContext` given to `execute()`, the request helpers (`this.helpers.httpRequest` /
 * `httpRequestWithAuthentication` go over HTTP with n8n's outbound client), the
 * `BinaryDataService` (memory or filesystem), the `Credentials` encryption and expression engine.
 * What is the harness's: the start node, the credential store (see credentials-helper.ts) and the
 * `IWorkflowExecuteAdditionalData` (see additional-data.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';

import { Container } from '@n8n/di';
import { BinaryDataService, WorkflowExecute, prepareBinaryData } from 'n8n-core';
import type {
	ExecutionBaseError,
	IBinaryData,
	IConnections,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteContextData,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IPairedItemData,
	IRun,
	IRunExecutionData,
	ITaskData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	BINARY_ENCODING,
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
} from 'n8n-workflow';

import { buildAdditionalData, buildHooks } from './additional-data';
import { HarnessCredentialsHelper } from './credentials-helper';
import { ensureEngineEnvironment, useBinaryMode, type HarnessBinaryMode } from './environment';
import {
	HARNESS_START_NODE_TYPE,
	HarnessCredentialTypes,
	HarnessNodeTypes,
	HarnessStartNode,
	latestTypeVersion,
	nodeTypeName,
} from './types-registry';

/** A binary attachment of an input item, given as bytes; the harness stores it through n8n. */
export interface BinaryInput {
	data: Buffer;
	mimeType: string;
	fileName?: string;
}

/** One input item. `binary` entries may be `BinaryInput` (stored by the harness) or n8n `IBinaryData`. */
export interface InputItem {
	json?: IDataObject;
	binary?: Record<string, BinaryInput | IBinaryData>;
	pairedItem?: IPairedItemData | IPairedItemData[] | number;
}

export type NodeOnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

export interface EngineNodeOptions {
	/** An instance of the node class under test (`new RecruitingAnalysis()`). */
	nodeType: INodeType | IVersionedNodeType;
	/** Instances of every credential class the node may use. */
	credentialTypes?: ICredentialType[];
	/** Credential data by credential type name; each one is stored encrypted and attached to the node. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** The node's parameters as the editor would save them; the type's defaults are filled in. */
	parameters: INodeParameters;
	/** Node name in the workflow (default: the type's `defaults.name`, else its display name). */
	nodeName?: string;
	/** Node version (default: the latest the type declares). */
	typeVersion?: number;
	/** The node's `id` (default: a fresh UUID per placement, as when a node is added in the editor). */
	nodeId?: string;
	/**
	 * The node's `webhookId` (nodes with webhooks only). n8n keeps it in the saved workflow, so the
	 * webhook URL is stable; the harness makes a new one per placement unless given.
	 */
	webhookId?: string;
}

export interface ExecuteNodeOptions extends EngineNodeOptions {
	/** Items the start node emits into the node (default: one empty item). */
	items?: InputItem[];
	/** n8n's binary data mode for this run (default `default`, the in-memory mode). */
	binaryMode?: HarnessBinaryMode;
	/** The node's "On Error: Continue" setting (sets `onError: 'continueRegularOutput'`). */
	continueOnFail?: boolean;
	/** The node's "On Error" setting, when a test needs `continueErrorOutput`; overrides `continueOnFail`. */
	onError?: NodeOnError;
	/** The node's "Retry On Fail" settings. */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	/** Execution id (default: a fresh one per run); nodes see it as `$execution.id`. */
	executionId?: string;
	/** Workflow id (default `harness-workflow`). */
	workflowId?: string;
	/** Execution mode (default `manual`, as when run from the editor; use `trigger` for production-like runs). */
	mode?: WorkflowExecuteMode;
	/** Workflow settings (timezone, binaryMode, ...). */
	settings?: IWorkflowSettings;
	/** Workflow static data for the run (`$getWorkflowStaticData`), mutated in place like n8n's copy. */
	staticData?: IDataObject;
	/**
	 * The execution's context data (`getContext('flow')` and `getContext('node')`), as n8n restores it with an
	 * execution it saved (a Wait resumed, a Retry); the run's own ends up in `run.data.executionData.contextData`.
	 */
	contextData?: IExecuteContextData;
	/**
	 * Sub-nodes connected to the node under test through `ai_tool` (as tools are connected to an agent); each
	 * type must output `ai_tool` (see `asAiTool`). The node under test reaches them with getInputConnectionData.
	 */
	tools?: Array<Omit<EngineNodeOptions, 'credentialTypes'>>;
	/**
	 * n8n's Retry of a failed execution (the cli's executions service `retry`): the new execution (own id, mode
	 * `retry`) starts from the failed run's saved data (as JSON, as n8n stores it), with the failed last run of the
	 * node removed and the run's error cleared; the earlier nodes' output is kept and they do not run again. Give
	 * the same parameters (and node) as the failed run; `items` are not used.
	 */
	retryOf?: ExecuteNodeResult;
}

export interface ExecuteNodeResult {
	/** The node's outputs (`main` connection), one array per output; `[]` if the node did not run. */
	output: INodeExecutionData[][];
	/**
	 * The run's error (`run.data.resultData.error`), set when the node threw. Note n8n-core 2.41 also
	 * sets it (status `error`) when the node threw under continueOnFail, although the engine then
	 * passed the input items through; a node that turns errors into items itself leaves it unset.
	 */
	error?: ExecutionBaseError;
	/** The node's task data, one entry per run of the node. */
	taskData: ITaskData[];
	/** The full run as n8n's engine returned it. */
	run: IRun;
	executionId: string;
	workflowId: string;
	/** The node as it was placed in the workflow (parameters with defaults, credentials references). */
	node: INode;
	/** The binary store of the run; pass the result to `readOutputBinary` to read output bytes. */
	binary: { mode: HarnessBinaryMode; storagePath?: string; service: BinaryDataService };
	/** Credential write-backs during the run (e.g. a token fetched by `preAuthentication`). */
	credentialsHelper: HarnessCredentialsHelper;
}

function isBinaryInput(value: BinaryInput | IBinaryData): value is BinaryInput {
	return Buffer.isBuffer((value as BinaryInput).data);
}

/** Places the node under test as the editor would: defaults filled in, credentials attached. */
export async function placeNode(
	options: EngineNodeOptions,
	credentialsHelper: HarnessCredentialsHelper,
	position: [number, number] = [200, 0],
): Promise<INode> {
	const { nodeType } = options;
	const typeVersion = options.typeVersion ?? latestTypeVersion(nodeType);
	const versioned = NodeHelpers.getVersionedNodeType(nodeType, typeVersion);
	const description = versioned.description;
	const name =
		options.nodeName ??
		(typeof description.defaults?.name === 'string'
			? description.defaults.name
			: description.displayName);

	const credentials: INodeCredentials = {};
	for (const [type, data] of Object.entries(options.credentials ?? {})) {
		credentials[type] = await credentialsHelper.add(type, data);
	}

	const node: INode = {
		id: options.nodeId ?? randomUUID(),
		name,
		type: nodeTypeName(nodeType),
		typeVersion,
		position,
		parameters: {},
		credentials,
	};
	// n8n's editor saves a node with its parameters resolved against the description (defaults of
	// every displayed parameter filled in); the engine's getNodeParameter relies on that.
	node.parameters =
		NodeHelpers.getNodeParameters(
			description.properties,
			options.parameters,
			true,
			false,
			node,
			description,
		) ?? options.parameters;
	if (description.webhooks?.length) node.webhookId = options.webhookId ?? randomUUID();
	return node;
}

/** Run a node through n8n's `WorkflowExecute`. Never throws for node errors: see `error`. */
export async function executeNode(options: ExecuteNodeOptions): Promise<ExecuteNodeResult> {
	ensureEngineEnvironment();
	const executionId =
		options.executionId ?? String(Date.now()) + String(Math.floor(Math.random() * 1000));
	const workflowId = options.workflowId ?? 'harness-workflow';
	const mode = options.mode ?? 'manual';

	const binary = await useBinaryMode(options.binaryMode ?? 'default');
	try {
		const credentialTypes = new HarnessCredentialTypes(options.credentialTypes ?? []);
		const credentialsHelper = new HarnessCredentialsHelper(credentialTypes);
		const nodeTypes = new HarnessNodeTypes([
			new HarnessStartNode(),
			options.nodeType,
			...(options.tools ?? []).map((t) => t.nodeType),
		]);

		const startNode: INode = {
			id: randomUUID(),
			name: 'Harness Start',
			type: HARNESS_START_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const node = await placeNode(
			{ ...options, nodeId: options.nodeId ?? options.retryOf?.node.id },
			credentialsHelper,
		);
		if (node.name === startNode.name) node.name = `${node.name} (under test)`;
		const onError =
			options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : undefined);
		if (onError) node.onError = onError;
		if (options.retryOnFail !== undefined) node.retryOnFail = options.retryOnFail;
		if (options.maxTries !== undefined) node.maxTries = options.maxTries;
		if (options.waitBetweenTries !== undefined) node.waitBetweenTries = options.waitBetweenTries;

		const connections: IConnections = {
			[startNode.name]: { main: [[{ node: node.name, type: NodeConnectionTypes.Main, index: 0 }]] },
		};
		const tools: INode[] = [];
		for (const [i, tool] of (options.tools ?? []).entries()) {
			const placed = await placeNode(tool, credentialsHelper, [200 + 200 * i, 200]);
			tools.push(placed);
			connections[placed.name] = {
				[NodeConnectionTypes.AiTool]: [
					[{ node: node.name, type: NodeConnectionTypes.AiTool, index: 0 }],
				],
			};
		}
		const workflowData: IWorkflowBase = {
			id: workflowId,
			name: `n8n-engine harness: ${node.name}`,
			active: false,
			isArchived: false,
			activeVersionId: null,
			nodes: [startNode, node, ...tools],
			connections,
			settings: options.settings ?? {},
			staticData: options.staticData,
			createdAt: new Date(),
			updatedAt: new Date(),
		};
		const workflow = new Workflow({
			id: workflowId,
			name: workflowData.name,
			nodes: workflowData.nodes,
			connections,
			active: false,
			nodeTypes,
			staticData: options.staticData,
			settings: options.settings,
		});

		const items = await Promise.all(
			(options.items ?? [{ json: {} }]).map(async (item, index) => {
				const prepared: INodeExecutionData = {
					json: item.json ?? {},
					pairedItem: item.pairedItem ?? { item: index },
				};
				if (item.binary) {
					prepared.binary = {};
					for (const [key, value] of Object.entries(item.binary)) {
						prepared.binary[key] = isBinaryInput(value)
							? await prepareBinaryData(
									value.data,
									executionId,
									workflowId,
									value.fileName,
									value.mimeType,
								)
							: value;
					}
				}
				return prepared;
			}),
		);

		const { hooks, finished } = buildHooks(mode, executionId, workflowData);
		const additionalData = buildAdditionalData({
			credentialsHelper,
			executionId,
			workflowId,
			hooks,
		});

		// The start node goes on the execution stack with the input items, as n8n does for the trigger
		// node of a run; the engine then runs it and the node under test in order.
		const runExecutionData = options.retryOf
			? retriedRunData(options.retryOf.run.data, [startNode, node, ...tools])
			: createRunExecutionData({
					executionData: {
						nodeExecutionStack: [{ node: startNode, data: { main: [items] }, source: null }],
						...(options.contextData ? { contextData: options.contextData } : {}),
					},
				});

		const workflowExecute = new WorkflowExecute(
			additionalData,
			options.retryOf ? 'retry' : mode,
			runExecutionData,
		);
		const run = await workflowExecute.processRunExecutionData(workflow);
		// processRunExecutionData has run the `workflowExecuteAfter` hook before it resolves.
		await finished;

		const taskData = run.data.resultData.runData[node.name] ?? [];
		const last = taskData[taskData.length - 1];
		const output = (last?.data?.main ?? []).map((connection) => connection ?? []);
		return {
			output,
			error: run.data.resultData.error,
			taskData,
			run,
			executionId,
			workflowId,
			node,
			binary: { mode: binary.mode, storagePath: binary.storagePath, service: binary.service },
			credentialsHelper,
		};
	} finally {
		binary.release();
	}
}

/**
 * A failed run's data made ready for n8n's Retry, as the cli's executions service does it. The nodes waiting on the
 * stack are this run's placements (as "Retry with current workflow" does): the harness stores credentials per run.
 */
function retriedRunData(failed: IRunExecutionData, nodes: INode[]): IRunExecutionData {
	// n8n deletes the run's error before retrying; the saved execution is JSON.
	const resultData = { ...failed.resultData, runData: { ...failed.resultData.runData } };
	delete resultData.error;
	const last = resultData.lastNodeExecuted;
	const runs = last ? resultData.runData[last] : undefined;
	if (last && runs?.length && runs[runs.length - 1].error !== undefined)
		resultData.runData[last] = runs.slice(0, -1);
	const kept = JSON.parse(JSON.stringify({ ...failed, resultData })) as IRunExecutionData;
	for (const waiting of kept.executionData?.nodeExecutionStack ?? []) {
		waiting.node = nodes.find((n) => n.name === waiting.node.name) ?? waiting.node;
	}
	return kept;
}

/**
 * The bytes of an output item's binary property, read back through the run's `BinaryDataService`
 * (from disk in filesystem mode, from the item's base64 in the default mode).
 */
export async function readOutputBinary(
	result: Pick<ExecuteNodeResult, 'binary'>,
	item: INodeExecutionData,
	property = 'data',
): Promise<Buffer> {
	const binaryData = item.binary?.[property];
	if (!binaryData)
		throw new Error(`readOutputBinary: the item has no binary property "${property}"`);
	if (binaryData.id) {
		const stream: Readable = await result.binary.service.getAsStream(binaryData.id);
		const chunks: Buffer[] = [];
		for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
		return Buffer.concat(chunks);
	}
	return Buffer.from(binaryData.data, BINARY_ENCODING);
}

/** The harness's current `BinaryDataService` (the one n8n-core's helpers use right now). */
export function currentBinaryDataService(): BinaryDataService {
	return Container.get(BinaryDataService);
}
