import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../shared/types';
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
				description: 'Get an interview attempt',
				action: 'Get an interview',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description: 'Get the state of an interview batch',
				action: 'Get an interview batch',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List interview attempts',
				action: 'Get many interviews',
			},
			{
				name: 'Get Quote',
				value: 'getQuote',
				description: 'Get the price and fingerprint for inviting a candidate',
				action: 'Get an interview quote',
			},
			{
				name: 'Get Quotes',
				value: 'getQuotes',
				description: 'Quote the interviews of all input items through batch quotes of 20',
				action: 'Get interview quotes',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description: 'Get the evaluation of an interview attempt',
				action: 'Get an interview result',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the current state of an interview attempt',
				action: 'Get an interview status',
			},
			{
				name: 'Invite',
				value: 'invite',
				description: 'Invite a candidate to an interview by email or private link',
				action: 'Invite a candidate',
			},
			{
				name: 'Invite Many',
				value: 'inviteMany',
				description: 'Invite the candidates of all input items through interview batches of 20',
				action: 'Invite many candidates',
			},
			{
				name: 'Reinterview',
				value: 'reinterview',
				description: 'Create a new interview attempt replacing a previous one',
				action: 'Reinterview a candidate',
			},
			{
				name: 'Resend',
				value: 'resend',
				description: 'Email a pending invitation again',
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
