import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common/descriptions';
import type { OperationModule } from '../../engine/run';
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
	operationSelector('upload', 'uploadResume', [
		{
			name: 'Cancel',
			value: 'cancel',
			description: 'Remove a prepared upload whose analysis was not started',
			action: 'Cancel an upload',
		},
		{
			name: 'Get Batch',
			value: 'getBatch',
			description: 'Check the progress of an Upload Many batch',
			action: 'Get an upload batch',
		},
		{
			name: 'Prepare Only',
			value: 'prepare',
			description: "Create a report and get an upload address for another system's file",
			action: 'Prepare an upload',
		},
		{
			name: 'Refresh URL',
			value: 'refreshUrl',
			description: 'Get a new upload address when the old one expired',
			action: 'Refresh an upload URL',
		},
		{
			name: 'Upload Many',
			value: 'uploadMany',
			description: 'Upload many resumes without analyzing them yet',
			action: 'Upload many resumes',
		},
		{
			name: 'Upload Resume',
			value: 'uploadResume',
			description: 'Upload one resume without analyzing it yet',
			action: 'Upload a resume',
		},
	]),
	// Each operation's own fields, shown only for it, so their order here changes nothing in the panel.
	...Object.values(operations).flatMap((operation) => operation.description),
];
