import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	candidateEmailField,
	concurrencyOption,
	deliveryField,
	optionsCollection,
	quoteFields,
	writeOptions,
	chargeNotice,
	emailNotice,
	spendingLimitField,
	interviewLocator,
	reportLocator,
} from '../common/descriptions';
import { createInvitation } from './invitation';
import * as invite from './invite.operation';
import { idParam } from '../common/checks';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	chargeNotice('interview'),
	emailNotice('the candidate', { delivery: ['email'] }),
	...interviewLocator(
		'ID of the previous interview attempt (starts with int_); it must not be in progress',
	),
	...reportLocator('ID of the report of the previous interview (starts with rpt_)'),
	candidateEmailField,
	deliveryField,
	...quoteFields('new attempt is created'),
	spendingLimitField,
	optionsCollection([concurrencyOption, ...writeOptions]),
];

/** Invite's fields, read after the previous interview's ID. */
export async function check(this: IExecuteFunctions, itemIndex: number) {
	const interviewId = idParam(this, 'interviewId', itemIndex, 'Interview ID');
	return { interviewId, ...(await invite.check.call(this, itemIndex)) };
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	checked: Awaited<ReturnType<typeof check>>,
	run: Run,
) {
	const { interviewId, input, choice, write } = checked;
	const output = await createInvitation(this, run, itemIndex, input, choice, write, interviewId);
	return { previousInterviewId: interviewId, ...output };
}
