/**
 * Polling triggers, run the way n8n 2.41 runs them, with static data saved exactly when n8n saves it.
 *
 * How n8n handles a poller's static data (n8n-core 2.41.1 + packages/cli):
 *
 * - Active workflow ("trigger" mode). On activation n8n loads the workflow, including its
 *   `staticData`, from the database into ONE in-memory `Workflow` that lives as long as the
 *   activation. `ActiveWorkflowTriggers.activatePollTrigger` runs the poll once right away
 *   (`PollTriggerExecutor` with `testingTrigger = true`: an error fails the activation), then on
 *   every cron tick (`testingTrigger = false`: an error goes to `__emitError`, i.e. an error
 *   execution). The node's `this.getWorkflowStaticData('node')` is that in-memory workflow's data.
 *   - `poll()` returns data: `PollTriggerExecutor` calls `__emit`, and the CLI's `__emit`
 *     (`ActiveWorkflowManager.getExecutePollFunctions`) first calls
 *     `WorkflowStaticDataService.saveStaticData(workflow)`: if the data is marked changed it is
 *     written to the database; then the workflow execution starts.
 *   - `poll()` returns `null`: nothing is written. `PollTriggerExecutor` calls
 *     `commitStagedCursor`, which is a no-op for the `PollContext` the CLI builds (no durable
 *     cursor staging is wired in: packages/cli only stages cursors when
 *     `N8N_POLLER_DURABLE_CURSORS_ENABLED` is on, which @n8n/config 2.39 (n8n 2.41) defaults to
 *     false; this harness models the default). The changes stay in the in-memory workflow, so later ticks of
 *     the same activation see them, but a restart or re-activation reloads the last saved data.
 *   - `poll()` throws: nothing is written.
 * - Manual ("Fetch Test Event" / "Execute step", mode `manual`): the poll runs through
 *   `WorkflowExecute` (`executePollNode` with a `PollContext` in manual activation), and the
 *   execution's `hookFunctionsSave` skips static data for manual executions
 *   (`if (!isManualMode && ... && newStaticData)`): nothing is ever written.
 *
 * The harness mirrors that with the caller's `staticData` object standing for the database row:
 * it is read (deep-copied) when a workflow is loaded and overwritten in place only when n8n would
 * save. `createPollSession` keeps one in-memory workflow across polls (one activation);
 * `runPoll` is one poll of a freshly loaded workflow.
 */
