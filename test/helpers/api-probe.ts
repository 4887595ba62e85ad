import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

/** The description of a test-only node that calls the transport with the API credential. */
export function apiProbeDescription(
	displayName: string,
	name: string,
	description: string,
): INodeTypeDescription {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'recruitingAnalysisApi', required: true }],
		properties: [],
	};
}
