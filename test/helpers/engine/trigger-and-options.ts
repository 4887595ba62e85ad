/**
 * The remaining node entry points:
 * - `runTrigger`: a `trigger()` node activated through n8n-core's `TriggersAndPollers.runTriggerFunction`
 *   with a real `TriggerContext` (emits are collected; `close()` runs the node's closeFunction);
 * - `runLoadOptions` / `runListSearch`: `methods.loadOptions` / `methods.listSearch` in n8n-core's
 *   `LoadOptionsContext`, with the node's current parameters, as the editor's
 *   `/rest/dynamic-node-parameters` endpoints do.
 */
import { Container } from '@n8n/di';
import { LoadOptionsContext, TriggerContext, TriggersAndPollers } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeListSearchResult,
	INodePropertyOptions,
	ITriggerResponse,
	WorkflowActivateMode,
} from 'n8n-workflow';

import { buildHooks } from './additional-data';
import type { EngineNodeOptions } from './execute-node';
import { buildSingleNodeWorkflow, saveStaticData, type SingleNodeWorkflow } from './single-node';

export interface RunTriggerOptions extends EngineNodeOptions {
	staticData?: IDataObject;
	/** `trigger` (active workflow, default) or `manual` (editor "Test step"). */
	mode?: 'trigger' | 'manual';
	activation?: WorkflowActivateMode;
}

export interface ActiveTrigger {
	/** Data passed to `emit`, in order (each emit would start one execution). */
	emitted: INodeExecutionData[][][];
	/** Errors passed to `emitError` / `saveFailedExecution`. */
	errors: Error[];
	response: ITriggerResponse | undefined;
	loaded: SingleNodeWorkflow;
	/** Deactivates: runs the node's closeFunction. */
	close(): Promise<void>;
}

export async function runTrigger(options: RunTriggerOptions): Promise<ActiveTrigger> {
	const loaded = await buildSingleNodeWorkflow(options);
	const stored = options.staticData ?? {};
	const emitted: INodeExecutionData[][][] = [];
	const errors: Error[] = [];
	const mode = options.mode ?? 'trigger';
	const activation = options.activation ?? (mode === 'manual' ? 'manual' : 'activate');
	// A manual trigger run belongs to an execution: n8n-core wires its response through the hooks.
	if (mode === 'manual')
		loaded.additionalData.hooks = buildHooks('manual', 'manual-trigger', loaded.workflowData).hooks;
	const response = await Container.get(TriggersAndPollers).runTriggerFunction(
		loaded.workflow,
		loaded.node,
		(workflow, node, additionalData, executeMode, activateMode) =>
			new TriggerContext(
				workflow,
				node,
				additionalData,
				executeMode,
				activateMode,
				(data) => {
					// As the CLI's emit: save static data, then start an execution.
					if (mode !== 'manual') saveStaticData(workflow, stored);
					emitted.push(data);
				},
				(error) => errors.push(error),
				(error) => errors.push(error as unknown as Error),
			),
		loaded.additionalData,
		mode,
		activation,
	);
	return {
		emitted,
		errors,
		response,
		loaded,
		async close() {
			await response?.closeFunction?.();
		},
	};
}

export interface LoadOptionsOptions extends EngineNodeOptions {
	/** Name of the method in `methods.loadOptions` / `methods.listSearch`. */
	method: string;
	/** Parameter path being loaded (n8n passes e.g. `parameters.jobDescriptionId`). */
	path?: string;
}

async function loadOptionsContext(options: LoadOptionsOptions) {
	const loaded = await buildSingleNodeWorkflow(options);
	loaded.additionalData.currentNodeParameters = loaded.node.parameters;
	const context = new LoadOptionsContext(
		loaded.workflow,
		loaded.node,
		loaded.additionalData,
		options.path ?? '',
	);
	const nodeType = loaded.workflow.nodeTypes.getByNameAndVersion(
		loaded.node.type,
		loaded.node.typeVersion,
	);
	return { context, nodeType };
}

export async function runLoadOptions(options: LoadOptionsOptions): Promise<INodePropertyOptions[]> {
	const { context, nodeType } = await loadOptionsContext(options);
	const method = nodeType.methods?.loadOptions?.[options.method];
	if (!method)
		throw new Error(`n8n-engine harness: the node has no methods.loadOptions.${options.method}`);
	return await method.call(context);
}

export async function runListSearch(
	options: LoadOptionsOptions & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const { context, nodeType } = await loadOptionsContext(options);
	const method = nodeType.methods?.listSearch?.[options.method];
	if (!method)
		throw new Error(`n8n-engine harness: the node has no methods.listSearch.${options.method}`);
	return await method.call(context, options.filter, options.paginationToken);
}
