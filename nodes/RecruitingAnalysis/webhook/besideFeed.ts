// n8n saves a workflow's static data whole with no compare-and-set, so a webhook trigger and a Feed Trigger would
// overwrite each other's state: the webhook marks itself and the Feed Trigger refuses to poll beside it.
import type { IDataObject, INode } from 'n8n-workflow';

export const WEBHOOK_TRIGGERS_KEY = 'recruitingAnalysisWebhookTriggers';

function marks(global: IDataObject): IDataObject | undefined {
	const value = global[WEBHOOK_TRIGGERS_KEY];
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;
}

export function markWebhookTrigger(global: IDataObject, node: INode): void {
	const current = marks(global);
	if (current?.[node.name] === true) return;
	global[WEBHOOK_TRIGGERS_KEY] = { ...(current ?? {}), [node.name]: true };
}

export function unmarkWebhookTrigger(global: IDataObject, node: INode): void {
	const current = marks(global);
	if (!current || !(node.name in current)) return;
	const rest = { ...current };
	delete rest[node.name];
	if (Object.keys(rest).length === 0) delete global[WEBHOOK_TRIGGERS_KEY];
	else global[WEBHOOK_TRIGGERS_KEY] = rest;
}

export function webhookTriggersBeside(global: IDataObject): string[] {
	const current = marks(global);
	return current ? Object.keys(current).filter((name) => current[name] === true) : [];
}

export function besideWebhookTriggerProblem(names: readonly string[]) {
	return {
		message: `This workflow also holds the Recruiting Analysis Trigger "${names.join('", "')}"; the Feed Trigger refuses to run in the same workflow`,
		description:
			"n8n saves a workflow's static data whole, without compare-and-set: every webhook request writes back the feed position it loaded, and every poll writes back the remembered event ids as they were at activation, so each trigger overwrites the other (events handed over twice, duplicates started again). Put the Feed Trigger and the webhook trigger in two workflows; both can call the same sub-workflow (Execute Workflow), and the PostgreSQL step of examples/webhook-each-event-once-postgres.json lets each event id through once across both.",
	};
}
