// Guard rails are the builder's: through $fromAI a model could set its limit, or charge again per key it invents.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

// n8n's own pattern (n8n-workflow from-ai-parse-utils): case-insensitive, spaces allowed.
const FROM_AI_CALL = /\$fromai\s*\(/i;

const GUARD_RAILS = [
	{ inOptions: false, name: 'spendingLimit', label: 'Spending Limit (Credits)' },
	{ inOptions: true, name: 'attemptLabel', label: 'New Attempt Label' },
	{ inOptions: true, name: 'idempotencyKey', label: 'Idempotency Key' },
];

export function modelChosenGuardRails(parameters: IDataObject): string[] {
	const options = (parameters.options ?? {}) as IDataObject;
	return GUARD_RAILS.filter(({ inOptions, name }) => {
		const value = (inOptions ? options : parameters)[name];
		return typeof value === 'string' && FROM_AI_CALL.test(value);
	}).map(({ label }) => label);
}

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
