import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath, idempotencyKeyFor } from '../../transport';
import { api } from '../shared/api';
import { concurrencyOption, idempotencyKeyOption, interviewIdField, optionsCollection } from '../shared/descriptions';
import { addNotice } from '../shared/hints';
import { optionsParam } from '../shared/params';
import { checkUserKey, idParam } from '../shared/validate';

const properties: INodeProperties[] = [
	interviewIdField('ID of the pending interview whose invitation email is sent again (starts with int_)'),
	optionsCollection([concurrencyOption, idempotencyKeyOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['interview'], operation: ['resend'] } }, properties);

/**
 * Queue another invitation email for a pending interview (no new interview, no charge). The key is derived
 * per execution and item, so a retry after a timeout reuses it and the provider is not asked twice.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	const userKey = checkUserKey(this, optionsParam(this, itemIndex), itemIndex);
	const response = await api(this, {
		method: 'POST',
		path: apiPath('/api/v1/interviews/{}/resend', interviewId),
		idempotencyKey: idempotencyKeyFor.call(this, itemIndex, 'interview.resend', userKey),
		itemIndex,
	});
	addNotice(this, 'resendQueued');
	return response;
}
