import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, api } from '../../transport';
import { interviewInputSchema, validateInput } from '../../validation';
import { noticesForInterview } from '../../engine/notices';
import type { Run } from '../../engine/run';
import {
	INVITATION_STEP_EXAMPLE,
	invitationIdentity,
	invitationStep,
	readWriteChoice,
	writeIdempotencyKey,
} from '../../writes/identity';
import { explainExistingInvitation } from '../../writes/recover';
import { readQuoteChoice, sendChargedWrite } from '../common/chargedWrite';
import { candidateNameFor, withCandidateName } from '../common/candidateName';
import { stringParam } from '../common/params';

export interface InvitationInput extends IDataObject {
	reportId: string;
	candidateEmail: string;
	sendEmail: boolean;
}

/** Batches support email delivery only. */
export function readInvitationInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
	emailOnly = false,
): InvitationInput {
	const delivery = emailOnly ? 'email' : ctx.getNodeParameter('delivery', itemIndex, 'email');
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

/** Invite's fields, which Reinterview reads after the previous interview's ID. */
export async function checkInvitation(this: IExecuteFunctions, itemIndex: number) {
	return {
		input: readInvitationInput(this, itemIndex),
		choice: readQuoteChoice(this, itemIndex),
		write: readWriteChoice(this, itemIndex, [INVITATION_STEP_EXAMPLE]),
	};
}

/** The key is the invitation, not its quote: a repeat quotes anew, is refused as reused, and reads it back. */
export async function createInvitation(
	this: IExecuteFunctions,
	itemIndex: number,
	checked: Awaited<ReturnType<typeof checkInvitation>> & { previousInterviewId?: string },
	run: Run,
): Promise<IDataObject> {
	const { input, choice, write, previousInterviewId } = checked;
	const target = { reportId: input.reportId, previousInterviewId };
	const idempotencyKey = writeIdempotencyKey(
		write,
		previousInterviewId ? 'interview.reinterview' : 'interview.invite',
		invitationIdentity(input, previousInterviewId),
		write.userKey ? invitationStep(input, previousInterviewId) : undefined,
	);
	const { result: response } = await sendChargedWrite(this, run, itemIndex, {
		what: previousInterviewId ? 'reinterview' : 'invitation',
		existing: { kind: 'invitation', sendEmail: input.sendEmail, ...target },
		choice,
		quote: async () => await quoteInterview(this, itemIndex, input),
		send: async (fingerprint) =>
			await api(this, {
				method: 'POST',
				path: previousInterviewId
					? apiPath('/api/v1/interviews/{}/reinterview', previousInterviewId)
					: '/api/v1/interviews',
				body: { ...input, quoteFingerprint: fingerprint },
				idempotencyKey,
				itemIndex,
			}),
		explain: async (error) => await explainExistingInvitation(this, itemIndex, target, error),
	});
	const name = await candidateNameFor(this, run, itemIndex, input.reportId);
	const output =
		response.recovered === true
			? { reportId: input.reportId, ...response }
			: shapeInvitation(run, response, input.sendEmail);
	noticesForInterview(run, output);
	const named = withCandidateName(output, name);
	return previousInterviewId ? { previousInterviewId, ...named } : named;
}

/** The token is a bearer credential: output only for private-link delivery, removed for email even if sent. */
function shapeInvitation(run: Run, response: IDataObject, sendEmail: boolean): IDataObject {
	const { invitationToken, ...rest } = response;
	const output: IDataObject = { ...rest, delivery: sendEmail ? 'email' : 'privateLink' };
	if (!sendEmail && typeof invitationToken === 'string' && invitationToken !== '') {
		output.invitationToken = invitationToken;
		output.invitationPath = `/interview/${encodeURIComponent(invitationToken)}`;
		run.addNotice('invitationToken');
	}
	return output;
}
