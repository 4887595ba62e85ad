import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { idempotencyKeyFor } from '../../transport';
import { interviewInputSchema, validateInput } from '../../validation';
import type { QuoteChoice } from './analysis';
import { api } from './api';
import { onApiCondition } from './errors';
import { addNotice, noticesForInterview } from './hints';
import { stringParam } from './params';

export interface InvitationInput extends IDataObject {
	reportId: string;
	candidateEmail: string;
	sendEmail: boolean;
}

/** Report, candidate email and delivery choice of an item, validated (email format, id length). */
export function readInvitationInput(ctx: IExecuteFunctions, itemIndex: number): InvitationInput {
	const delivery = ctx.getNodeParameter('delivery', itemIndex, 'email') as string;
	const value = {
		reportId: stringParam(ctx, 'reportId', itemIndex),
		candidateEmail: stringParam(ctx, 'candidateEmail', itemIndex),
		sendEmail: delivery !== 'privateLink',
	};
	return validateInput.call(ctx, interviewInputSchema, value, itemIndex) as InvitationInput;
}

export async function quoteInterview(ctx: IExecuteFunctions, itemIndex: number, input: InvitationInput): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: '/api/v1/interview-quotes',
		body: input,
		itemIndex,
	});
}

/**
 * POST an invitation (invite, or reinterview at `path`). With automatic quoting: quote the same report, address
 * and delivery choice, then invite; on QUOTE_STALE quote once more and invite under a new key.
 */
export async function createInvitation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	path: string,
	input: InvitationInput,
	choice: QuoteChoice,
	operationKey: string,
	userKey: string | undefined,
): Promise<IDataObject> {
	const post = async (fingerprint: string, attempt?: string) =>
		await api(ctx, {
			method: 'POST',
			path,
			body: { ...input, quoteFingerprint: fingerprint },
			idempotencyKey: idempotencyKeyFor.call(ctx, itemIndex, operationKey, userKey, attempt),
			itemIndex,
		});
	let response: IDataObject;
	if (!choice.quoteAutomatically) {
		response = await post(choice.quoteFingerprint as string);
	} else {
		let quote = await quoteInterview(ctx, itemIndex, input);
		response = await onApiCondition(
			'QUOTE_STALE',
			async () => await post(String(quote.fingerprint)),
			async () => {
				quote = await quoteInterview(ctx, itemIndex, input);
				return await post(String(quote.fingerprint), 'requote');
			},
		);
	}
	return shapeInvitation(ctx, response, input.sendEmail);
}

/**
 * The invitation token is a bearer credential: output only when private-link delivery was chosen, together
 * with the link path the customer delivers. With email delivery it is removed even if the API sent one.
 */
export function shapeInvitation(ctx: IExecuteFunctions, response: IDataObject, sendEmail: boolean): IDataObject {
	const { invitationToken, ...rest } = response;
	const output: IDataObject = { ...rest, delivery: sendEmail ? 'email' : 'privateLink' };
	if (!sendEmail && typeof invitationToken === 'string' && invitationToken !== '') {
		output.invitationToken = invitationToken;
		output.invitationPath = `/interview/${encodeURIComponent(invitationToken)}`;
		addNotice(ctx, 'invitationToken');
	}
	noticesForInterview(ctx, output);
	if (sendEmail) addNotice(ctx, 'emailSent');
	return output;
}
