import { operationSelector } from '../common/descriptions';
import * as analyzeMany from './analyzeMany.operation';
import * as analyzeResume from './analyzeResume.operation';
import * as getBatch from './getBatch.operation';
import * as getQuote from './getQuote.operation';
import * as getQuotes from './getQuotes.operation';
import * as start from './start.operation';
import * as startMany from './startMany.operation';

export const operations = {
	analyzeMany,
	analyzeResume,
	getBatch,
	getQuote,
	getQuotes,
	start,
	startMany,
};

// Alphabetical (n8n's lint): Analyze Many and Analyze Resume, the operations most users want, sort first.
export const selector = operationSelector('analysis', 'analyzeResume', [
	{
		name: 'Analyze Many',
		value: 'analyzeMany',
		description: 'Score many resumes at once, in batches of 20, and get their scores',
		action: 'Analyze many resumes',
	},
	{
		name: 'Analyze Resume',
		value: 'analyzeResume',
		description: 'Score one resume against a job: upload, quote and analyze in one step',
		action: 'Analyze a resume',
	},
	{
		name: 'Get Batch',
		value: 'getBatch',
		description: 'Check the progress of a Start Many batch',
		action: 'Get an analysis batch',
	},
	{
		name: 'Get Quote',
		value: 'getQuote',
		description: 'See what analyzing an uploaded resume would cost',
		action: 'Get an analysis quote',
	},
	{
		name: 'Get Quotes',
		value: 'getQuotes',
		description: 'See what analyzing many uploaded resumes would cost',
		action: 'Get analysis quotes',
	},
	{
		name: 'Start',
		value: 'start',
		description: 'Start the analysis of a resume already uploaded',
		action: 'Start an analysis',
	},
	{
		name: 'Start Many',
		value: 'startMany',
		description: 'Start the analyses of many uploaded resumes at once',
		action: 'Start many analyses',
	},
]);
