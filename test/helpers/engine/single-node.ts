/**
 * A workflow holding only the node under test, as n8n builds one for an active trigger, a poll, a
 * webhook, load-options requests and credential tests. Shared by the non-`executeNode` entry points.
 */
import type {
	IDataObject,
	INode,
	IWorkflowExecuteAdditionalData,
	IWorkflowBase,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { buildAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials-helper';
import { ensureEngineEnvironment } from './environment';
import { placeNode, type EngineNodeOptions } from './execute-node';
import { HarnessCredentialTypes, HarnessNodeTypes } from './types-registry';

export interface SingleNodeWorkflow {
	workflow: Workflow;
	workflowData: IWorkflowBase;
	node: INode;
	credentialsHelper: HarnessCredentialsHelper;
	additionalData: IWorkflowExecuteAdditionalData;
}

export interface SingleNodeOptions extends EngineNodeOptions {
	workflowId?: string;
	/** Workflow static data to start from; it is copied, never mutated (see poll.ts for saving). */
	staticData?: IDataObject;
	webhookBaseUrl?: string;
	executionId?: string;
}

/** Deep copy of stored static data, the way n8n loads it from its database (plain JSON). */
export function loadStaticData(stored: IDataObject | undefined): IDataObject {
	return stored ? (JSON.parse(JSON.stringify(stored)) as IDataObject) : {};
}

export async function buildSingleNodeWorkflow(
	options: SingleNodeOptions,
): Promise<SingleNodeWorkflow> {
	ensureEngineEnvironment();
	const workflowId = options.workflowId ?? 'harness-workflow';
	const credentialsHelper = new HarnessCredentialsHelper(
		new HarnessCredentialTypes(options.credentialTypes ?? []),
	);
	const nodeTypes = new HarnessNodeTypes([options.nodeType]);
	const node = await placeNode(options, credentialsHelper, [0, 0]);
	const staticData = loadStaticData(options.staticData);
	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: `n8n-engine harness: ${node.name}`,
		active: true,
		isArchived: false,
		activeVersionId: null,
		nodes: [node],
		connections: {},
		settings: {},
		staticData,
		createdAt: new Date(),
		updatedAt: new Date(),
	};
	const workflow = new Workflow({
		id: workflowId,
		name: workflowData.name,
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData,
		settings: {},
	});
	const additionalData = buildAdditionalData({
		credentialsHelper,
		workflowId,
		executionId: options.executionId,
		webhookBaseUrl: options.webhookBaseUrl,
	});
	return { workflow, workflowData, node, credentialsHelper, additionalData };
}

/**
 * What n8n's `WorkflowStaticDataService.saveStaticData(workflow)` does, with the caller's object as
 * the database row: when the workflow's static data is marked changed, write it (as JSON) and clear
 * the flag. Returns whether it saved.
 */
export function saveStaticData(workflow: Workflow, stored: IDataObject): boolean {
	if (workflow.staticData.__dataChanged !== true) return false;
	const saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
	for (const key of Object.keys(stored)) delete stored[key];
	Object.assign(stored, saved);
	workflow.staticData.__dataChanged = false;
	return true;
}
