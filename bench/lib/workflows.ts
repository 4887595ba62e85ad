/**
 * The workflows the benchmarks run in real n8n, built as a user builds them in the editor. Each starts at a
 * production Webhook that answers when the last node finishes, so the caller's round trip is the run's wall time.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowJson } from '../../scripts/n8n-host';
import { NODE_TYPES, type BoundCredentials } from './n8n';

type Node = WorkflowJson['nodes'][number];

const link = (...names: string[]): Record<string, unknown> => {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
};

let x = 0;
const at = (): [number, number] => [(x += 220), 0];

function webhook(path: string, responseData: 'noData' | 'firstEntryJson' = 'noData'): Node {
	x = 0;
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

function readFiles(glob: string): Node {
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
 * Our node as a user adds it today: its newest version (2), whose defaults are what is measured (Simplify on for the
 * analysis operations, so Analyze Resume and Analyze Many output the simplified item of each finished report), and
 * the saved job chosen in the resource locator By ID, as the editor stores it.
 */
const OUR_NODE_VERSION = 2;
const savedJob = (jobId: string) => ({ __rl: true, mode: 'id', value: jobId });

function ours(name: string, parameters: Record<string, unknown>, creds: BoundCredentials): Node {
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

const settings = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'all',
	saveManualExecutions: true,
};

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
				binaryPropertyName: 'data',
				jobDescriptionSource: 'existing',
				jobDescriptionId: savedJob(o.jobId),
				options: {
					...(o.concurrency ? { concurrency: o.concurrency } : {}),
					waitForCompletion: true,
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

function http(name: string, parameters: Record<string, unknown>, creds?: BoundCredentials): Node {
	return {
		id: randomUUID(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: at(),
		parameters: {
			...(creds
				? { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' }
				: {}),
			options: {},
			...parameters,
		},
		...(creds ? { credentials: { httpHeaderAuth: creds.httpHeaderAuth } } : {}),
	};
}

/**
 * B1, n8n's own nodes only: HTTP Request nodes making the calls a user makes (prepare, PUT the file, quote,
 * start), a Merge to bring the file back next to the prepared upload, and a Wait → Get Status → If loop that
 * polls until the report is terminal. The poll interval equals our node's first poll delay (0.5 s).
 */
export function analyzeHttpRequest(o: {
	path: string;
	glob: string;
	jobId: string;
	baseUrl: string;
	creds: BoundCredentials;
	/** One resume at a time through Loop Over Items (batch size 1), the usual pattern for a chain of calls per item. */
	loop?: boolean;
}): WorkflowJson {
	const api = `${o.baseUrl}/api/v1`;
	const nodes: Node[] = [
		webhook(o.path),
		readFiles(o.glob),
		http(
			'Prepare Upload',
			{
				method: 'POST',
				url: `${api}/uploads`,
				sendHeaders: true,
				headerParameters: {
					parameters: [
						{
							name: 'Idempotency-Key',
							value: "={{ 'prep-' + $execution.id + '-' + $binary.data.fileName }}",
						},
					],
				},
				sendBody: true,
				specifyBody: 'json',
				jsonBody: `={{ JSON.stringify({ fileName: $binary.data.fileName, fileSize: $binary.data.bytes, mimeType: $binary.data.mimeType, jobDescription: { kind: 'existing', id: '${o.jobId}' } }) }}`,
			},
			o.creds,
		),
		{
			id: randomUUID(),
			name: 'Merge',
			type: 'n8n-nodes-base.merge',
			typeVersion: 3,
			position: at(),
			parameters: { mode: 'combine', combineBy: 'combineByPosition', options: {} },
		},
		http('PUT File', {
			method: 'PUT',
			url: '={{ $json.data.upload.url }}',
			sendHeaders: true,
			headerParameters: {
				parameters: [{ name: 'Content-Type', value: '={{ $json.data.upload.mimeType }}' }],
			},
			sendBody: true,
			contentType: 'binaryData',
			inputDataFieldName: 'data',
		}),
		http(
			'Get Quote',
			{
				method: 'POST',
				url: `${api}/analysis-quotes`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: "={{ JSON.stringify({ reportId: $('Merge').item.json.data.reportId }) }}",
			},
			o.creds,
		),
		http(
			'Start Analysis',
			{
				method: 'POST',
				url: `${api}/analyses`,
				sendHeaders: true,
				headerParameters: {
					parameters: [
						{
							name: 'Idempotency-Key',
							value:
								"={{ 'start-' + $json.data.reportId + '-' + $json.data.fingerprint.slice(0, 16) }}",
						},
					],
				},
				sendBody: true,
				specifyBody: 'json',
				jsonBody:
					'={{ JSON.stringify({ reportId: $json.data.reportId, quoteFingerprint: $json.data.fingerprint }) }}',
			},
			o.creds,
		),
		{
			id: randomUUID(),
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: at(),
			webhookId: randomUUID(),
			parameters: { resume: 'timeInterval', amount: 0.5, unit: 'seconds' },
		},
		http(
			'Get Status',
			{
				method: 'GET',
				url: `={{ '${api}/reports/' + ($json.data.reportId ?? $json.data.id) + '/status' }}`,
			},
			o.creds,
		),
		{
			id: randomUUID(),
			name: 'Still Running?',
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			position: at(),
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: randomUUID(),
							leftValue: '={{ $json.data.status }}',
							rightValue: 'queued',
							operator: { type: 'string', operation: 'equals' },
						},
						{
							id: randomUUID(),
							leftValue: '={{ $json.data.status }}',
							rightValue: 'processing',
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'or',
				},
				options: {},
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
	if (o.loop) {
		nodes.splice(2, 0, {
			id: randomUUID(),
			name: 'Loop Over Items',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			position: at(),
			parameters: { batchSize: 1, options: {} },
		});
		return {
			name: `bench B1 HTTP Request loop ${o.path}`,
			nodes,
			connections: {
				...link('Webhook', 'Read Resumes', 'Loop Over Items'),
				'Loop Over Items': { main: [[to('Done')], [to('Prepare Upload'), to('Merge')]] },
				...perItemChain('Loop Over Items'),
			},
			settings,
		};
	}
	const connections = {
		...link('Webhook', 'Read Resumes'),
		'Read Resumes': { main: [[to('Prepare Upload'), to('Merge')]] },
		...perItemChain('Done'),
	};
	return { name: `bench B1 HTTP Request ${o.path}`, nodes, connections, settings };
}

const to = (node: string, index = 0) => ({ node, type: 'main', index });

/**
 * The calls of one resume in the HTTP Request workflows, from the prepared upload (merged back with its file)
 * through the poll loop; a finished report goes on to `finished`.
 */
function perItemChain(finished: string): Record<string, unknown> {
	return {
		'Prepare Upload': { main: [[to('Merge', 1)]] },
		...link(
			'Merge',
			'PUT File',
			'Get Quote',
			'Start Analysis',
			'Wait',
			'Get Status',
			'Still Running?',
		),
		'Still Running?': { main: [[to('Wait')], [to(finished)]] },
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
	x = 0;
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
	x = 0;
	const nodes: Node[] = [
		{
			id: randomUUID(),
			name: 'Recruiting Analysis Trigger',
			type: NODE_TYPES.trigger,
			typeVersion: 1,
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
export function plainWebhook(o: { name: string; path: string }): WorkflowJson {
	const hook = webhook(o.path);
	hook.parameters = { httpMethod: 'POST', path: o.path, responseMode: 'onReceived', options: {} };
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
