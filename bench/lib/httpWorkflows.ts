/**
 * B1's all-at-once HTTP Request workflow: n8n's own nodes making the calls a user would make by hand, the
 * baseline the node is compared with.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowJson } from '../../scripts/n8n-host';
import type { BoundCredentials } from './n8n';
import { at, link, readFiles, settings, webhook, type Node } from './workflowNodes';

export function http(
	name: string,
	parameters: Record<string, unknown>,
	creds?: BoundCredentials,
): Node {
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

export const to = (node: string, index = 0) => ({ node, type: 'main', index });

/**
 * The calls of one resume in the HTTP Request workflows, from the prepared upload (merged back with its file)
 * through the poll loop; a finished report goes on to `finished`.
 */
export function perItemChain(finished: string): Record<string, unknown> {
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
