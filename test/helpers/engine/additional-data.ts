/**
 * `IWorkflowExecuteAdditionalData` for harness runs: the object packages/cli builds in
 * `WorkflowExecuteAdditionalData.getBase()` (credentials helper, URLs, variables, hooks), reduced to
 * what a node of this package can reach. Services that need a running n8n server (sub-workflows,
 * task runners for the Code node, agents) throw a clear error instead of pretending to work.
 */
import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import type {
	IDataObject,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { UnexpectedError } from 'n8n-workflow';

import type { HarnessCredentialsHelper } from './credentials-helper';

/** Base URL n8n would show for webhooks; the harness's webhook host replaces it with its own address. */
export const HARNESS_INSTANCE_BASE_URL = 'http://127.0.0.1:5678';

function unavailable(what: string): never {
	throw new UnexpectedError(`n8n-engine harness: ${what} is not available outside a running n8n`);
}

export interface AdditionalDataOptions {
	credentialsHelper: HarnessCredentialsHelper;
	executionId?: string;
	workflowId?: string;
	hooks?: ExecutionLifecycleHooks;
	/** Base URL used for webhook URLs (`getNodeWebhookUrl`). */
	webhookBaseUrl?: string;
	currentNodeParameters?: IWorkflowExecuteAdditionalData['currentNodeParameters'];
}

export function buildAdditionalData(
	options: AdditionalDataOptions,
): IWorkflowExecuteAdditionalData {
	const base = options.webhookBaseUrl ?? HARNESS_INSTANCE_BASE_URL;
	return {
		credentialsHelper: options.credentialsHelper,
		executionId: options.executionId,
		workflowId: options.workflowId,
		hooks: options.hooks,
		currentNodeParameters: options.currentNodeParameters,
		currentNodeExecutionIndex: 0,
		externalSecretsProxy: new ExternalSecretsProxy(),
		variables: {},
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		executeWorkflow: async () => unavailable('executing a sub-workflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => unavailable('the task runner (Code node)'),
	};
}

/** Lifecycle hooks of one run; `workflowExecuteAfter` resolves `finished` with the full run data. */
export function buildHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflowData: IWorkflowBase,
): {
	hooks: ExecutionLifecycleHooks;
	finished: Promise<{ run: IRun; newStaticData?: IDataObject }>;
} {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const finished = new Promise<{ run: IRun; newStaticData?: IDataObject }>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run, newStaticData) =>
			resolve({ run, newStaticData }),
		);
	});
	return { hooks, finished };
}
