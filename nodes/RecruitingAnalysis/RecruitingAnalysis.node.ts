import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { operationProperties, router } from './actions/router';
import { ACTION_NODE_VERSION } from './actions/common/descriptions';
import {
	DEFAULT_RESOURCE,
	reviewSwitches,
	toolCosts,
	toolDescriptions,
} from './actions/common/toolMode';
import { searchInterviews, searchJobDescriptions, searchReports } from './methods/listSearch';
import { recruitingAnalysisApiTest } from './methods/credentialTest';

function subtitleExpression(properties: INodeProperties[]): string {
	const actions: Record<string, string> = {};
	for (const [key, { action }] of toolCosts(properties))
		if (action !== undefined) actions[key] = action;
	return `={{ (${JSON.stringify(actions)})[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}

export class RecruitingAnalysis implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Recruiting Analysis',
		name: 'recruitingAnalysis',
		icon: { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' },
		group: ['transform'],
		version: ACTION_NODE_VERSION,
		subtitle: subtitleExpression(operationProperties),
		description: 'Analyze resumes and run candidate interviews with the Recruiting Analysis API',
		defaults: { name: 'Recruiting Analysis' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'recruitingAnalysisApi', required: true, testedBy: 'recruitingAnalysisApiTest' },
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Analysis', value: 'analysis' },
					{ name: 'Event', value: 'event' },
					{ name: 'Interview', value: 'interview' },
					{ name: 'Job Description', value: 'jobDescription' },
					{ name: 'Report', value: 'report' },
					{ name: 'Upload', value: 'upload' },
				],
				default: DEFAULT_RESOURCE,
			},
			...operationProperties,
			...reviewSwitches(operationProperties),
			...toolDescriptions(operationProperties),
		],
	};

	methods = {
		credentialTest: { recruitingAnalysisApiTest },
		listSearch: { searchInterviews, searchJobDescriptions, searchReports },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
