import { randomUUID } from 'node:crypto';

import {
	NodeApiError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { apiPath, api, hasApiCondition } from '../../transport';
import {
	concurrencyOption,
	emailNotice,
	optionsCollection,
	writeOptions,
	interviewLocator,
} from '../common/descriptions';
import { writeIdempotencyKey, readWriteChoice, USER_KEY_STEPS } from '../../writes/identity';
import { idParam } from '../common/checks';
import type { Run } from '../../engine/run';

export const description: INodeProperties[] = [
	emailNotice('the candidate'),
	...interviewLocator(
		'ID of the pending interview whose invitation email is sent again (starts with int_)',
	),
	optionsCollection([concurrencyOption, ...writeOptions]),
];

export async function check(this: IExecuteFunctions, itemIndex: number) {
	return {
		interviewId: idParam(this, 'interviewId', itemIndex, 'Interview ID'),
		write: readWriteChoice(this, itemIndex, [USER_KEY_STEPS['interview.resend']]),
	};
}

const FIRST_EXECUTION = 'resendFirstExecutionId';

/** The node's context is kept with the execution and its Retry, so only a later execution sends another email. */
function reminderOf(ctx: IExecuteFunctions): unknown[] {
	const context = ctx.getContext('node');
	if (typeof context[FIRST_EXECUTION] !== 'string' || context[FIRST_EXECUTION] === '') {
		const id = ctx.getExecutionId();
		context[FIRST_EXECUTION] = typeof id === 'string' && id !== '' ? id : randomUUID();
	}
	return [ctx.getInstanceId(), context[FIRST_EXECUTION], ctx.getNode().id];
}

async function notEligible(
	ctx: IExecuteFunctions,
	itemIndex: number,
	interviewId: string,
	error: NodeApiError,
): Promise<NodeApiError> {
	// Only the message depends on this read: a failed one still refuses, in general terms.
	const interview: IDataObject = await api(ctx, {
		method: 'GET',
		path: apiPath('/api/v1/interviews/{}', interviewId),
		itemIndex,
	}).catch(() => ({}));
	const lifecycle = typeof interview.lifecycle === 'string' ? interview.lifecycle : undefined;
	const privateLink = interview.emailDelivery === 'not_requested';
	const state = privateLink
		? 'is delivered by private link, not by email'
		: lifecycle
			? `is ${lifecycle}, not a pending invitation`
			: 'is not a pending invitation sent by email';
	const how = privateLink
		? `To email the candidate, run Interview > Reinterview on ${interviewId} with Delivery "Email" (a new attempt: it uses interview allowance).`
		: lifecycle === 'in_progress' || lifecycle === 'completed'
			? 'The candidate has already started the interview: no reminder is needed.'
			: `To invite the candidate again, run Interview > Reinterview on ${interviewId} (a new attempt: it uses interview allowance and a fresh quote).`;
	error.message = `Interview ${interviewId} ${state}: nothing was sent`;
	error.description = `Resend queues another email only for a pending invitation sent by email. No email was queued and nothing was charged. ${how}`;
	return error;
}

/** Fresh resend keys can duplicate an email (spec), so a retry of this reminder repeats the same key. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	{ interviewId, write }: Awaited<ReturnType<typeof check>>,
	run: Run,
) {
	const sent = await api(this, {
		method: 'POST',
		path: apiPath('/api/v1/interviews/{}/resend', interviewId),
		idempotencyKey: writeIdempotencyKey(write, 'interview.resend', [
			interviewId,
			'resend',
			reminderOf(this),
		]),
		itemIndex,
	}).catch(async (error: unknown) => {
		if (error instanceof NodeApiError && hasApiCondition(error, 'INTERVIEW_NOT_ELIGIBLE'))
			throw await notEligible(this, itemIndex, interviewId, error);
		throw error;
	});
	run.addNotice('resendQueued');
	return sent;
}
