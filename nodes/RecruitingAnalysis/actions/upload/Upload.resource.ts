import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/types';
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
				description:
					'Use to remove a prepared upload whose analysis was not started, freeing its preparation slot. Needs the report ID; scope analyses:write.',
				action: 'Cancel an upload',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description:
					'Use to check the progress of an upload batch started by Upload Many. Needs the batch ID; scope analyses:write.',
				action: 'Get an upload batch',
			},
			{
				name: 'Prepare Only',
				value: 'prepare',
				description:
					'Use when another system will send the file itself: creates the report and returns a signed upload URL. Needs the file name, exact size, type and a saved job or job text; scope analyses:write.',
				action: 'Prepare an upload',
			},
			{
				name: 'Refresh URL',
				value: 'refreshUrl',
				description:
					'Use when a signed upload URL expired (after 10 minutes) before the file was sent. Needs the report ID of the prepared upload; scope analyses:write.',
				action: 'Refresh an upload URL',
			},
			{
				name: 'Upload Many',
				value: 'uploadMany',
				description:
					"Use to upload several resumes without analyzing them yet (upload batches of 20). Needs each item's resume file (PDF or DOCX binary) and a saved job or job text; scope analyses:write.",
				action: 'Upload many resumes',
			},
			{
				name: 'Upload Resume',
				value: 'uploadResume',
				description:
					'Use to upload one resume without starting its analysis (start it later with Analysis > Start). Needs the resume file (PDF or DOCX binary) and a saved job or job text; scope analyses:write.',
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
