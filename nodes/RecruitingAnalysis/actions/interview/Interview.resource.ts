import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/types';
import * as get from './get.operation';
import * as getBatch from './getBatch.operation';
import * as getMany from './getMany.operation';
import * as getQuote from './getQuote.operation';
import * as getQuotes from './getQuotes.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';
import * as invite from './invite.operation';
import * as inviteMany from './inviteMany.operation';
import * as reinterview from './reinterview.operation';
import * as resend from './resend.operation';

export const operations: Record<string, OperationModule> = {
	get,
	getBatch,
	getMany,
	getQuote,
	getQuotes,
	getResult,
	getStatus,
	invite,
	inviteMany,
	reinterview,
	resend,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['interview'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Use to read one interview attempt with its lifecycle, preparation, evaluation and email states. Needs the interview ID; scope interviews:read.',
				action: 'Get an interview',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description:
					'Use to check the progress of an invitation batch started by Invite Many. Needs the batch ID; scope interviews:write.',
				action: 'Get an interview batch',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'Use to find interview attempts, for example all attempts of one report or of one application. Needs nothing but optional filters; scope interviews:read.',
				action: 'Get many interviews',
			},
			{
				name: 'Get Quote',
				value: 'getQuote',
				description:
					"Use to see the credit price of inviting a candidate before sending the invitation. Needs the report ID of a completed analysis and the candidate's email; scope interviews:write.",
				action: 'Get an interview quote',
			},
			{
				name: 'Get Quotes',
				value: 'getQuotes',
				description:
					'Use to price the invitations of several candidates at once (batch quotes of 20). Needs a report ID and candidate email per input item; scope interviews:write.',
				action: 'Get interview quotes',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description:
					'Use to read the evaluation of a completed interview (decision, scores, strengths, concerns). Needs the interview ID; scope interviews:read.',
				action: 'Get an interview result',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description:
					'Use to check whether a candidate has started or completed an interview and whether its evaluation is ready. Needs the interview ID; scope interviews:read.',
				action: 'Get an interview status',
			},
			{
				name: 'Invite',
				value: 'invite',
				description:
					"Use to invite one candidate to an automated interview about an analyzed resume, by email or private link. Needs the report ID of a completed analysis and the candidate's email; scope interviews:write.",
				action: 'Invite a candidate',
			},
			{
				name: 'Invite Many',
				value: 'inviteMany',
				description:
					'Use to invite several candidates at once (interview batches of 20, by email). Needs a report ID and candidate email per input item; scope interviews:write.',
				action: 'Invite many candidates',
			},
			{
				name: 'Reinterview',
				value: 'reinterview',
				description:
					"Use to give a candidate a new interview attempt that replaces a previous one not in progress. Needs the previous interview ID, its report ID and the candidate's email; scope interviews:write.",
				action: 'Reinterview a candidate',
			},
			{
				name: 'Resend',
				value: 'resend',
				description:
					'Use when a candidate did not receive or lost the invitation email of a pending interview; sends it again at no charge. Needs the interview ID; scope interviews:write.',
				action: 'Resend an invitation',
			},
		],
		default: 'invite',
	},
	...getQuote.description,
	...invite.description,
	...resend.description,
	...reinterview.description,
	...getQuotes.description,
	...inviteMany.description,
	...getBatch.description,
	...get.description,
	...getMany.description,
	...getStatus.description,
	...getResult.description,
];
