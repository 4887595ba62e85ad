import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { interviewInputSchema, validateInput } from '../../validation';
import type { QuoteChoice } from '../analysis/quotes';
import { api } from '../../transport/api';
import { onApiCondition, outcomeOf } from '../../transport/conditions';
import { addNotice, noticesForInterview } from '../../floor/notices';
import {
	invitationIdentity,
	invitationStep,
	keyFor,
	type WriteChoice,
} from '../../writes/identity';
import { explainExistingInvitation, withRecovery } from '../../writes/recover';
import { chargedWrite } from '../../writes/spending';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import { stringParam } from '../common/params';

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

export async function quoteInterview(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: InvitationInput,
): Promise<IDataObject> {
	return await api(ctx, {
		method: 'POST',
		path: '/api/v1/interview-quotes',
		body: input,
		itemIndex,
	});
}

/**
 * POST an invitation (invite, or reinterview of `previousInterviewId`). The key is the report, the address and the
 * delivery choice (and the previous interview; + New Attempt Label), not the quote: an interview quote counts the
 * report's interviews, so a repeat after a committed invitation quotes a new fingerprint, and the same key with that
 * changed body is refused with IDEMPOTENCY_KEY_REUSED, which recover.ts answers with the invitation that exists.
 * With automatic quoting: quote the same report, address and delivery choice, then invite; on QUOTE_STALE quote once
 * more and, when the new price fits the Spending Limit, invite again under the same key: a refused write leaves no
 * receipt (the sandbox keeps receipts of successful writes only; the spec names no new key for a stale interview
 * quote, unlike an analysis start's).
 */
export async function createInvitation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: InvitationInput,
	choice: QuoteChoice,
	write: WriteChoice,
	previousInterviewId?: string,
): Promise<IDataObject> {
	const path = previousInterviewId
		? apiPath('/api/v1/interviews/{}/reinterview', previousInterviewId)
		: '/api/v1/interviews';
	const identity = invitationIdentity(input, previousInterviewId);
	const target = {
		kind: 'invitation' as const,
		reportId: input.reportId,
		sendEmail: input.sendEmail,
		previousInterviewId,
	};
	const post = async (fingerprint: string) =>
		await api(ctx, {
			method: 'POST',
			path,
			body: { ...input, quoteFingerprint: fingerprint },
			idempotencyKey: keyFor(
				write,
				previousInterviewId ? 'interview.reinterview' : 'interview.invite',
				identity,
				write.userKey ? invitationStep(input, previousInterviewId) : undefined,
			),
			itemIndex,
		});
	// The quote comes first: its price is checked against the Spending Limit before anything is charged (spending.ts).
	let quote = choice.quoteAutomatically ? await quoteInterview(ctx, itemIndex, input) : undefined;
	const response = await chargedWrite(
		ctx,
		itemIndex,
		quote,
		previousInterviewId ? 'reinterview' : 'invitation',
		async (reprice) =>
			await withExplanation(
				ctx,
				itemIndex,
				target,
				async () =>
					await withRecovery(ctx, itemIndex, target, async () => {
						if (!quote) return await post(choice.quoteFingerprint as string);
						return await onApiCondition(
							'QUOTE_STALE',
							async () => await post(String(quote?.fingerprint)),
							async () => {
								quote = await quoteInterview(ctx, itemIndex, input);
								// The new price must fit the Spending Limit before the invitation is sent again.
								reprice(quote);
								return await post(String(quote.fingerprint));
							},
						);
					}),
			),
	);
	// The candidate's name, read only when the input item does not say it (actions/common/candidateName.ts).
	const name = await candidateNameFor(ctx, itemIndex, input.reportId);
	if (response.recovered === true) {
		noticesForInterview(ctx, response);
		return withCandidateName({ reportId: input.reportId, ...response }, name);
	}
	const shaped = withCandidateName(shapeInvitation(ctx, response, input.sendEmail), name);
	return previousInterviewId ? { previousInterviewId, ...shaped } : shaped;
}

/**
 * The invitation token is a bearer credential: output only when private-link delivery was chosen, together
 * with the link path the customer delivers. With email delivery it is removed even if the API sent one.
 */
export function shapeInvitation(
	ctx: IExecuteFunctions,
	response: IDataObject,
	sendEmail: boolean,
): IDataObject {
	const { invitationToken, ...rest } = response;
	const output: IDataObject = { ...rest, delivery: sendEmail ? 'email' : 'privateLink' };
	if (!sendEmail && typeof invitationToken === 'string' && invitationToken !== '') {
		output.invitationToken = invitationToken;
		output.invitationPath = `/interview/${encodeURIComponent(invitationToken)}`;
		addNotice(ctx, 'invitationToken');
	}
	// The notice follows the output's own emailDelivery ("queued" right after an invitation).
	noticesForInterview(ctx, output);
	return output;
}

/** Runs an invitation; a refusal because the report already has an interview names that interview (recover.ts). */
async function withExplanation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: { reportId: string; previousInterviewId?: string },
	run: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const outcome = await outcomeOf(run);
	if (outcome.ok) return outcome.value;
	throw await explainExistingInvitation(ctx, itemIndex, target, outcome.error);
}
