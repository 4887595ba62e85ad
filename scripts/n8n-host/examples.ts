/**
 * Example workflows and credentials: loading them and binding them to a run's credentials.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';
import type { WorkflowJson } from './run-data';

/** Our npm package, and the n8n type names of its three nodes once installed as a community package. */
export const PACKAGE = 'n8n-nodes-recruiting-analysis';
export const NODE_TYPES = {
	action: `${PACKAGE}.recruitingAnalysis`,
	trigger: `${PACKAGE}.recruitingAnalysisTrigger`,
	feed: `${PACKAGE}.recruitingAnalysisFeedTrigger`,
};

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');

export function loadExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

export function listExamples(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/**
 * Points every node's credential of the given types at the created credentials, and gives webhook nodes
 * a fresh path so that parallel runs never collide.
 */
export function bindWorkflow(
	wf: WorkflowJson,
	credentials: Record<string, { id: string; name: string }>,
	opts: { webhookSuffix?: string; rename?: string } = {},
): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(wf)) as WorkflowJson;
	for (const node of copy.nodes) {
		if (node.credentials) {
			for (const type of Object.keys(node.credentials)) {
				if (credentials[type]) node.credentials[type] = credentials[type];
			}
		}
		if (opts.webhookSuffix && typeof node.webhookId === 'string') {
			node.webhookId = `${node.webhookId}-${opts.webhookSuffix}`;
		}
	}
	if (opts.rename) copy.name = opts.rename;
	return copy;
}

/** A random suffix for names that must not collide between runs. */
export const uniqueSuffix = () => randomBytes(4).toString('hex');
