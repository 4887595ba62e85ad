import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../engine/types';
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
					"Use to analyze several resumes at once (one per input item, batches of 20) and get their report summaries when done. Needs each item's resume file (PDF or DOCX binary) and a saved job or job text; scopes analyses:write and reports:read.",
				action: 'Analyze many resumes',
			},
			{
				name: 'Analyze Resume',
				value: 'analyzeResume',
				description:
					"Use to analyze one candidate's resume against a job in one step (prepare, upload, quote, start; can wait for the result). Needs the resume file (PDF or DOCX binary) and a saved job or job text; scope analyses:write (reports:read to wait).",
				action: 'Analyze a resume',
			},
			{
				name: 'Get Batch',
				value: 'getBatch',
				description:
					'Use to check the progress of an analysis batch started by Start Many. Needs the batch ID; scope analyses:write.',
				action: 'Get an analysis batch',
			},
			{
				name: 'Get Quote',
				value: 'getQuote',
				description:
					'Use to see the credit price of analyzing an uploaded resume before starting it. Needs the report ID of an upload; scope analyses:write.',
				action: 'Get an analysis quote',
			},
			{
				name: 'Get Quotes',
				value: 'getQuotes',
				description:
					'Use to price the analyses of several uploaded resumes at once (batch quotes of 20). Needs a report ID per input item; scope analyses:write.',
				action: 'Get analysis quotes',
			},
			{
				name: 'Start',
				value: 'start',
				description:
					'Use to start the analysis of a resume already uploaded (after Upload Resume or Prepare Only). Needs the report ID (and a quote fingerprint unless quoted automatically); scope analyses:write.',
				action: 'Start an analysis',
			},
			{
				name: 'Start Many',
				value: 'startMany',
				description:
					'Use to start the analyses of several uploaded resumes at once (batches of 20). Needs a report ID per input item; scope analyses:write.',
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
