import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeProperties,
	type INodePropertyOptions,
	type NodeConnectionType,
} from 'n8n-workflow';

import { TOOL_DEFAULT_SPENDING_LIMIT } from '../../writes/spending';

type ToolCost = { action?: string; chargedPer?: string; emails: boolean };

function priced(action: string, cost: ToolCost): string {
	const email = cost.emails ? `emails the candidate${action.includes(' many ') ? 's' : ''}` : '';
	if (cost.chargedPer) {
		const charge = `costs credits: charged per ${cost.chargedPer} at the quoted price; as a tool, at most ${TOOL_DEFAULT_SPENDING_LIMIT} credits per execution unless its Spending Limit is set`;
		return `${action} (${email ? `${charge}; ${email}` : charge})`;
	}
	if (cost.emails) return `${action} (free, but ${email} each time)`;
	return `${action} (free: no credits, no email)`;
}

// The price cannot go in `action`: n8n-workflow's makeNodeName builds node names from it too.
export function toolDescriptions(properties: INodeProperties[]): INodeProperties[] {
	return [...toolCosts(properties)]
		.filter(([, cost]) => cost.action !== undefined)
		.map(([key, cost]) => {
			const [resource, operation] = key.split(':');
			return {
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: `${priced(cost.action as string, cost)} in Recruiting Analysis`,
				typeOptions: { rows: 2 },
				description:
					'What the AI agent reads about this tool: what it does, what it costs and whether it emails a candidate',
				displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
			};
		});
}

// An operation is charged where its panel shows the Spending Limit, and emails where it shows the email notice.
export function toolCosts(properties: INodeProperties[]): Map<string, ToolCost> {
	const shown = { spendingLimit: new Set<string>(), emailNotice: new Set<string>() };
	for (const { name, displayOptions } of properties) {
		if (name !== 'spendingLimit' && name !== 'emailNotice') continue;
		for (const resource of displayOptions?.show?.resource ?? [])
			for (const operation of displayOptions?.show?.operation ?? [])
				shown[name].add(`${String(resource)}:${String(operation)}`);
	}
	const costs = new Map<string, ToolCost>();
	for (const property of properties) {
		if (property.name !== 'operation') continue;
		const resource = String(property.displayOptions?.show?.resource?.[0]);
		for (const option of property.options as INodePropertyOptions[]) {
			const key = `${resource}:${String(option.value)}`;
			costs.set(key, {
				action: typeof option.action === 'string' ? option.action : undefined,
				// Each charge is one analysis or one interview, the resource it is sent from.
				chargedPer: shown.spendingLimit.has(key) ? resource : undefined,
				emails: shown.emailNotice.has(key),
			});
		}
	}
	return costs;
}

// In the node's own properties: n8n 2.41 builds the Tool it runs from them and ignores usableAsTool.replacements.
export function reviewSwitches(properties: INodeProperties[]): INodeProperties[] {
	const gated: Record<string, string[]> = {};
	for (const [key, cost] of toolCosts(properties)) {
		if (!cost.chargedPer && !cost.emails) continue;
		const [resource, operation] = key.split(':');
		(gated[resource] ??= []).push(operation);
	}
	return Object.entries(gated).map(([resource, operations]) => ({
		displayName: "Run Without a Person's Review",
		name: 'runWithoutReview',
		type: 'boolean',
		default: false,
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: operations } },
		description:
			"Whether the agent may run this operation without n8n's Human review. Off: it runs only when a person approved the call (connect this tool to a Human review node, and that node to the agent).",
	}));
}

// n8n-core requests-response.ts: an approved call comes from the review node, which has this tool and no chat model.
export function cameThroughReview(ctx: IExecuteFunctions): boolean {
	let asking: string | undefined;
	try {
		asking = ctx.getInputSourceData(0)?.previousNode;
	} catch {
		return false;
	}
	if (!asking) return false;
	const parents = (connectionType: NodeConnectionType) =>
		ctx.getParentNodes(asking, { connectionType, depth: 1 }).map((n) => n.name);
	return (
		parents(NodeConnectionTypes.AiTool).includes(ctx.getNode().name) &&
		parents(NodeConnectionTypes.AiLanguageModel).length === 0
	);
}

// Only a literal switch opts out: an expression could be filled by the model through $fromAI.
export function refuseUnreviewedToolCall(ctx: IExecuteFunctions, costs: Map<string, ToolCost>) {
	const node = ctx.getNode();
	if (!node.type.endsWith('Tool')) return;
	const resource = String(ctx.getNodeParameter('resource', 0));
	const operation = String(ctx.getNodeParameter('operation', 0));
	const cost = costs.get(`${resource}:${operation}`);
	if (!cost || (!cost.chargedPer && !cost.emails)) return;
	const optOut = node.parameters.runWithoutReview;
	if (optOut === true || cameThroughReview(ctx)) return;
	const charges = cost.chargedPer ? `charges credits per ${cost.chargedPer}` : '';
	const what = [charges, cost.emails ? 'emails the candidate' : ''].filter(Boolean).join(' and ');
	const refused =
		typeof optOut === 'string'
			? ` "Run Without a Person's Review" must be switched on as a fixed value, not an expression.`
			: '';
	throw new NodeOperationError(
		node,
		`This tool ${what}: it runs only after a person's review.${refused} Nothing was sent to the Recruiting Analysis API.`,
		{
			description: `Wire n8n's Human review: in the AI Agent's Tools, add a review tool (for example "Chat" or "Slack" under Human in the Loop), connect this tool to the review node and the review node to the agent, so that each call waits for a person's approval. Or, to let the agent run it alone, switch on "Run Without a Person's Review" in this tool (the worst case is then every call the model makes: see "Agents and money" in the README).`,
		},
	);
}

// A free read, so that a Tool nobody configured can only read; one resource property, or n8n lists each action twice.
export const DEFAULT_RESOURCE = 'report';
