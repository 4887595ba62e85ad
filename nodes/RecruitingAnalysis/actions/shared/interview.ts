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
	if (!choice.quoteAutomatically) {
		return shapeInvitation(ctx, await post(choice.quoteFingerprint as string), input.sendEmail);
	}
	let quote = await quoteInterview(ctx, itemIndex, input);
	const response = await onApiCondition(
		'IDEMPOTENCY_KEY_REUSED',
		async () =>
			await onApiCondition(
				'QUOTE_STALE',
				async () => await post(String(quote.fingerprint)),
				async () => {
					quote = await quoteInterview(ctx, itemIndex, input);
					return await post(String(quote.fingerprint), 'requote');
				},
			),
		async (error) => await recoverCommittedInvitation(ctx, itemIndex, input, path, error),
	);
	return shapeInvitation(ctx, response, input.sendEmail);
}

/**
 * An earlier attempt under this same Idempotency-Key was committed but its answer was lost (a timeout, a
 * dropped connection, then n8n's Retry On Fail or a re-run with the same key). The fresh quote of the repeat
 * no longer matches the committed body, so the API refuses the replay (409 IDEMPOTENCY_KEY_REUSED). The
 * invitation exists: output the report's current interview instead of failing, so nothing is lost and
 * nothing is sent twice. The invitation token is returned only once by the API and cannot be recovered.
 */
async function recoverCommittedInvitation(
	ctx: IExecuteFunctions,
	itemIndex: number,
	input: InvitationInput,
	path: string,
	error: unknown,
): Promise<IDataObject> {
	const page = await api(ctx, {
		method: 'GET',
		path: '/api/v1/interviews',
		qs: { reportId: input.reportId, limit: 100 },
		itemIndex,
	});
	const items = (Array.isArray(page.items) ? page.items : []) as IDataObject[];
	const previousId = path.match(/^\/api\/v1\/interviews\/([^/]+)\/reinterview$/)?.[1];
	const current = items
		.filter((interview) => interview.lifecycle !== 'superseded' && interview.id !== decodeURIComponent(previousId ?? ''))
		.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)))[0];
	if (!current) throw error;
	return {
		interviewId: current.id,
		reportId: current.reportId,
		invitationToken: null,
		statusUrl: `/api/v1/interviews/${encodeURIComponent(String(current.id))}/status`,
		emailDelivery: current.emailDelivery,
		lifecycle: current.lifecycle,
		alreadyInvited: true,
		recoveredFrom: 'IDEMPOTENCY_KEY_REUSED',
	};
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
	// The notice follows the output's own emailDelivery ("queued" right after an invitation).
	noticesForInterview(ctx, output);
	return output;
}
