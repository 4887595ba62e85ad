/**
 * The pieces the benchmark workflows are made of: a production Webhook that answers when the last node finishes,
 * Read Files, our node at its newest version, and the positions and connections the editor would give them.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowJson } from '../../scripts/n8n-host';
import { NODE_TYPES, type BoundCredentials } from './n8n';

export type Node = WorkflowJson['nodes'][number];

export const link = (...names: string[]): Record<string, unknown> => {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
};

let x = 0;
export const at = (): [number, number] => [(x += 220), 0];
/** Starts a new workflow's row of nodes at the left. */
export const resetPosition = (): void => {
	x = 0;
};

export function webhook(path: string, responseData: 'noData' | 'firstEntryJson' = 'noData'): Node {
	resetPosition();
	return {
		id: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData, options: {} },
	};
}

export function readFiles(glob: string): Node {
	return {
		id: randomUUID(),
		name: 'Read Resumes',
		type: 'n8n-nodes-base.readWriteFile',
		typeVersion: 1,
		position: at(),
		parameters: { operation: 'read', fileSelector: glob, options: { dataPropertyName: 'data' } },
	};
}

/**
 * Our node as a user adds it today: its one version (1), whose defaults are what is measured (Simplify on for the
 * analysis operations, so Analyze Resume and Analyze Many output the simplified item of each finished report), and
 * the saved job chosen in the resource locator By ID, as the editor stores it.
 */
export const OUR_NODE_VERSION = 1;
export const savedJob = (jobId: string) => ({ __rl: true, mode: 'id', value: jobId });

export function ours(
	name: string,
	parameters: Record<string, unknown>,
	creds: BoundCredentials,
): Node {
	return {
		id: randomUUID(),
		name,
		type: NODE_TYPES.action,
		typeVersion: OUR_NODE_VERSION,
		position: at(),
		parameters,
		credentials: { recruitingAnalysisApi: creds.recruitingAnalysisApi },
	};
}

/**
 * The workflow as an earlier build of the package takes it: before the action node had one version (the bench
 * then used version 2), Wait for Completion sat in Options and Spending Limit was no parameter of its own.
 */
export function atNodeVersion(wf: WorkflowJson, version: number): WorkflowJson {
	if (version === OUR_NODE_VERSION) return wf;
	const nodes = wf.nodes.map((node) => {
		if (node.type !== NODE_TYPES.action) return node;
		const parameters = { ...node.parameters };
		if (version >= 2) {
			const { waitForCompletion, spendingLimit: _limit, ...rest } = parameters;
			const options = { ...((rest.options as Record<string, unknown> | undefined) ?? {}) };
			if (waitForCompletion !== undefined) options.waitForCompletion = waitForCompletion;
			return { ...node, typeVersion: version, parameters: { ...rest, options } };
		}
		return { ...node, typeVersion: version, parameters };
	});
	return { ...wf, nodes };
}

export const settings = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'all',
	saveManualExecutions: true,
};
