/**
 * The action node as an AI agent's tool ("Recruiting Analysis Tool", the variant n8n's node loader makes of a
 * `usableAsTool` node). Two things differ from the plain node:
 * - What the model reads. n8n sends the model the tool's `toolDescription` (n8n-workflow's
 *   getToolDescriptionForNode): per operation, its short action with what it costs and whether it emails a person,
 *   or that it is free (toolDescriptions).
 * - Who decides. An operation that charges credits or emails a candidate runs only when the call reached the node
 *   through n8n's Human review (a review node between the tool and the agent, whose approval makes the agent run
 *   the tool), or when the builder turned on "Run Without a Person's Review" (off by default).
 *
 * How a reviewed call is recognised (n8n 2.41's engine, n8n-core requests-response.ts): the AI Agent runs a tool by
 * asking the engine to execute the tool node; the node that asked is the run's source (`previousNode`). A direct
 * call comes from the agent; an approved call comes from the review node. Both have this node as an `ai_tool`
 * input; only the agent has a chat model (`ai_languageModel`) input. So a call is reviewed when the node that asked
 * for it takes this node as a tool and takes no chat model. Calls through other paths (older agents, the MCP Server
 * Trigger) run the tool inside the consuming node, whose own source never lists this node as a tool: never reviewed.
 */
import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { TOOL_DEFAULT_SPENDING_LIMIT } from '../../writes/spending';

/** What one operation costs, as the model is told. */
export interface ToolCost {
	/** What one run is charged per ("analysis", "interview"), when the operation spends credits. */
	chargedPer?: string;
	/** Whether the operation can email a candidate. */
	emails: boolean;
}

/**
 * An operation's `action` with what it costs, in the words the model reads: n8n sends "<action> in Recruiting
 * Analysis" as a tool's description. Charged: "costs credits: charged per <unit> at the quoted price", and the
 * Spending Limit a tool keeps when it sets none (writes/spending.ts TOOL_DEFAULT_SPENDING_LIMIT); emails: "emails
 * the candidate"; otherwise "free: no credits, no email". Only the Tool variant's description carries it
 * (toolDescriptions): node names, the canvas subtitle and the nodes panel use the short action.
 */
export function priced(action: string, cost: ToolCost): string {
	const email = cost.emails ? `emails the candidate${action.includes(' many ') ? 's' : ''}` : '';
	if (cost.chargedPer) {
		const charge = `costs credits: charged per ${cost.chargedPer} at the quoted price; as a tool, at most ${TOOL_DEFAULT_SPENDING_LIMIT} credits per execution unless its Spending Limit is set`;
		return `${action} (${email ? `${charge}; ${email}` : charge})`;
	}
	if (cost.emails) return `${action} (free, but ${email} each time)`;
	return `${action} (free: no credits, no email)`;
}

/** The node's name, which n8n appends to a tool's automatic description ("<action> in Recruiting Analysis"). */
const NODE_NAME = 'Recruiting Analysis';

/**
 * The Tool variant's description for the model, one `toolDescription` per operation (shown only in the Tool, `@tool`),
 * whose default is the operation's action with what it costs: "Invite a candidate (costs credits: ...; emails the
 * candidate) in Recruiting Analysis". n8n takes a node's name, the nodes panel's entries and a tool's automatic
 * description from the same `action` (n8n-workflow's makeNodeName and makeDescription), so the price cannot live
 * there without reaching node names; a `toolDescription` property replaces n8n's "Tool Description" pair (the cli's
 * convertNodeToAiTool adds it only when the node has none) and n8n sends its value to the model
 * (getToolDescriptionForNode). Defaults follow the operation: the editor recomputes them when it changes; a
 * description the builder edited is kept.
 */
export function toolDescriptions(properties: INodeProperties[]): INodeProperties[] {
	const costs = toolCosts(properties);
	return properties.flatMap((property) => {
		if (property.name !== 'operation' || !isOptionsList(property.options)) return [];
		const resource = String(property.displayOptions?.show?.resource?.[0]);
		return property.options.flatMap((option): INodeProperties[] => {
			const cost = costs.get(`${resource}:${String(option.value)}`);
			if (typeof option.action !== 'string' || !cost) return [];
			return [
				{
					displayName: 'Description',
					name: 'toolDescription',
					type: 'string',
					default: `${priced(option.action, cost)} in ${NODE_NAME}`,
					typeOptions: { rows: 2 },
					description:
						'What the AI agent reads about this tool: what it does, what it costs and whether it emails a candidate',
					displayOptions: {
						show: { '@tool': [true], resource: [resource], operation: [String(option.value)] },
					},
				},
			];
		});
	});
}

/** The operations that can email a candidate (the spec: Invite, Invite Many and Reinterview by email; Resend). */
const EMAILING = new Set([
	'interview:invite',
	'interview:inviteMany',
	'interview:reinterview',
	'interview:resend',
]);

/** Per resource, what a charged run of it is charged per. */
const CHARGE_UNIT: Record<string, string> = { analysis: 'analysis', interview: 'interview' };

/** The parameter of the explicit opt-out, shown only in the Tool variant. */
export const RUN_WITHOUT_REVIEW = 'runWithoutReview';

