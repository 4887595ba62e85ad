import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../shared/types';
import * as cancel from './cancel.operation';
import * as getBatch from './getBatch.operation';
import * as prepare from './prepare.operation';
import * as refreshUrl from './refreshUrl.operation';
import * as uploadMany from './uploadMany.operation';
import * as uploadResume from './uploadResume.operation';

export const operations: Record<string, OperationModule> = {
	cancel,
	getBatch,
	prepare,
	refreshUrl,
	uploadMany,
	uploadResume,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['upload'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Remove a prepared upload that was not yet analyzed',
				action: 'Cancel an upload',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description: 'Get the state of an upload batch',
				action: 'Get an upload batch',
			},
			{
				name: 'Prepare Only',
				value: 'prepare',
				description: 'Create the report and return a signed upload URL, without sending the file',
				action: 'Prepare an upload',
			},
			{
				name: 'Refresh URL',
				value: 'refreshUrl',
				description: 'Get a fresh signed upload URL for a prepared upload',
				action: 'Refresh an upload URL',
			},
			{
				name: 'Upload Many',
				value: 'uploadMany',
				description: 'Upload the resumes of all input items through upload batches of 20',
				action: 'Upload many resumes',
			},
			{
				name: 'Upload Resume',
				value: 'uploadResume',
				description: 'Prepare an upload and send the resume file (no analysis is started)',
				action: 'Upload a resume',
			},
		],
		default: 'uploadResume',
	},
	...uploadResume.description,
	...prepare.description,
	...refreshUrl.description,
	...cancel.description,
	...uploadMany.description,
	...getBatch.description,
];
