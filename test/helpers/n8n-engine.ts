/**
 * Test harness: run this package's nodes through n8n's own engine (n8n-core 2.41.1), over real HTTP.
 *
 *   import { executeNode, readOutputBinary, testCredential, runPoll, startWebhookHost,
 *            runWebhookMethods, runLoadOptions } from '../helpers/n8n-engine';
 *
 * - `executeNode` runs the node as `Harness Start → node` with `WorkflowExecute` (continueOnFail,
 *   retries, pairedItem as in n8n), real request helpers, real BinaryDataService (memory or filesystem).
 * - `testCredential` runs a credential's `test` request the way n8n's "Test credential" button does.
 * - `runPoll` runs a polling trigger's `poll()` in n8n's `PollContext` and persists static data the
 *   way n8n does.
 * - `startWebhookHost` serves a webhook trigger on 127.0.0.1 and runs `webhook()` in `WebhookContext`.
 * - `runWebhookMethods`, `runTrigger`, `runLoadOptions`, `runListSearch` for the remaining entry points.
 *
 * Every function sets up the process-wide n8n environment on first use (temp user folder,
 * encryption key, silent logger). See the files in ./engine/ for how each part maps to n8n.
 */
export type { HarnessBinaryMode } from './engine/environment';
export {
	executeNode,
	readOutputBinary,
	currentBinaryDataService,
	type BinaryInput,
	type InputItem,
	type EngineNodeOptions,
	type ExecuteNodeOptions,
	type ExecuteNodeResult,
	type NodeOnError,
} from './engine/execute-node';
export { HarnessCredentialsHelper, type CredentialUpdate } from './engine/credentials-helper';
export { testCredential, type TestCredentialOptions } from './engine/credential-test';
export {
	runPoll,
	createPollSession,
	type PollOptions,
	type PollSession,
	type PollTickResult,
} from './engine/poll';
export {
	startWebhookHost,
	runWebhookMethods,
	type WebhookHost,
	type WebhookHostOptions,
	type WebhookExchange,
	type WebhookExecution,
	type HarnessWebhookRequest,
	type HarnessWebhookResponse,
} from './engine/webhook-host';
export {
	runTrigger,
	runLoadOptions,
	runListSearch,
	type ActiveTrigger,
	type RunTriggerOptions,
	type LoadOptionsOptions,
} from './engine/trigger-and-options';
export { asAiTool } from './engine/types-registry';
