/**
 * Guard rails are the builder's, never the model's. As a tool of n8n's AI Agent, any parameter can be handed to the
 * model with `$fromAI(...)` (one click in the editor). For Spending Limit, New Attempt Label and Idempotency Key that
 * would let the model pick its own limit, or make every call a new write (each label or key it invents is another
 * charge or another email): the node refuses such a node before anything is sent, naming the fields.
 */
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

/** The options a model must not choose, by parameter name, with the name the editor shows. */
export const GUARD_RAIL_OPTIONS: Record<string, string> = {
	attemptLabel: 'New Attempt Label',
	idempotencyKey: 'Idempotency Key',
};

/** The top-level fields a model must not choose. */
export const GUARD_RAIL_FIELDS: Record<string, string> = {
	spendingLimit: 'Spending Limit (Credits)',
};

/** n8n's own pattern for a `$fromAI(` call (n8n-workflow from-ai-parse-utils: case-insensitive, spaces allowed). */
const FROM_AI_CALL = /\$fromai\s*\(/i;

/** The editor names of the guard-rail options whose saved value calls `$fromAI` (empty when none does). */
export function modelChosenGuardRails(parameters: IDataObject): string[] {
	const fromAi = (value: unknown) => typeof value === 'string' && FROM_AI_CALL.test(value);
	const fields = Object.entries(GUARD_RAIL_FIELDS)
		.filter(([name]) => fromAi(parameters[name]))
		.map(([, label]) => label);
	const options = parameters.options;
	if (typeof options !== 'object' || options === null || Array.isArray(options)) return fields;
	return [
		...fields,
		...Object.entries(GUARD_RAIL_OPTIONS)
			.filter(([name]) => fromAi((options as IDataObject)[name]))
			.map(([, label]) => label),
	];
}

/** Refuses the node, before any item is read or sent, when a guard-rail option is left to the model. */
export function refuseModelChosenGuardRails(ctx: IExecuteFunctions): void {
	const node = ctx.getNode();
	const fields = modelChosenGuardRails(node.parameters);
	if (fields.length === 0) return;
	const named = fields.map((f) => `"${f}"`).join(', ');
	throw new NodeOperationError(
		node,
		`${named} cannot come from the model ($fromAI): ${fields.length === 1 ? 'it is a guard rail' : 'they are guard rails'} the workflow's builder sets`,
		{
			description: `Give ${named} a fixed value (or an expression on the workflow's own data, without $fromAI), or remove ${fields.length === 1 ? 'it' : 'them'}, then run again. A limit the model picks is no limit, and each New Attempt Label or Idempotency Key it invents is a new write: another charge or another email. Nothing was sent to the Recruiting Analysis API.`,
		},
	);
}
