/**
 * Shapes of what n8n stores and prints (workflows, executions, run data) and readers for them.
 */

export type WorkflowJson = {
	name: string;
	nodes: Array<{
		id?: string;
		name: string;
		type: string;
		typeVersion: number;
		position: [number, number];
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		webhookId?: string;
		[k: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[k: string]: unknown;
};

export interface ExecutionSummary {
	id: string;
	finished: boolean;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
	workflowId: string;
}

export interface IRunDataLike {
	resultData: {
		error?: { message: string; description?: string; [k: string]: unknown };
		runData: Record<
			string,
			Array<{
				error?: { message: string; description?: string; [k: string]: unknown };
				data?: {
					main: Array<Array<{
						json: Record<string, unknown>;
						binary?: Record<string, unknown>;
					}> | null>;
				};
				executionStatus?: string;
			}>
		>;
		lastNodeExecuted?: string;
	};
	[k: string]: unknown;
}

export type ExecutionDetail = Omit<ExecutionSummary, never> & { data: IRunDataLike };

export interface CliExecution {
	ok: boolean;
	code: number | null;
	/** The signal that ended `n8n execute`, when one did. */
	signal?: NodeJS.Signals | null;
	/** n8n died of a signal on its way out after printing the finished run (see executeWorkflow). */
	crashedOnExit?: boolean;
	/** The run (`{data: {resultData: ...}}`) as n8n printed it, when it printed one. */
	run?: { data: IRunDataLike; status?: string; [k: string]: unknown };
	stdout: string;
	stderr: string;
}

/** Output items of a node in a run: `items(run, 'Node')[outputIndex]`. */
export function nodeOutput(
	run: IRunDataLike,
	nodeName: string,
	outputIndex = 0,
	runIndex = -1,
): Array<Record<string, unknown>> {
	const runs = run.resultData.runData[nodeName];
	if (!runs || runs.length === 0) return [];
	const r = runs.at(runIndex)!;
	const out = r.data?.main?.[outputIndex] ?? [];
	return (out ?? []).map((i) => i.json);
}

export function nodeError(
	run: IRunDataLike,
	nodeName: string,
): { message: string; description?: string } | undefined {
	return run.resultData.runData[nodeName]?.at(-1)?.error;
}
