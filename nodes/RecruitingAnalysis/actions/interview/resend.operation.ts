import { updateDisplayOptions, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { api } from '../../transport/api';
import { concurrencyOption, optionsCollection, writeOptions } from '../common/descriptions';
import { interviewLocator } from '../common/locators';
import { addNotice } from '../../floor/notices';
import { keyFor, readWriteChoice, USER_KEY_STEPS } from '../../writes/identity';
import { idParam } from '../common/checks';

const properties: INodeProperties[] = [
	...interviewLocator(
		'ID of the pending interview whose invitation email is sent again (starts with int_)',
	),
	optionsCollection([concurrencyOption, ...writeOptions]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['interview'], operation: ['resend'] } },
	properties,
);

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		interviewId: idParam(this, 'interviewId', itemIndex, 'Interview ID'),
		write: readWriteChoice(this, itemIndex, [USER_KEY_STEPS['interview.resend']]),
	};
}

/**
 * Queue another invitation email for a pending interview (no new interview, no charge). The key is the interview
 * and the word "resend" (+ New Attempt Label): a retry, a re-run or a retried execution repeats the same resend and
 * the provider is not asked twice (the spec warns that repeated fresh resend keys can duplicate an email). Another
 * resend of the same interview is a deliberate choice: give a New Attempt Label (e.g. "reminder-2").
 */
export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const { interviewId, write } = await check.call(this, itemIndex);
	const response = await api(this, {
		method: 'POST',
		path: apiPath('/api/v1/interviews/{}/resend', interviewId),
		idempotencyKey: keyFor(write, 'interview.resend', [interviewId, 'resend']),
		itemIndex,
	});
	addNotice(this, 'resendQueued');
	return response;
}