import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import type {
	ExecutionError,
	IDataObject,
	INodeExecutionData,
	IRun,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';
import { WorkflowExecute } from 'n8n-core';

import { buildHooks } from './additional-data';
import { useBinaryMode, type HarnessBinaryMode } from './environment';
import type { EngineNodeOptions } from './execute-node';
import { buildSingleNodeWorkflow, saveStaticData, type SingleNodeWorkflow } from './single-node';

export interface PollOptions extends EngineNodeOptions {
	/**
	 * The workflow's stored static data (what n8n keeps in its database). Read when the workflow is
	 * loaded; overwritten in place only when n8n would save it (see the file comment).
	 */
	staticData: IDataObject;
	/** `trigger`: a poll of an active workflow. `manual`: "Fetch Test Event" in the editor. */
	mode: 'trigger' | 'manual';
	workflowId?: string;
	binaryMode?: HarnessBinaryMode;
}

export interface PollTickResult {
	/** What `poll()` returned (`null` when it had nothing). */
	output: INodeExecutionData[][] | null;
	/** The poll's error, if it threw (in a cron tick n8n would record an error execution). */
	error?: Error;
	/** Whether this tick wrote the static data to the caller's object. */
	saved: boolean;
	/** Manual mode only: the run `WorkflowExecute` produced. */
	run?: IRun;
}

export interface PollSession {
	/** One poll: the first is the activation poll, the next ones are cron ticks (as in n8n). */
	tick(): Promise<PollTickResult>;
	/** The in-memory static data of the active workflow (what `poll()` sees on the next tick). */
	readonly workflowStaticData: IDataObject;
	/** Simulates an n8n restart / re-activation: reload the workflow from the stored static data. */
	restart(): Promise<void>;
	/** The loaded workflow (for advanced assertions). */
	readonly current: SingleNodeWorkflow;
}

/** Starts an activation of a polling trigger (mode `trigger`) or a manual test context (`manual`). */
export async function createPollSession(options: PollOptions): Promise<PollSession> {
	let loaded = await buildSingleNodeWorkflow(options);
	let ticks = 0;

	// n8n creates the poll context once per activation (`ActiveWorkflowTriggers.activatePollTrigger`) and every
	// cron tick calls poll() on that same object, so state a node keys on its context lives for the activation.
	let current: { output: INodeExecutionData[][] | null; error?: Error; saved: boolean } = {
		output: null,
		saved: false,
	};
	let activationContext:
		| { loaded: SingleNodeWorkflow; execute: (testingTrigger: boolean) => Promise<unknown> }
		| undefined;
	const activate = () => {
		const { workflow, node, additionalData } = loaded;
		const activation: WorkflowActivateMode = 'activate';
		const pollFunctions = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			activation,
			(data) => {
				// The CLI's __emit: save the static data, then start the execution.
				current.saved = saveStaticData(workflow, options.staticData);
				current.output = data;
			},
			(emitted: ExecutionError) => {
				current.error = emitted;
			},
		);
		const executor = Container.get(PollTriggerExecutor);
		return { loaded, execute: executor.create(workflow, node, pollFunctions, () => true) };
	};

	const tickTrigger = async (): Promise<PollTickResult> => {
		if (activationContext?.loaded !== loaded) activationContext = activate();
		const testingTrigger = ticks === 0;
		ticks++;
		current = { output: null, saved: false };
		try {
			await activationContext.execute(testingTrigger);
		} catch (thrown) {
			current.error = thrown as Error;
		}
		return { output: current.output, error: current.error, saved: current.saved };
	};

	const tickManual = async (): Promise<PollTickResult> => {
		ticks++;
		// Manual runs always start from the stored data and never write it back.
		const { workflow, workflowData, node, credentialsHelper } =
			await buildSingleNodeWorkflow(options);
		const executionId = `manual-poll-${Date.now()}-${ticks}`;
		const { hooks, finished } = buildHooks('manual', executionId, workflowData);
		const additionalData: IWorkflowExecuteAdditionalData = {
			...loaded.additionalData,
			credentialsHelper,
			executionId,
			hooks,
		};
		const runExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }],
			},
		});
		const run = await new WorkflowExecute(
			additionalData,
			'manual',
			runExecutionData,
		).processRunExecutionData(workflow);
		await finished;
		const taskData = run.data.resultData.runData[node.name]?.[0];
		const main = taskData?.data?.main;
		const output =
			main && main.some((items) => items && items.length > 0)
				? main.map((items) => items ?? [])
				: null;
		const error = run.data.resultData.error;
		return { output, error, saved: false, run };
	};

	const tick = async () => {
		const binary = await useBinaryMode(options.binaryMode ?? 'default');
		try {
			return options.mode === 'manual' ? await tickManual() : await tickTrigger();
		} finally {
			binary.release();
		}
	};

	return {
		tick,
		get workflowStaticData() {
			return loaded.workflow.staticData;
		},
		get current() {
			return loaded;
		},
		async restart() {
			loaded = await buildSingleNodeWorkflow(options);
			ticks = 0;
		},
	};
}

/**
 * One poll of a freshly loaded workflow (the activation poll in `trigger` mode, "Fetch Test Event"
 * in `manual` mode). Returns `poll()`'s output or `null`, throws the poll's error, and updates
 * `options.staticData` in place exactly when n8n would save it.
 */
export async function runPoll(options: PollOptions): Promise<INodeExecutionData[][] | null> {
	const session = await createPollSession(options);
	const result = await session.tick();
	if (result.error) throw result.error;
	return result.output;
}