function isOptionsList(options: INodeProperties['options']): options is INodePropertyOptions[] {
	return Array.isArray(options) && options.every((o) => 'value' in o);
}

/**
 * "resource:operation" keys of the operations that spend credits: those offering a Spending Limit (the Spending
 * Limit is offered exactly where a write is charged), read from the operations' own descriptions.
 */
export function chargedOperations(properties: INodeProperties[]): Set<string> {
	const keys = new Set<string>();
	for (const property of properties) {
		if (property.name !== 'spendingLimit') continue;
		for (const resource of property.displayOptions?.show?.resource ?? []) {
			for (const operation of property.displayOptions?.show?.operation ?? []) {
				keys.add(`${String(resource)}:${String(operation)}`);
			}
		}
	}
	return keys;
}

/** Every operation's cost, by "resource:operation". */
export function toolCosts(properties: INodeProperties[]): Map<string, ToolCost> {
	const charged = chargedOperations(properties);
	const costs = new Map<string, ToolCost>();
	for (const property of properties) {
		if (property.name !== 'operation' || !isOptionsList(property.options)) continue;
		const resource = String(property.displayOptions?.show?.resource?.[0]);
		for (const option of property.options) {
			const key = `${resource}:${String(option.value)}`;
			costs.set(key, {
				chargedPer: charged.has(key) ? (CHARGE_UNIT[resource] ?? 'run') : undefined,
				emails: EMAILING.has(key),
			});
		}
	}
	return costs;
}

/**
 * "Run Without a Person's Review", one switch per resource whose operations charge or email, shown only on those
 * operations and only in the Tool variant (n8n's `@tool` display condition: the node type's name ends in "Tool").
 * It lives in the node's own properties because n8n 2.41 builds the Tool variant it executes from them (the cli's
 * node-types getByNameAndVersion ignores `usableAsTool.replacements`, which only reach the editor's listing).
 */
export function reviewSwitches(properties: INodeProperties[]): INodeProperties[] {
	const gated: Record<string, string[]> = {};
	for (const [key, cost] of toolCosts(properties)) {
		if (!cost.chargedPer && !cost.emails) continue;
		const [resource, operation] = key.split(':');
		(gated[resource] ??= []).push(operation);
	}
	return Object.entries(gated).map(([resource, operations]) => ({
		displayName: "Run Without a Person's Review",
		name: RUN_WITHOUT_REVIEW,
		type: 'boolean',
		default: false,
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: operations } },
		description:
			"Whether the agent may run this operation without n8n's Human review. Off: it runs only when a person approved the call (connect this tool to a Human review node, and that node to the agent).",
	}));
}

/** Whether the node runs as an agent's tool (n8n names the Tool variant's type "<node>Tool"). */
export function isToolNode(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/** Whether this run was asked for by a node that takes this node as a tool and takes no chat model: a review node. */
export function cameThroughReview(ctx: IExecuteFunctions): boolean {
	let asking: string | undefined;
	try {
		asking = ctx.getInputSourceData(0)?.previousNode;
	} catch {
		return false;
	}
	if (!asking) return false;
	const self = ctx.getNode().name;
	const tools = ctx.getParentNodes(asking, {
		connectionType: NodeConnectionTypes.AiTool,
		depth: 1,
	});
	if (!tools.some((n) => n.name === self)) return false;
	const models = ctx.getParentNodes(asking, {
		connectionType: NodeConnectionTypes.AiLanguageModel,
		depth: 1,
	});
	return models.length === 0;
}

/**
 * Refuses, before anything is read or sent, a Tool-mode run of an operation that charges or emails when no person
 * reviewed the call and the builder did not turn on "Run Without a Person's Review" (a literal switch: an
 * expression, which the model could fill with $fromAI, does not count).
 */
export function refuseUnreviewedToolCall(
	ctx: IExecuteFunctions,
	costs: Map<string, ToolCost>,
): void {
	if (!isToolNode(ctx)) return;
	const node = ctx.getNode();
	const resource = String(ctx.getNodeParameter('resource', 0));
	const operation = String(ctx.getNodeParameter('operation', 0));
	const cost = costs.get(`${resource}:${operation}`);
	if (!cost || (!cost.chargedPer && !cost.emails)) return;
	const optOut = node.parameters[RUN_WITHOUT_REVIEW];
	if (optOut === true) return;
	if (cameThroughReview(ctx)) return;
	const what = [
		cost.chargedPer ? `charges credits per ${cost.chargedPer}` : '',
		cost.emails ? 'emails the candidate' : '',
	]
		.filter(Boolean)
		.join(' and ');
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

/**
 * The resource every fresh node starts on: Report, whose default operation is Get, a free read, so that an agent
 * given a Tool nobody configured can only read. One `resource` property for the node and its Tool variant: n8n's
 * nodes panel lists every operation once per `resource` property it finds (the editor's resourceCategories), so a
 * second selector with another default would list each action twice. A plain node is always added through one
 * of its actions, which sets its resource and operation, so the default only decides what a fresh Tool does.
 */
export const DEFAULT_RESOURCE = 'report';
