/**
 * The workflows the benchmarks run in real n8n, built as a user builds them in the editor. Each starts at a
 * production Webhook that answers when the last node finishes, so the caller's round trip is the run's wall time.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowJson } from '../../scripts/n8n-host';
import { NODE_TYPES, type BoundCredentials } from './n8n';
import {
	at,
	link,
	ours,
	readFiles,
	resetPosition,
	savedJob,
	settings,
	webhook,
	type Node,
} from './workflowNodes';
export { analyzeHttpRequest } from './httpWorkflows';

/** B1, our node per item: Analyze Resume (prepare, PUT, quote, start, wait; Wait for Completion on, every other option at its default) at the given concurrency (or the node's default). */
export function analyzePerItem(o: {
	path: string;
	glob: string;
	jobId: string;
	concurrency?: number;
	creds: BoundCredentials;
}): WorkflowJson {
	const nodes = [
		webhook(o.path),
		readFiles(o.glob),
		ours(
			'Analyze Resume',
			{
				resource: 'analysis',
				operation: 'analyzeResume',
				spendingLimit: 0,
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: savedJob(o.jobId),
				waitForCompletion: true,
				options: {
					...(o.concurrency ? { concurrency: o.concurrency } : {}),
				},
			},
			o.creds,
		),
	];
	return {
		name: `bench B1 per item ${o.path}`,
		nodes,
		connections: link('Webhook', 'Read Resumes', 'Analyze Resume'),
		settings,
	};
}

/** B1, our node in batch mode: Upload Many then Start Many (automatic batch quotes), chunks of 20. */
export function analyzeBatch(o: {
	path: string;
	glob: string;
	jobId: string;
	creds: BoundCredentials;
	simplify?: boolean;
}): WorkflowJson {
	// Simplify is left at its default unless the variant turns it off (then both nodes output the API's batch items).
	const simplify = o.simplify === false ? { simplify: false } : {};
	const nodes = [
		webhook(o.path),
		readFiles(o.glob),
		ours(
			'Upload Many',
			{
				resource: 'upload',
				operation: 'uploadMany',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: savedJob(o.jobId),
				options: {},
			},
			o.creds,
		),
		ours(
			'Start Many',
			{
				resource: 'analysis',
				operation: 'startMany',
				spendingLimit: 0,
				reportId: '={{ $json.reportId }}',
				quoteAutomatically: true,
				...simplify,
				options: {},
			},
			o.creds,
		),
	];
	return {
		name: `bench B1 batch ${o.path}`,
		nodes,
		connections: link('Webhook', 'Read Resumes', 'Upload Many', 'Start Many'),
		settings,
	};
}

/** B1, our node in batch mode as one node: Analyze Many (upload batches, PUTs, batch quotes, analysis batches, pipelined). */
export function analyzeMany(o: {
	path: string;
	glob: string;
	jobId: string;
	creds: BoundCredentials;
	simplify?: boolean;
}): WorkflowJson {
	const nodes = [
		webhook(o.path),
		readFiles(o.glob),
		ours(
			'Analyze Many',
			{
				resource: 'analysis',
				operation: 'analyzeMany',
				spendingLimit: 0,
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: savedJob(o.jobId),
				...(o.simplify === false ? { simplify: false } : {}),
				options: {},
			},
			o.creds,
		),
	];
	return {
		name: `bench B1 analyze many ${o.path}`,
		nodes,
		connections: link('Webhook', 'Read Resumes', 'Analyze Many'),
		settings,
	};
}

/** B2: Read Files → Upload Resume (prepare + streamed PUT) for every file. */
export function uploadResumes(o: {
	path: string;
	glob: string;
	jobId: string;
	creds: BoundCredentials;
}): WorkflowJson {
	const nodes = [
		webhook(o.path),
		readFiles(o.glob),
		ours(
			'Upload Resume',
			{
				resource: 'upload',
				operation: 'uploadResume',
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: savedJob(o.jobId),
				options: {},
			},
			o.creds,
		),
	];
	return {
		name: `bench B2 ${o.path}`,
		nodes,
		connections: link('Webhook', 'Read Resumes', 'Upload Resume'),
		settings,
	};
}

