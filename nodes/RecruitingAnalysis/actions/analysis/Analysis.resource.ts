import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../shared/types';
import * as analyzeMany from './analyzeMany.operation';
import * as analyzeResume from './analyzeResume.operation';
import * as getBatch from './getBatch.operation';
import * as getQuote from './getQuote.operation';
import * as getQuotes from './getQuotes.operation';
import * as start from './start.operation';
import * as startMany from './startMany.operation';

export const operations: Record<string, OperationModule> = {
	analyzeMany,
	analyzeResume,
	getBatch,
	getQuote,
	getQuotes,
	start,
	startMany,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['analysis'] } },
		// Alphabetical (n8n's lint): Analyze Many and Analyze Resume, the operations most users want, sort first.
		options: [
			{
				name: 'Analyze Many',
				value: 'analyzeMany',
				description:
					'Upload and analyze the resumes of all input items through upload and analysis batches of 20, and wait for the results',
				action: 'Analyze many resumes',
			},
			{
				name: 'Analyze Resume',
				value: 'analyzeResume',
				description: 'Upload a resume and start its analysis in one step (prepare, upload, quote, start)',
				action: 'Analyze a resume',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description: 'Get the state of an analysis batch',
				action: 'Get an analysis batch',
			},
			{
				name: 'Get Quote',
				value: 'getQuote',
				description: 'Get the price and fingerprint for analyzing an uploaded resume',
				action: 'Get an analysis quote',
			},
			{
				name: 'Get Quotes',
				value: 'getQuotes',
				description: 'Quote the analyses of all input items through batch quotes of 20',
				action: 'Get analysis quotes',
			},
			{
				name: 'Start',
				value: 'start',
				description: 'Start the analysis of an uploaded resume',
				action: 'Start an analysis',
			},
			{
				name: 'Start Many',
				value: 'startMany',
				description: 'Start the analyses of all input items through analysis batches of 20',
				action: 'Start many analyses',
			},
		],
		default: 'analyzeResume',
	},
	...analyzeResume.description,
	...analyzeMany.description,
	...getQuote.description,
	...start.description,
	...getQuotes.description,
	...startMany.description,
	...getBatch.description,
];
