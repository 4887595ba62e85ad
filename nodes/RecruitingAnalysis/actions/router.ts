import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runNode, type OperationModule } from '../engine/run';
import * as analysis from './analysis/Analysis.resource';
import { refuseModelChosenGuardRails } from './common/modelChoices';
import * as event from './event/Event.resource';
import * as interview from './interview/Interview.resource';
import * as jobDescription from './jobDescription/JobDescription.resource';
import * as report from './report/Report.resource';
import { refuseUnreviewedToolCall, toolCosts } from './common/toolMode';
import * as upload from './upload/Upload.resource';

export const resources: Record<string, Record<string, OperationModule>> = {
	analysis: analysis.operations,
	event: event.operations,
	interview: interview.operations,
	jobDescription: jobDescription.operations,
	report: report.operations,
	upload: upload.operations,
};

export const operationProperties = [
	analysis,
	upload,
	report,
	interview,
	jobDescription,
	event,
].flatMap((r) => r.description);

const costs = toolCosts(operationProperties);

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	refuseModelChosenGuardRails(this);
	refuseUnreviewedToolCall(this, costs);
	return await runNode.call(this, resources);
}
