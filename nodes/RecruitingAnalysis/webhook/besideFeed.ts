/**
 * A webhook trigger and a Feed Trigger in one workflow overwrite each other's saved state, whatever either does: n8n
 * keeps one static-data object per workflow and saves it whole, with no compare-and-set
 * (`WorkflowStaticDataService.saveStaticDataById`). A webhook request loads it from the database and writes it back
 * with the feed position it loaded; the poller keeps the copy it loaded at activation and writes it back after each
 * poll that hands over events, with the remembered event ids of that moment. So the webhook trigger marks itself in
 * the workflow's global static data while it is active, and the Feed Trigger refuses to poll beside it
 * (docs/triggers.md, "One workflow, one Recruiting Analysis trigger").
 *
 * No node can list the other nodes of its workflow, hence the mark: the webhook trigger writes it when n8n checks its
 * webhook (every activation, n8n's start included; n8n 1.x does so before the pollers' first poll, n8n 2.x at the same
 * time, so there the first poll may not see it) and removes it when n8n deletes the webhook (deactivation, and the
 * old version of an active workflow being saved).
 */
import type { IDataObject, INode } from 'n8n-workflow';

/** Global static-data key: the active webhook triggers of the workflow, by node name (what n8n keys nodes by). */
export const WEBHOOK_TRIGGERS_KEY = 'recruitingAnalysisWebhookTriggers';

function marks(global: IDataObject): IDataObject | undefined {
	const value = global[WEBHOOK_TRIGGERS_KEY];
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;
}

/** Records that this webhook trigger is active in the workflow (idempotent: writes only what changed). */
export function markWebhookTrigger(global: IDataObject, node: INode): void {
	const current = marks(global);
	if (current?.[node.name] === true) return;
	global[WEBHOOK_TRIGGERS_KEY] = { ...(current ?? {}), [node.name]: true };
}

/** Removes this webhook trigger's mark (its webhook was deleted). */
export function unmarkWebhookTrigger(global: IDataObject, node: INode): void {
	const current = marks(global);
	if (!current || !(node.name in current)) return;
	const rest = { ...current };
	delete rest[node.name];
	if (Object.keys(rest).length === 0) delete global[WEBHOOK_TRIGGERS_KEY];
	else global[WEBHOOK_TRIGGERS_KEY] = rest;
}

/** The names of the webhook triggers marked active in the workflow. */
export function webhookTriggersBeside(global: IDataObject): string[] {
	const current = marks(global);
	return current ? Object.keys(current).filter((name) => current[name] === true) : [];
}

/** Why the Feed Trigger refuses to poll beside a webhook trigger, naming it and saying what to do. */
export function besideWebhookTriggerProblem(names: readonly string[]): {
	message: string;
	description: string;
} {
	return {
		message: `This workflow also holds the Recruiting Analysis Trigger "${names.join('", "')}"; the Feed Trigger refuses to run in the same workflow`,
		description:
			"n8n saves a workflow's static data whole, without compare-and-set: every webhook request writes back the feed position it loaded, and every poll writes back the remembered event ids as they were at activation, so each trigger overwrites the other (events handed over twice, duplicates started again). Put the Feed Trigger and the webhook trigger in two workflows; both can call the same sub-workflow (Execute Workflow), and the PostgreSQL step of examples/webhook-each-event-once-postgres.json lets each event id through once across both.",
	};
}
