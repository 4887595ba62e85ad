import { operationSelector } from '../common/descriptions';
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

export const operations = {
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

export const selector = operationSelector('interview', 'invite', [
	{
		name: 'Get',
		value: 'get',
		description: 'Read one interview with its progress and email state',
		action: 'Get an interview',
	},
	{
		name: 'Get Batch',
		value: 'getBatch',
		description: 'Check the progress of an Invite Many batch',
		action: 'Get an interview batch',
	},
	{
		name: 'Get Many',
		value: 'getMany',
		description: 'Find interviews, for example all of one report',
		action: 'Get many interviews',
	},
	{
		name: 'Get Quote',
		value: 'getQuote',
		description: 'See what inviting a candidate would cost',
		action: 'Get an interview quote',
	},
	{
		name: 'Get Quotes',
		value: 'getQuotes',
		description: 'See what inviting many candidates would cost',
		action: 'Get interview quotes',
	},
	{
		name: 'Get Result',
		value: 'getResult',
		description: 'Read the evaluation of a completed interview',
		action: 'Get an interview result',
	},
	{
		name: 'Get Status',
		value: 'getStatus',
		description: 'Check whether a candidate started or finished an interview',
		action: 'Get an interview status',
	},
	{
		name: 'Invite',
		value: 'invite',
		description: 'Invite a candidate to an automated interview, by email or private link',
		action: 'Invite a candidate',
	},
	{
		name: 'Invite Many',
		value: 'inviteMany',
		description: 'Invite many candidates at once, by email',
		action: 'Invite many candidates',
	},
	{
		name: 'Reinterview',
		value: 'reinterview',
		description: 'Invite a candidate again: a new interview, by email or private link',
		action: 'Reinterview a candidate',
	},
	{
		name: 'Resend',
		value: 'resend',
		description: "Email a pending interview's invitation again, at no charge",
		action: 'Resend an invitation',
	},
]);
