import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as analysis from './actions/analysis/Analysis.resource';
import * as event from './actions/event/Event.resource';
import * as interview from './actions/interview/Interview.resource';
import * as jobDescription from './actions/jobDescription/JobDescription.resource';
import * as report from './actions/report/Report.resource';
import { router } from './actions/router';
import * as upload from './actions/upload/Upload.resource';

export class RecruitingAnalysis implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Recruiting Analysis',
		name: 'recruitingAnalysis',
		icon: { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' },
		group: ['transform'],
		// 1.1: the analysis operations output simplified items by default (Simplify); version 1 keeps its outputs.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Analyze resumes and run candidate interviews with the Recruiting Analysis API',
		defaults: {
			name: 'Recruiting Analysis',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'recruitingAnalysisApi',
				required: true,
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Analysis',
						value: 'analysis',
					},
					{
						name: 'Event',
						value: 'event',
					},
					{
						name: 'Interview',
						value: 'interview',
					},
					{
						name: 'Job Description',
						value: 'jobDescription',
					},
					{
						name: 'Report',
						value: 'report',
					},
					{
						name: 'Upload',
						value: 'upload',
					},
				],
				default: 'analysis',
			},
			...analysis.description,
			...upload.description,
			...report.description,
			...interview.description,
			...jobDescription.description,
			...event.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
