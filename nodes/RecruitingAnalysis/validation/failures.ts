import { NodeOperationError } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod';

import { FIELD_LABELS } from './rules';

export type ValidationContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions | IWebhookFunctions;

export function formatPath(path: Array<string | number>): string {
	let out = '';
	for (const segment of path) {
		if (typeof segment === 'number') out += `[${segment}]`;
		else out += out ? `.${segment}` : segment;
	}
	return out;
}

export function labelForPath(path: Array<string | number>, fieldLabel?: string): string {
	const named = path.filter((s): s is string => typeof s === 'string');
	const last = named[named.length - 1];
	let label = last !== undefined ? (FIELD_LABELS[last] ?? last) : (fieldLabel ?? 'Value');
	if (last === undefined && fieldLabel) label = fieldLabel;
	const firstIndex = path.find((s): s is number => typeof s === 'number');
	if (firstIndex !== undefined) label = `${label} (entry ${firstIndex + 1})`;
	return label;
}

export interface ValidationFailure {
	label: string;
	rule: string;
	path: string;
}

export function firstFailure<T>(
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	fieldLabel?: string,
): ValidationFailure | undefined {
	const result = schema.safeParse(value);
	if (result.success) return undefined;
	const issue = result.error.issues[0];
	return {
		label: labelForPath(issue.path, fieldLabel),
		rule: issue.message,
		path: formatPath(issue.path),
	};
}

export function validateInput<T>(
	this: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	return check(this, schema, value, itemIndex, fieldLabel);
}

export function check<T>(
	context: ValidationContext,
	schema: ZodType<T, ZodTypeDef, unknown>,
	value: unknown,
	itemIndex: number,
	fieldLabel?: string,
): T {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const issues = result.error.issues;
	const first = issues[0];
	const label = labelForPath(first.path, fieldLabel);
	const others = issues
		.slice(1, 5)
		.map((i) => `"${labelForPath(i.path, fieldLabel)}" ${i.message}`)
		.join('; ');
	const description =
		`Change "${label}" so that it ${describeRule(first.message)}, then run the node again. ` +
		'Nothing was sent to the Recruiting Analysis API.' +
		(others ? ` Other problems on this item: ${others}.` : '');
	throw new NodeOperationError(context.getNode(), `"${label}" ${first.message}`, {
		itemIndex,
		description,
	});
}

function describeRule(rule: string): string {
	// The rule is kept verbatim: rephrased, 'must end in' reads awkwardly.
	return `meets the rule: ${rule}`;
}