/** B3, action node: Event → Get Many with Return All (pages of 100 while hasMore). */
export function eventGetMany(o: { path: string; creds: BoundCredentials }): WorkflowJson {
	const nodes = [
		webhook(o.path, 'firstEntryJson'),
		ours(
			'Get Events',
			{ resource: 'event', operation: 'getMany', returnAll: true, filters: {} },
			o.creds,
		),
		{
			id: randomUUID(),
			name: 'Count',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: at(),
			parameters: {
				jsCode:
					'return [{ json: { events: $input.all().length, distinct: new Set($input.all().map((i) => i.json.id)).size } }];',
			},
		},
	];
	return {
		name: `bench B3 getMany ${o.path}`,
		nodes,
		connections: link('Webhook', 'Get Events', 'Count'),
		settings,
	};
}

/** B3, feed trigger: from the oldest retained event, the largest per-poll cap the node allows, pages of 100. */
export function feedTrigger(o: {
	name: string;
	creds: BoundCredentials;
	maxEventsPerPoll: number;
}): WorkflowJson {
	resetPosition();
	const nodes: Node[] = [
		{
			id: randomUUID(),
			name: 'Event Feed',
			type: NODE_TYPES.feed,
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				events: ['*'],
				startAt: 'oldest',
				filters: {},
				options: { maxEventsPerPoll: o.maxEventsPerPoll, pageSize: 100 },
			},
			credentials: { recruitingAnalysisApi: o.creds.recruitingAnalysisApi },
		},
		{
			id: randomUUID(),
			name: 'Done',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: at(),
			parameters: {},
		},
	];
	return { name: o.name, nodes, connections: link('Event Feed', 'Done'), settings };
}

/** B5: the webhook trigger (Standard Webhooks verification, dedupe by event id, all event types). */
export function webhookTrigger(o: {
	name: string;
	webhookId: string;
	creds: BoundCredentials;
}): WorkflowJson {
	resetPosition();
	const nodes: Node[] = [
		{
			id: randomUUID(),
			name: 'Recruiting Analysis Trigger',
			type: NODE_TYPES.trigger,
			// As a user adds it today: the newest version.
			typeVersion: 2,
			position: [0, 0],
			webhookId: o.webhookId,
			parameters: { events: ['*'], fetchResource: false, options: {} },
			credentials: {
				recruitingAnalysisSigningSecretApi: o.creds.recruitingAnalysisSigningSecretApi,
			},
		},
		{
			id: randomUUID(),
			name: 'Done',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: at(),
			parameters: {},
		},
	];
	return {
		name: o.name,
		nodes,
		connections: link('Recruiting Analysis Trigger', 'Done'),
		settings,
	};
}

/** B5 baseline: n8n's own Webhook node answering at once (no verification, no dedupe). */
export function plainWebhook(o: {
	name: string;
	path: string;
	/**
	 * One option written as an expression that gives its default (`={{ false }}` for Ignore Bots): n8n then takes an
	 * expression isolate for the request, as for any trigger that is not its Webhook node with static parameters.
	 */
	expressionParameter?: boolean;
}): WorkflowJson {
	const hook = webhook(o.path);
	hook.parameters = {
		httpMethod: 'POST',
		path: o.path,
		responseMode: 'onReceived',
		options: o.expressionParameter ? { ignoreBots: '={{ false }}' } : {},
	};
	const nodes: Node[] = [
		hook,
		{
			id: randomUUID(),
			name: 'Done',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: at(),
			parameters: {},
		},
	];
	return { name: o.name, nodes, connections: link('Webhook', 'Done'), settings };
}
